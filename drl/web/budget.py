"""The memory budget of one ``drl-web`` server: games, their opponents and the replays.

Every open game and every PDN file kept for replay holds memory: an ``alphabeta``
opponent its transposition table (48 bytes a slot, ``2**tt`` slots) and search stack, an
``mcts`` opponent its tree, an ``az`` opponent its network and search tree, a replay file
its games. A :class:`MemoryBudget` counts what each holds, as estimated from the spec
before anything is built (:func:`opponent_bytes`) and as measured after
(:func:`agent_bytes`), and refuses what would go over the budget with a message that says
what holds the memory, instead of letting the server grow.

The default budget is a quarter of the machine's memory (:func:`default_budget`);
``drl-web --memory GIB`` sets another.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import numpy as np

from drl.agents import Agent, parse_spec
from drl.web.settings import GameError

__all__ = [
    "GAME_BYTES",
    "BudgetFull",
    "MemoryBudget",
    "agent_bytes",
    "default_budget",
    "gib",
    "opponent_bytes",
]

GAME_BYTES = 1 << 20
"""What a game holds besides its opponent: board, history, worker thread (1 MiB)."""

ENGINE_BYTES = 16 << 20
"""What an engine game (``hub``, ``dxp``) holds in the server (the engine's own memory is
its program's, started by the server's operator)."""

NETWORK_BYTES = 64 << 20
"""The allowance for a network before its checkpoint is read (corrected once it is)."""

AZ_BYTES_PER_SIMULATION = 750
"""Search-tree bytes per simulation of an ``az`` opponent (``drl.agents`` documents it)."""

MCTS_BYTES_PER_NODE = 12 * 8 + 9 * 8 + 8
"""Bytes per node of an ``mcts`` tree (``drl.agents._mcts.allocate``)."""


def gib(nbytes: float) -> str:
    """``nbytes`` as text in GiB or MiB (``"1.5 GiB"``, ``"200 MiB"``)."""
    if nbytes >= 1 << 30:
        return f"{nbytes / (1 << 30):.1f} GiB"
    return f"{nbytes / (1 << 20):.0f} MiB"


def machine_memory() -> int:
    """The machine's physical memory in bytes (4 GiB where the system does not say)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 4 << 30


