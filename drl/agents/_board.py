"""Helpers that turn a :class:`~drl.rules.Board` into kernel inputs and back."""

from __future__ import annotations

import numpy as np

from drl.rules import Board, Move
from drl.rules.core import M_CAPTURED, M_FROM, M_TO, ST_PLY


def kernel_inputs(board: Board) -> tuple[np.ndarray, np.ndarray]:
    """Writable copies of the board's state and its variant's params (int64 arrays)."""
    return (np.array(board.state, dtype=np.int64), np.array(board.variant.params, dtype=np.int64))


def search_history(board: Board, depth: int) -> np.ndarray:
    """The board's hash-by-ply history with room for ``depth`` more plies of a search path.

    ``Board.history`` extended to ``int64[ply + depth + 1]``; a search writes the
    positions of its path at their plies, so repetitions are counted by the game's own
    rule.
    """
    hist = board.history()
    out = np.zeros(int(board.state[ST_PLY]) + depth + 1, dtype=np.int64)
    out[: len(hist)] = hist
    return out


def move_from_row(board: Board, row: np.ndarray) -> Move:
    """The legal :class:`Move` of ``board`` that matches a kernel move row.

    Raises:
        ValueError: no legal move has the row's start, end and captured pieces.
    """
    key = (int(row[M_FROM]), int(row[M_TO]), int(row[M_CAPTURED]))
    for m in board.legal_moves:
        r = m.row
        assert r is not None, "a legal move of a Board carries its kernel row"
        if (int(r[M_FROM]), int(r[M_TO]), int(r[M_CAPTURED])) == key:
            return m
    raise ValueError(f"search returned a move that is not legal in {board.fen()}: {key}")


def require_moves(board: Board) -> list[Move]:
    """The legal moves, or a ValueError when there are none (the game is over)."""
    legal = board.legal_moves
    if not legal:
        raise ValueError(f"no legal move: the game is over in {board.fen()}")
    return legal
