"""``StepGame``: a game played one step action at a time, shared by the envs.

It keeps the :class:`~drl.rules.Board` (completed moves), the legal move rows of the
current position (generated once per position by the compiled kernel), the steps of the
move in progress, and the mask and planes buffers that the envs hand out.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from drl.encode.actions import num_actions, step_squares
from drl.encode.mask import MAX_STEPS, mask_from_moves, step_outcome
from drl.encode.planes import N_CHANNELS, encode_planes_as
from drl.rules.board import Board, Move, Outcome
from drl.rules.core import M_CAPTURED, MAX_MOVES, MOVE_WIDTH, generate_moves
from drl.rules.variant import Variant


class StepGame:
    """One game in step space.

    Args:
        variant: the rules.
        fen: start position (default: the variant's).

    Attributes:
        board: the board after the completed moves.
        rows: ``int64[MAX_MOVES, MOVE_WIDTH]``; the first ``n_rows`` are the legal moves.
        prefix: ``int64[MAX_STEPS]``; the first ``plen`` are the steps of the move in progress.
        mask: ``int8[A]`` legal steps, valid after :meth:`refresh`.
        planes: ``float32[C, n, n]`` observation, valid after :meth:`refresh`.
        outcome: the result once the game is over by rule, else None.
    """

    def __init__(self, variant: Variant, fen: Optional[str] = None) -> None:
        self.variant = variant
        self.params = variant.params
        self.size = variant.board_size
        self.n_actions = num_actions(self.size)
        self.board = Board(variant, fen=fen)
        self.start_ply = self.board.ply
        self.rows = np.zeros((MAX_MOVES, MOVE_WIDTH), dtype=np.int64)
        self.n_rows = 0
        self.prefix = np.zeros(MAX_STEPS, dtype=np.int64)
        self.plen = 0
        self.mask = np.zeros(self.n_actions, dtype=np.int8)
        self.planes = np.zeros((N_CHANNELS, self.size, self.size), dtype=np.float32)
        self.outcome: Optional[Outcome] = None
        self._new_position()

    @property
    def turn(self) -> int:
        """Colour to move (0 black, 1 white); unchanged during a move in progress."""
        return int(self.board.turn)

    @property
    def plies(self) -> int:
        """Plies completed since this game object was created."""
        return self.board.ply - self.start_ply

    def _new_position(self) -> None:
        self.n_rows = int(generate_moves(self.board.state, self.params, self.rows))
        self.outcome = self.board.outcome()

    def is_legal(self, action: int) -> bool:
        """True if ``action`` is a legal step now (needs a current :meth:`refresh`)."""
        return 0 <= action < self.n_actions and bool(self.mask[action])

    def play_step(self, action: int) -> bool:
        """Play a legal step; returns True if it completed a move (then pushed on the board).

        The caller checks legality first (:meth:`is_legal`); the mask and planes are stale
        until the next :meth:`refresh`.
        """
        self.prefix[self.plen] = action
        self.plen += 1
        k = step_outcome(self.rows, self.n_rows, self.turn, self.params, self.prefix, self.plen)
        if k < 0:
            return False
        self.play_row(k)
        return True

    def play_row(self, k: int) -> None:
        """Play legal move row ``k`` of the cache as a whole move."""
        move = Move.from_row(self.rows[k], self.size, self.variant.notation)
        self.plen = 0
        self.board.push_unchecked(move)
        self._new_position()

    def row_of(self, move: Move) -> int:
        """Cache index of a legal :class:`~drl.rules.Move` (start, end and captured set).

        Raises:
            ValueError: the move is not legal here.
        """
        captured = 0
        for s in move.captures:
            captured |= 1 << int(s)
        rows = self.rows[:self.n_rows]
        hits = np.flatnonzero((rows[:, 0] == move.start) & (rows[:, 1] == move.end)
                              & (rows[:, M_CAPTURED] == captured))
        if len(hits) == 0:
            raise ValueError(f"{move} is not legal in {self.board.fen()}")
        return int(hits[0])

    def refresh(self, viewer: Optional[int] = None, mask: bool = True) -> None:
        """Recompute the mask (if ``mask``) and the planes (from ``viewer``'s view, default
        the player to move)."""
        turn = self.turn
        if mask:
            mask_from_moves(self.rows, self.n_rows, turn, self.params, self.prefix, self.plen,
                            self.mask)
        encode_planes_as(self.board.state, self.params, self.prefix, self.plen,
                         self.board.repetitions() - 1, turn if viewer is None else viewer,
                         self.planes)

    def step_text(self, action: int) -> str:
        """``"28x19"``-style text of a step action for the player to move."""
        if not 0 <= action < self.n_actions:
            return "out of range"
        a, b = step_squares(action, self.turn, self.params)
        if a < 0:
            return "off the board"
        sep = "x" if self.n_rows and self.rows[0, M_CAPTURED] else "-"
        return f"{a + 1}{sep}{b + 1}"

    def jumper(self) -> tuple[int, int]:
        """(start square, current square) of the piece making the move in progress, or
        (-1, -1)."""
        if not self.plen:
            return -1, -1
        start = int(step_squares(self.prefix[0], self.turn, self.params)[0])
        cur = int(step_squares(self.prefix[self.plen - 1], self.turn, self.params)[1])
        return start, cur
