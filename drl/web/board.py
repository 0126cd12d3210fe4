"""The position as the page draws it: pieces as text, the squares' places and names."""

from __future__ import annotations

from drl.rules import Board, Outcome, Variant
from drl.rules.core import ST_BK, ST_BM, ST_WK, ST_WM
from drl.rules.geometry import square_name, square_to_rowcol

__all__ = ["board_layout", "outcome_text", "position_text"]

_MARKS = ((ST_BM, "b"), (ST_BK, "B"), (ST_WM, "w"), (ST_WK, "W"))
_COLORS = ("black", "white")


def position_text(board: Board) -> str:
    """Write the pieces of ``board`` as text, one character per square.

    Args:
        board: any position.

    Returns:
        One character per playable square, in square order: ``b``/``B`` black man/king,
        ``w``/``W`` white man/king, ``.`` empty.
    """
    state = board.state
    nsq = board.variant.board_size**2 // 2
    out = ["."] * nsq
    for index, mark in _MARKS:
        bits = int(state[index])
        for sq in range(nsq):
            if bits >> sq & 1:
                out[sq] = mark
    return "".join(out)


def board_layout(variant: Variant) -> list[tuple[int, int, str]]:
    """Place and name each playable square of ``variant``'s board.

    Args:
        variant: the rules (board size and notation).

    Returns:
        ``(row from the top, column from the left, square name)`` of each playable square,
        in square order (docs/internals.md, "Squares").
    """
    n, notation = variant.board_size, variant.notation
    return [(*square_to_rowcol(sq, n), square_name(sq, n, notation)) for sq in range(n * n // 2)]


def outcome_text(outcome: Outcome) -> str:
    """Describe a finished game's result in words.

    Args:
        outcome: how the game ended.

    Returns:
        ``"1-0: white wins (no pieces)"`` / ``"1/2-1/2: draw (threefold repetition)"``.
    """
    why = outcome.termination.name.lower().replace("_", " ")
    if outcome.winner is None:
        return f"{outcome.result}: draw ({why})"
    return f"{outcome.result}: {_COLORS[int(outcome.winner)]} wins ({why})"
