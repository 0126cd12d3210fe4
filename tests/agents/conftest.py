"""Fixtures for the agent tests: an exhaustive AND-OR solver over the Board API,
independent of the search code, to verify hand-made positions."""

from __future__ import annotations

import pytest

from drl.rules import Board


def _winning_moves(board: Board, plies: int) -> list[str]:
    """Moves of the side to move that force a win (by the Board's outcome) within
    ``plies`` plies, as PDN text."""
    me = board.turn

    def wins(b: Board, left: int) -> bool:
        out = b.outcome()
        if out is not None:
            return out.winner == me
        if left == 0:
            return False
        mine = b.turn == me
        for m in b.legal_moves:
            b.push(m)
            r = wins(b, left - 1)
            b.pop()
            if mine and r:
                return True
            if not mine and not r:
                return False
        return not mine

    out = []
    for m in board.legal_moves:
        board.push(m)
        if wins(board, plies - 1):
            out.append(str(m))
        board.pop()
    return out


@pytest.fixture
def winning_moves():
    """``winning_moves(board, plies)``: the moves that force a win within ``plies``."""
    return _winning_moves
