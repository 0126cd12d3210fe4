"""``StepState``: an immutable position in step space, the game core's functional front end.

A position in step space is ``(game state, steps of the move in progress)``.

Each ``StepState`` holds one position array of :mod:`drl.game.kernels` and its legal
moves; :meth:`StepState.push` copies both and applies the step with the core's
:func:`~drl.game.kernels.step`, so masks, planes, repetition and results are the core's.
A ``StepState`` carries no game history: its repetition count is given by the caller.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from drl.encode.actions import action_index, step_squares
from drl.encode.mask import MAX_STEPS
from drl.encode.planes import N_CHANNELS
from drl.game import kernels as G
from drl.rules.board import Outcome, as_color
from drl.rules.core import MOVE_WIDTH, ST_PLY, ST_TURN, STATE_SIZE, check_state

if TYPE_CHECKING:
    from drl.rules.board import Board

__all__ = ["StepState"]


@dataclass(frozen=True, eq=False)
class StepState:
    """A game state plus the steps already played in the move in progress.

    Immutable; compared by identity (use ``state``/``prefix`` to compare positions).

    Attributes:
        state: ``int64[STATE_SIZE]`` game state (read-only copy); it changes only when a
            move is completed.
        params: ``int64[PARAMS_SIZE]`` variant parameters.
        prefix: step action indices played so far in the current move (mover's frame).
        repetitions: earlier occurrences of ``state`` in the game (feeds the repetition
            plane and the repetition draw; 0 when unknown).

    Raises:
        ValueError: a malformed state (``drl.rules.core.check_state``), a prefix that is
            not a legal start of a move, or a negative/non-integer ``repetitions``.
    """

    state: np.ndarray
    params: np.ndarray
    prefix: tuple[int, ...] = ()
    repetitions: int = 0
    _pos: np.ndarray | None = field(default=None, repr=False, compare=False)
    _moves: np.ndarray | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        state = np.array(self.state, dtype=np.int64)
        check_state(state, self.params)  # the kernels index tables with its squares
        state.setflags(write=False)
        object.__setattr__(self, "state", state)
        object.__setattr__(self, "prefix", tuple(action_index(a) for a in self.prefix))
        if len(self.prefix) >= MAX_STEPS:
            raise ValueError(f"prefix of {len(self.prefix)} steps is longer than any move")
        if (
            isinstance(self.repetitions, bool)
            or not isinstance(self.repetitions, (int, np.integer))
            or self.repetitions < 0
        ):
            raise ValueError(f"repetitions must be an integer >= 0, got {self.repetitions!r}")
        if self._pos is None:
            pos = G.new_pos()
            moves = G.move_buffer()
            G.start(pos, state, self.params, moves, np.zeros(int(state[ST_PLY]) + 1, np.int64))
            G.set_repetitions(pos, self.params, int(self.repetitions))
            played = np.zeros(MOVE_WIDTH, np.int64)
            for i, a in enumerate(self.prefix):
                if (
                    G.step(pos, self.params, moves, np.zeros(1, np.int64), a, played)
                    != G.STEP_IN_PROGRESS
                ):
                    raise ValueError(
                        f"prefix {list(self.prefix)}: step {i} ({a}) does not "
                        f"go on with a legal move"
                    )
            object.__setattr__(self, "_pos", pos)
            object.__setattr__(self, "_moves", moves[: int(pos[G.G_NMOVES])].copy())

    @property
    def _position(self) -> np.ndarray:
        """The game core's position array (set by ``__post_init__`` or given with ``_moves``)."""
        assert self._pos is not None
        return self._pos

    @property
    def _rows(self) -> np.ndarray:
        """The legal move rows (set together with ``_pos``)."""
        assert self._moves is not None
        return self._moves

    @classmethod
    def from_board(
        cls, board: Board, prefix: tuple[int, ...] = (), repetitions: int = 0
    ) -> StepState:
        """The step state of a :class:`~drl.rules.Board` (at the start of a move by default)."""
        return cls(board.state, board.variant.params, tuple(prefix), repetitions)

    # ------------------------------------------------------------------ queries

    @property
    def turn(self) -> int:
        """Colour to move (0 black, 1 white); it stays the same through a move in progress."""
        return int(self.state[ST_TURN])

    @property
    def moves(self) -> np.ndarray:
        """``int64[k, MOVE_WIDTH]`` legal move rows of ``state`` (read-only copy)."""
        out = self._rows.copy()
        out.setflags(write=False)
        return out

    @property
    def num_actions(self) -> int:
        """Size of the step action space A (896 on 8x8, 1800 on 10x10)."""
        return int(self.params[2] * 4 * (self.params[1] - 1))

    @property
    def outcome(self) -> Outcome | None:
        """The result if the position ends the game (the game core's result code)."""
        return Outcome.from_code(int(self._position[G.G_CODE]))

    def _buffers(self) -> tuple[np.ndarray, np.ndarray]:
        """Writable copies of the position array and a full move buffer."""
        moves = G.move_buffer()
        rows = self._rows
        moves[: len(rows)] = rows
        return self._position.copy(), moves

    def action_mask(self, dtype: type = np.bool_) -> np.ndarray:
        """Legal steps: ``[A]`` array of ``dtype`` (bool default, or int8), 1 = legal."""
        out: np.ndarray = np.zeros(self.num_actions, dtype=dtype)
        pos, moves = self._buffers()
        G.legal_mask(pos, self.params, moves, out)
        return out

    def legal_actions(self) -> np.ndarray:
        """``int64[k]`` indices of the legal steps, ascending."""
        return np.flatnonzero(self.action_mask()).astype(np.int64)

    def observation(self, viewer: int | None = None) -> np.ndarray:
        """``float32[N_CHANNELS, n, n]`` planes from ``viewer``'s view (default: the mover).

        Raises:
            ValueError: ``viewer`` is not a colour (``Color``, 0/1, ``"black"``/``"white"``).
        """
        n = int(self.params[1])
        out = np.zeros((N_CHANNELS, n, n), dtype=np.float32)
        who = -1 if viewer is None else int(as_color(viewer))
        G.observe(self._position, self.params, who, out)
        return out

    def squares(self, action: int) -> tuple[int, int]:
        """Absolute ``(from, to)`` squares of a step action for the player to move."""
        a, b = step_squares(action_index(action), self.turn, self.params)
        return int(a), int(b)

    def step_text(self, action: int) -> str:
        """PDN-like text of one step (``"28x19"`` / ``"22-17"``), or ``"?"`` off the board."""
        a, b = self.squares(action)
        if a < 0:
            return "?"
        rows = self._rows
        sep = "x" if rows.shape[0] and rows[0, 2] != 0 else "-"
        return f"{a + 1}{sep}{b + 1}"

    # ------------------------------------------------------------------ transitions

    def push(self, action: int) -> tuple[StepState, np.ndarray | None]:
        """Play one step.

        Args:
            action: a step action index.

        Returns:
            ``(next_state, move_row)``: when the step completes a move, the position after
            it and the completed move's ``int64[MOVE_WIDTH]`` row; otherwise the same game
            state with the longer prefix and ``None``.

        Raises:
            ValueError: if the step is not an integer, or not legal here (naming the
                legal ones).
        """
        action = action_index(action)
        pos, moves = self._buffers()
        played = np.zeros(MOVE_WIDTH, np.int64)
        hist = np.zeros(int(self.state[ST_PLY]) + 2, np.int64)
        result = G.step(pos, self.params, moves, hist, action, played)
        if result == G.STEP_ILLEGAL:
            legal = ", ".join(f"{a} ({self.step_text(a)})" for a in self.legal_actions())
            raise ValueError(
                f"step action {action} ({self.step_text(action)}) is not legal "
                f"here; legal steps: {legal or 'none'}"
            )
        if result == G.STEP_IN_PROGRESS:
            return StepState(
                self.state, self.params, self.prefix + (action,), self.repetitions, pos, self._moves
            ), None
        return StepState(pos[:STATE_SIZE], self.params), played
