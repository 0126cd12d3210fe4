"""``StepState``: a position in step space, ``(game state, steps of the move in progress)``.

Envs and agents that act one hop at a time use it; the compiled kernels in
:mod:`drl.encode.mask` and :mod:`drl.encode.planes` do the work. The legal moves of the
game state are generated once per ``StepState`` and handed on to the states reached by
steps inside the same move.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

import numpy as np

from drl.encode.actions import action_index, step_index, step_squares
from drl.encode.mask import (
    ILLEGAL,
    IN_PROGRESS,
    MAX_STEPS,
    mask_from_moves,
    step_outcome,
)
from drl.encode.planes import N_CHANNELS, encode_planes_as
from drl.rules.board import IllegalMoveError, as_color
from drl.rules.core import (MAX_MOVES, MOVE_WIDTH, ST_TURN, apply_move, check_state,
                            generate_moves)

if TYPE_CHECKING:
    from drl.rules.board import Board, Move


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
            plane; 0 when unknown).
    """

    state: np.ndarray
    params: np.ndarray
    prefix: tuple[int, ...] = ()
    repetitions: int = 0
    _moves: Optional[np.ndarray] = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        state = np.array(self.state, dtype=np.int64)
        check_state(state, self.params)  # the kernels index tables with its squares
        state.setflags(write=False)
        object.__setattr__(self, "state", state)
        object.__setattr__(self, "prefix", tuple(action_index(a) for a in self.prefix))
        if len(self.prefix) >= MAX_STEPS:
            raise ValueError(f"prefix of {len(self.prefix)} steps is longer than any move")
        if isinstance(self.repetitions, bool) or not isinstance(
                self.repetitions, (int, np.integer)) or self.repetitions < 0:
            raise ValueError(f"repetitions must be an integer >= 0, got {self.repetitions!r}")
        if self._moves is None:
            buf = np.empty((MAX_MOVES, MOVE_WIDTH), dtype=np.int64)
            n = generate_moves(state, self.params, buf)
            moves = buf[:n].copy()
            moves.setflags(write=False)
            object.__setattr__(self, "_moves", moves)

    @classmethod
    def from_board(cls, board: Board, prefix: tuple[int, ...] = (),
                   repetitions: int = 0) -> "StepState":
        """The step state of a :class:`~drl.rules.Board` (at the start of a move by default)."""
        return cls(board.state, board.variant.params, tuple(prefix), repetitions)

    # ------------------------------------------------------------------ queries

    @property
    def turn(self) -> int:
        """Colour to move (0 black, 1 white); it stays the same through a move in progress."""
        return int(self.state[ST_TURN])

    @property
    def moves(self) -> np.ndarray:
        """``int64[k, MOVE_WIDTH]`` legal move rows of ``state`` (read-only)."""
        return self._moves

    @property
    def num_actions(self) -> int:
        """Size of the step action space A (896 on 8x8, 1800 on 10x10)."""
        return int(self.params[2] * 4 * (self.params[1] - 1))

    def _prefix_array(self) -> np.ndarray:
        arr = np.zeros(MAX_STEPS, dtype=np.int64)
        arr[:len(self.prefix)] = self.prefix
        return arr

    def action_mask(self, dtype: type = np.bool_) -> np.ndarray:
        """Legal steps: ``[A]`` array of ``dtype`` (bool default, or int8), 1 = legal."""
        out = np.zeros(self.num_actions, dtype=dtype)
        mask_from_moves(self._moves, len(self._moves), self.turn, self.params,
                        self._prefix_array(), len(self.prefix), out)
        return out

    def legal_actions(self) -> np.ndarray:
        """``int64[k]`` indices of the legal steps, ascending."""
        return np.flatnonzero(self.action_mask()).astype(np.int64)

    def observation(self, viewer: Optional[int] = None) -> np.ndarray:
        """``float32[N_CHANNELS, n, n]`` planes from ``viewer``'s view (default: the mover).

        Raises:
            ValueError: ``viewer`` is not a colour (``Color``, 0/1, ``"black"``/``"white"``).
        """
        n = int(self.params[1])
        out = np.zeros((N_CHANNELS, n, n), dtype=np.float32)
        who = self.turn if viewer is None else int(as_color(viewer))
        encode_planes_as(self.state, self.params, self._prefix_array(), len(self.prefix),
                         self.repetitions, who, out)
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
        sep = "x" if self._moves.shape[0] and self._moves[0, 2] != 0 else "-"
        return f"{a + 1}{sep}{b + 1}"

    # ------------------------------------------------------------------ transitions

    def push(self, action: int) -> tuple["StepState", Optional[np.ndarray]]:
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
        prefix = self.prefix + (action,)
        arr = np.zeros(MAX_STEPS, dtype=np.int64)
        arr[:len(prefix)] = prefix
        k = step_outcome(self._moves, len(self._moves), self.turn, self.params, arr,
                         len(prefix))
        if k == ILLEGAL:
            legal = ", ".join(f"{a} ({self.step_text(a)})" for a in self.legal_actions())
            raise ValueError(f"step action {action} ({self.step_text(action)}) is not legal "
                             f"here; legal steps: {legal or 'none'}")
        if k == IN_PROGRESS:
            return StepState(self.state, self.params, prefix, self.repetitions,
                             self._moves), None
        row = self._moves[k].copy()
        return StepState(apply_move(self.state, self.params, row), self.params), row


def move_to_actions(move: "Move", turn: int, params: np.ndarray) -> tuple[int, ...]:
    """Step action indices of a full move.

    Args:
        move: a :class:`~drl.rules.Move` (its ``path``: start square, then each landing).
        turn: colour making the move (``Color``, 0 black, 1 white).
        params: ``int64[PARAMS_SIZE]`` variant parameters.

    Returns:
        One index per step, in playing order.

    Raises:
        IllegalMoveError: (a ``ValueError``) a square of the path is off the board of
            ``params``, or two consecutive path squares are not on one diagonal.
        ValueError: ``turn`` is not a colour.
    """
    turn = int(as_color(turn))
    nsq = int(params[2])
    path = tuple(int(s) for s in move.path)
    for s in path:
        if not 0 <= s < nsq:
            raise IllegalMoveError(f"move {path}: square {s} (0-based) is off the board "
                                   f"(0..{nsq - 1})")
    out = []
    for a, b in zip(path[:-1], path[1:]):
        idx = step_index(a, b, turn, params)
        if idx < 0:
            raise IllegalMoveError(f"move {move}: squares {a + 1} and {b + 1} are not on a "
                                   f"diagonal")
        out.append(int(idx))
    return tuple(out)


def actions_to_move(actions: tuple[int, ...] | list[int], board: "Board") -> "Move":
    """The legal move of ``board`` played by a complete sequence of step actions.

    Args:
        actions: step action indices (mover's frame) of one whole move.
        board: the position before the move.

    Returns:
        The matching :class:`~drl.rules.Move` from ``board.legal_moves``.

    Raises:
        ValueError: if the steps are not integers, are illegal or stop before the move
            is complete.
    """
    actions = tuple(action_index(a) for a in actions)
    turn = int(board.turn)
    params = board.variant.params
    for move in board.legal_moves:
        if move_to_actions(move, turn, params) == actions:
            return move
    raise ValueError(f"step actions {list(actions)} are not a complete legal move of "
                     f"{board.fen()}")
