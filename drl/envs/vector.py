"""``DraughtsVectorEnv``: many games against random opponents, stepped in one compiled call.

The batched counterpart of :class:`drl.envs.DraughtsEnv` with ``opponent="random"``, for
throughput (rollouts, benchmarks): same observations, actions, rewards and truncation, no
PDN and no per-game Board. Episodes reset automatically in the step *after* they end
(Gymnasium's ``AutoresetMode.NEXT_STEP``: that step ignores the game's action and returns
its first observation with reward 0).

>>> import numpy as np
>>> from drl.envs.vector import DraughtsVectorEnv
>>> envs = DraughtsVectorEnv(4, "english")  # or gymnasium.make_vec("drl/English-v0", 4)
>>> obs, info = envs.reset(seed=0)
>>> obs["observation"].shape, obs["action_mask"].shape
((4, 22, 8, 8), (4, 896))
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from drl._configs import DEFAULT_MAX_PLIES
from drl.encode.actions import num_actions
from drl.encode.planes import N_CHANNELS
from drl.envs import _kernels as K
from drl.envs.variants import Options, build_variant, role_variants
from drl.game import winners
from drl.game.kernels import G_CODE, POS_SIZE
from drl.rules._quote import excerpt
from drl.rules.board import Move
from drl.rules.core import MAX_MOVES, MOVE_WIDTH, ST_PLY, initial_state
from drl.rules.variant import Variant

COLORS = ("black", "white")


def _buffer_shapes(
    board_size: int, max_plies: int, record_moves: bool
) -> dict[str, tuple[tuple[int, ...], type]]:
    """Per-game shape and dtype of each buffer of the vector env.

    Each array is ``B`` of these, stacked.
    """
    n, a = board_size, num_actions(board_size)
    return {
        "_ws": ((K.W_SIZE,), np.int64),
        "_pos": ((POS_SIZE,), np.int64),
        "_rows": ((MAX_MOVES, MOVE_WIDTH), np.int64),
        "_hist": ((max_plies + 2,), np.int64),
        # without recording, one scratch row per game (the kernel writes move j to row
        # min(j, rows - 1))
        "_logs": ((max_plies + 2 if record_moves else 1, MOVE_WIDTH), np.int64),
        "_rngs": ((), np.uint64),
        "_masks": ((a,), np.int8),
        "_planes": ((N_CHANNELS, n, n), np.float32),
        "_rewards": ((), np.float32),
        "_terminated": ((), np.bool_),
        "_truncated": ((), np.bool_),
        "_needs_reset": ((), np.bool_),
        "_no_actions": ((), np.int64),
    }


def bytes_per_env(board_size: int, max_plies: int, record_moves: bool = False) -> int:
    """Memory one game of a :class:`DraughtsVectorEnv` takes, in bytes.

    The sum of its buffers (the legal-move rows, ``MAX_MOVES x MOVE_WIDTH`` int64 =
    512 KiB, are most of it; the repetition history and, with ``record_moves``, the move
    log grow with ``max_plies``), plus the batched observation space's bounds (low and
    high arrays and their two boolean masks per observation element) and the copy of the
    observation that each step returns.
    """
    shapes = _buffer_shapes(board_size, max_plies, record_moves)
    # (Python ints: a max_plies past int64 must give a huge number, not an overflow)
    total = sum(math.prod(shape) * np.dtype(dtype).itemsize for shape, dtype in shapes.values())
    planes = math.prod(shapes["_planes"][0])
    mask = math.prod(shapes["_masks"][0])
    total += planes * (2 * 4 + 2) + mask * (2 * 1 + 2)  # space bounds: low, high, 2 masks
    total += planes * 4 + mask  # the observation copy of a step
    return total


def memory_limit() -> int | None:
    """Bytes of memory this process can have; None where it is not known.

    The machine's physical memory, or the control group's limit when that is lower.
    """
    limits = []
    try:
        limits.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        pass
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            text = Path(path).read_text().strip()
        except OSError:
            continue
        if text.isdigit():
            limits.append(int(text))
    limits = [x for x in limits if x > 0]
    return min(limits) if limits else None


def _size(n: int) -> str:
    """Bytes for a message: ``548 KiB``, ``23.5 GiB`` (any size, however large)."""
    if n.bit_length() > 256:  # past a float, and past reading
        return f"{excerpt(n // 2**30)} GiB"
    if n < 2**20:
        return f"{n / 2**10:,.0f} KiB"
    if n < 2**30:
        return f"{n / 2**20:,.1f} MiB"
    return f"{n / 2**30:,.1f} GiB"


def _check_arguments(
    num_envs: int,
    agent_color: str,
    max_plies: int,
    illegal_action: str,
    opponent: str,
    render_mode: str | None,
) -> None:
    """Raise ``ValueError`` for an argument of :class:`DraughtsVectorEnv` out of range."""
    if opponent != "random":
        raise ValueError(
            f"the vector env plays only opponent='random', got {opponent!r}; "
            f"use gymnasium.make_vec(..., vectorization_mode='sync') for "
            f"other opponents"
        )
    if render_mode is not None:
        raise ValueError("the vector env does not render; use DraughtsEnv")
    if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
        raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
    if agent_color not in COLORS + ("random",):
        raise ValueError(f"agent_color must be 'black', 'white' or 'random', got {agent_color!r}")
    if isinstance(max_plies, bool) or not isinstance(max_plies, (int, np.integer)) or max_plies < 1:
        raise ValueError(f"max_plies must be a positive integer, got {max_plies!r}")
    if illegal_action not in ("raise", "lose"):
        raise ValueError(f"illegal_action must be 'raise' or 'lose', got {illegal_action!r}")


def _check_memory(num_envs: int, board_size: int, max_plies: int, record_moves: bool) -> None:
    """Raise ``ValueError`` when the buffers of ``num_envs`` games do not fit in memory.

    The limit is :func:`memory_limit`; the message says how many games do fit.
    """
    per_env = bytes_per_env(board_size, max_plies, record_moves)
    need, limit = num_envs * per_env, memory_limit()
    if limit is not None and need > limit:
        fit = limit // per_env
        raise ValueError(
            f"num_envs={excerpt(num_envs)} needs {_size(need)} of buffers "
            f"({_size(per_env)} per game at max_plies={excerpt(max_plies)}"
            f"{', record_moves' if record_moves else ''}), more than the memory "
            f"limit of {_size(limit)} (the machine's memory, or its control group's); "
            + (f"at most {fit:,} games fit" if fit else "not even one game fits")
        )


class DraughtsVectorEnv(VectorEnv):
    """``num_envs`` games of one variant, the agent against uniformly random replies.

    Args:
        num_envs: number of games B.
        variant, role, variant_options, agent_color, illegal_action: as for
            :class:`drl.envs.DraughtsEnv`.
        max_plies: truncation after this many plies (required here, it sizes the buffers).
        copy: return copies of the observation buffers (default) rather than views that
            the next step overwrites.
        opponent: must be ``"random"`` (accepted so that ``gymnasium.make_vec`` can pass the
            env kwargs through).
        render_mode: must be None.
        record_moves: keep every game's moves (:meth:`game_moves`), at
            ``(max_plies + 2) * MOVE_WIDTH`` int64 per game; off by default.

    Observations ``{"observation": float32[B, C, n, n], "action_mask": int8[B, A]}``;
    actions ``int64[B]``; ``info["agent_color"]`` (``int64[B]``, 0 black, 1 white) and, for
    games that just ended by rule, ``info["winner"]`` (0 black, 1 white, 2 draw; masked by
    ``info["_winner"]``).

    Raises:
        ValueError: bad arguments; an illegal action under ``illegal_action="raise"``
            (nothing is played in any game then).
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(  # noqa: PLR0913 (the keywords of gymnasium.make_vec, one per option)
        self,
        num_envs: int,
        variant: str | Variant = "english",
        role: str | None = None,
        variant_options: Options = None,
        agent_color: str = "random",
        max_plies: int = DEFAULT_MAX_PLIES,
        illegal_action: str = "lose",
        copy: bool = True,
        opponent: str = "random",
        render_mode: str | None = None,
        record_moves: bool = False,
    ) -> None:
        _check_arguments(num_envs, agent_color, max_plies, illegal_action, opponent, render_mode)
        self.variant = build_variant(variant, variant_options)
        _check_memory(int(num_envs), self.variant.board_size, int(max_plies), bool(record_moves))
        variants = role_variants(self.variant, role)
        self._variants = (variants[0], variants[1])  # by agent colour
        self.num_envs = int(num_envs)
        self.agent_color = agent_color
        self.max_plies = int(max_plies)
        self.illegal_action = illegal_action
        self.copy = copy
        self.record_moves = bool(record_moves)
        self._make_spaces()
        self._params2 = np.stack([variants[0].params, variants[1].params])
        self._init = np.asarray(initial_state(self._params2[0]), dtype=np.int64)
        self._allocate()

    def _make_spaces(self) -> None:
        n = self.variant.board_size
        a = num_actions(n)
        self.single_observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (N_CHANNELS, n, n), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (a,), dtype=np.int8),
            }
        )
        self.single_action_space = spaces.Discrete(a)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

    def _allocate(self) -> None:
        """The buffers of the games and the plain tuples that the compiled vector step takes.

        The buffers are those ``bytes_per_env`` counts; the plain tuples of them are what
        :func:`drl.envs._kernels.vector_step` takes (its fastest call).
        """
        b = self.num_envs
        shapes = _buffer_shapes(self.variant.board_size, self.max_plies, self.record_moves)

        def zeros(name: str) -> np.ndarray:
            shape, dtype = shapes[name]
            return np.zeros((b, *shape), dtype=dtype)

        self._ws = zeros("_ws")
        self._ws[:, K.W_PLY_LIMIT] = self.max_plies
        self._pos = zeros("_pos")
        self._rows = zeros("_rows")
        self._hist = zeros("_hist")
        self._logs = zeros("_logs")
        self._rngs = zeros("_rngs")
        self._masks = zeros("_masks")
        self._planes = zeros("_planes")
        self._rewards = zeros("_rewards")
        self._terminated = zeros("_terminated")
        self._truncated = zeros("_truncated")
        self._needs_reset = zeros("_needs_reset")
        self._needs_reset[:] = True
        self._no_actions = zeros("_no_actions")
        self._games = (self._pos, self._rows, self._hist)  # K.Games
        self._drivers = (self._ws, self._logs, self._rngs)  # K.Drivers
        self._rules = (self._params2, self._init)  # K.Rules
        self._outputs = (
            self._masks,
            self._planes,
            self._rewards,
            self._terminated,
            self._truncated,
        )

    def _draw_agents(self) -> np.ndarray:
        if self.agent_color == "random":
            return self.np_random.integers(2, size=self.num_envs).astype(np.int64)
        return np.full(self.num_envs, COLORS.index(self.agent_color), dtype=np.int64)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict]:
        """Start every game; ``seed`` makes the whole run (colours, opponents) reproducible."""
        super().reset(seed=seed)
        if options:
            raise ValueError(f"unknown reset options {sorted(options)}")
        self._rngs[:] = self.np_random.integers(2**63, size=self.num_envs, dtype=np.uint64)
        self._needs_reset[:] = True
        self._run(self._no_actions, lose=False)
        self._needs_reset[:] = False
        return self._observation(), self._info()

    def step(
        self, actions: Any
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict]:
        """One step action per game (ignored for games being reset).

        Raises:
            ValueError: actions that are not integers (floats, strings, booleans), the
                wrong number of them, or an illegal one with ``illegal_action="raise"``.
        """
        raw = np.asarray(actions)
        if raw.dtype.kind not in "iu":
            raise ValueError(
                f"actions must be integer step indices, got dtype {raw.dtype} "
                f"({np.ravel(raw)[:4].tolist()}...)"
            )
        acts = raw.astype(np.int64).reshape(-1)
        if acts.shape[0] != self.num_envs:
            raise ValueError(f"expected {self.num_envs} actions, got {acts.shape[0]}")
        a = self._masks.shape[1]
        inside = (acts >= 0) & (acts < a)
        legal = inside & (self._masks[np.arange(self.num_envs), np.clip(acts, 0, a - 1)] == 1)
        bad = ~legal & ~self._needs_reset
        if bad.any() and self.illegal_action == "raise":
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"illegal action {int(acts[i])} in game {i}; legal actions: "
                f"{np.flatnonzero(self._masks[i]).tolist()}"
            )
        self._run(np.where(inside, acts, -1), lose=True)
        self._needs_reset = self._terminated | self._truncated
        info = self._info()
        if self._terminated.any():
            codes = self._pos[:, G_CODE]
            ended = self._terminated & (codes >= 0)
            info["winner"] = np.where(ended, winners(codes), -1)
            info["_winner"] = ended
        rewards = self._rewards.copy()
        return (self._observation(), rewards, self._terminated.copy(), self._truncated.copy(), info)

    def action_masks(self) -> np.ndarray:
        """``bool[B, A]`` legal step actions of every game."""
        return self._masks.astype(bool)

    def game_moves(self, index: int) -> list[Move]:
        """The moves of game ``index`` so far, both sides, in order.

        After the step that ended it, the whole game (until the next step starts a new one
        there).

        Raises:
            IndexError: ``index`` is not in ``0..num_envs-1``.
            RuntimeError: the env was made without ``record_moves=True``.
        """
        if not self.record_moves:
            raise RuntimeError("game_moves needs DraughtsVectorEnv(..., record_moves=True)")
        if not 0 <= int(index) < self.num_envs:
            raise IndexError(f"game index {index} is not in 0..{self.num_envs - 1}")
        i = int(index)
        plies = int(self._pos[i, ST_PLY] - self._ws[i, K.W_PLY0])
        size, notation = self.variant.board_size, self.variant.notation
        return [Move.from_row(row.copy(), size, notation) for row in self._logs[i, :plies]]

    def _run(self, actions: np.ndarray, lose: bool) -> None:
        new_agents = self._draw_agents() if self._needs_reset.any() else self._no_actions
        K.vector_step(
            self._games,
            self._drivers,
            self._rules,
            actions,
            self._needs_reset,
            new_agents,
            lose,
            self._outputs,
        )

    def _observation(self) -> dict[str, np.ndarray]:
        if self.copy:
            return {"observation": self._planes.copy(), "action_mask": self._masks.copy()}
        return {"observation": self._planes, "action_mask": self._masks}

    def _info(self) -> dict[str, Any]:
        return {"agent_color": self._ws[:, K.W_AGENT].copy()}