def default_budget() -> int:
    """A quarter of the machine's memory, at least 512 MiB, in bytes."""
    return max(512 << 20, machine_memory() // 4)


class BudgetFull(GameError):
    """A game or file refused because the server's memory budget would be exceeded."""


class MemoryBudget:
    """Bytes reserved by a server's games and files, against a limit; thread-safe.

    Args:
        limit: the budget in bytes (> 0).

    Raises:
        ValueError: ``limit`` not positive.
    """

    def __init__(self, limit: int) -> None:
        if limit <= 0:
            raise ValueError(f"a memory budget must be positive, got {limit} bytes")
        self.limit = int(limit)
        self._used = 0
        self._lock = threading.Lock()

    @property
    def used(self) -> int:
        """Bytes reserved now."""
        with self._lock:
            return self._used

    def reserve(self, nbytes: int, what: str, credit: int = 0) -> None:
        """Reserve ``nbytes`` for ``what``, or refuse.

        Args:
            nbytes: the bytes asked for (>= 0).
            what: names what asks (for the message), e.g. ``"opponent 'alphabeta:tt=26'"``.
            credit: bytes reserved now that the caller will release right after (a game
                being replaced): they count as free.

        Raises:
            BudgetFull: the budget would be exceeded; the message says by how much and how
                to make room.
        """
        with self._lock:
            free = self.limit - self._used + credit
            if nbytes > free:
                raise BudgetFull(
                    f"{what} needs about {gib(nbytes)} of memory, and this server has "
                    f"{gib(max(free, 0))} of its {gib(self.limit)} budget left: close a game "
                    "(or choose smaller settings), or start drl-web with a larger --memory"
                )
            self._used += nbytes

    def release(self, nbytes: int) -> None:
        """Give back ``nbytes`` reserved earlier."""
        with self._lock:
            self._used = max(0, self._used - int(nbytes))


def _alphabeta_bytes(tt_bits: int) -> int:
    from drl.agents._alphabeta import F_WIDTH, MAX_PLY, TT_WIDTH
    from drl.rules._movegen import MAX_MOVES, MOVE_WIDTH

    stack = MAX_PLY * MAX_MOVES * (MOVE_WIDTH + 1) * 8 + MAX_PLY * (F_WIDTH + 16) * 8
    stack += 1 << 20  # move-generator context, control row, history, evaluation tables
    return (1 << tt_bits) * TT_WIDTH * 8 + stack


def _file_bytes(path: str) -> int:
    """A network's allowance from its checkpoint's size (a folder: the allowance)."""
    try:
        file = Path(path).expanduser()
        return max(NETWORK_BYTES, 2 * file.stat().st_size) if file.is_file() else NETWORK_BYTES
    except (OSError, ValueError):
        return NETWORK_BYTES


def opponent_bytes(spec: str) -> int:
    """Estimate the memory an opponent of ``spec`` will hold, before it is built.

    Args:
        spec: an agent spec.

    Returns:
        Bytes: the transposition table and search stack of ``alphabeta`` (plus its
        network's allowance with ``ckpt=``), the tree of ``mcts``, the tree of ``az`` at
        its ``sims`` (or none when the checkpoint sets it) plus its network's allowance,
        :data:`ENGINE_BYTES` for engines, 0 for the rest.

    Raises:
        GameError: a bad spec.
    """
    try:
        kind, values = parse_spec(spec)
    except ValueError as err:
        raise GameError(f"opponent {spec!r}: {err}") from None
    if kind == "alphabeta":
        net = _file_bytes(values["ckpt"]) if values.get("ckpt") else 0
        return _alphabeta_bytes(int(values.get("tt", 19))) + net
    if kind == "mcts":
        return (int(values.get("sims", 400)) + 1) * MCTS_BYTES_PER_NODE + (1 << 20)
    if kind == "az":
        sims = int(values.get("sims", 0))
        return sims * AZ_BYTES_PER_SIMULATION + _file_bytes(str(values.get("ckpt", "")))
    if kind in ("hub", "dxp"):
        return ENGINE_BYTES
    return 0


def _arrays_bytes(value: Any) -> int:
    """Bytes of the numpy arrays in ``value`` (an array or a tuple of them)."""
    if isinstance(value, np.ndarray):
        return int(value.nbytes)
    if isinstance(value, tuple):
        return sum(_arrays_bytes(v) for v in value)
    return 0


def agent_bytes(agent: Agent) -> int:
    """Measure the memory a built opponent holds (its arrays and network parameters).

    Args:
        agent: the opponent.

    Returns:
        Bytes: the search buffers of ``alphabeta`` (and its network's weights), the tree
        of ``mcts``, the network parameters and tree (at its simulation budget) of
        ``az``; :func:`opponent_bytes`'s figure for engines; 0 for the rest.
    """
    total = 0
    buffers = getattr(agent, "_buf", None)  # alphabeta
    if buffers is not None:
        total += _arrays_bytes(tuple(buffers.stack)) + _arrays_bytes(tuple(buffers.tables))
        total += _arrays_bytes(tuple(getattr(agent, "_net", ())))
    tree = getattr(agent, "_tree", None)  # mcts
    if isinstance(tree, tuple):
        total += _arrays_bytes(tuple(tree))
    player = getattr(agent, "player", None)  # az
    if player is not None:
        net = getattr(agent, "net", None)
        if net is not None and hasattr(net, "parameters"):
            total += sum(p.numel() * p.element_size() for p in net.parameters())
        sims = int(getattr(getattr(player, "search", None), "num_simulations", 0))
        total += sims * AZ_BYTES_PER_SIMULATION
    if getattr(agent, "close", None) is not None and not total:
        total = ENGINE_BYTES
    return total
