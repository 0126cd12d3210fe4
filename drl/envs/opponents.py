"""The opponent played inside the single-agent envs, built from an agent spec string.

Specs are resolved by :func:`drl.agents.make` (``"random"``, ``"greedy"``,
``"alphabeta:depth=4"``, ...). Where that registry is not available, ``"random"`` is served
by :class:`RandomMover`, a uniform choice among the legal moves.
"""

from __future__ import annotations

import importlib
from typing import Any, Optional, Protocol

import numpy as np

from drl.rules.board import Board, Move


class Opponent(Protocol):
    """What the envs need from an opponent."""

    def select_move(self, board: Board) -> Move:  # pragma: no cover - protocol
        """The move to play on ``board`` (not pushed)."""

    def reset(self, seed: Optional[int] = None) -> None:  # pragma: no cover - protocol
        """Start a new game; ``seed`` makes its choices reproducible."""


class RandomMover:
    """Uniformly random legal moves from its own seeded generator."""

    def __init__(self, seed: Optional[int] = None) -> None:
        self._rng = np.random.default_rng(seed)

    def reset(self, seed: Optional[int] = None) -> None:
        """Restart the generator (``None`` draws fresh entropy)."""
        self._rng = np.random.default_rng(seed)

    def select_index(self, n_moves: int) -> int:
        """A uniformly random index in ``[0, n_moves)``."""
        return int(self._rng.integers(n_moves))

    def select_move(self, board: Board) -> Move:
        """A uniformly random legal move of ``board``.

        Raises:
            ValueError: if the position has no legal move.
        """
        moves = board.legal_moves
        if not moves:
            raise ValueError(f"no legal move in {board.fen()}")
        return moves[self.select_index(len(moves))]


def make_opponent(spec: Any) -> Opponent:
    """The opponent for an agent spec string (or an object with ``select_move``).

    Args:
        spec: ``"random"``, any spec that :func:`drl.agents.make` accepts, or an agent
            object (returned as is).

    Raises:
        ValueError: the spec is not understood (the message says why).
    """
    if hasattr(spec, "select_move"):
        return spec
    if not isinstance(spec, str):
        raise ValueError(f"opponent must be an agent spec string or an agent, got {spec!r}")
    make = _agents_make()
    if make is not None:
        return make(spec)
    if spec.strip().lower() == "random":
        return RandomMover()
    raise ValueError(f"opponent {spec!r} needs drl.agents.make, which is not available; "
                     f"only 'random' works without it")


def _agents_make():
    try:
        agents = importlib.import_module("drl.agents")
    except ImportError:
        return None
    return getattr(agents, "make", None)
