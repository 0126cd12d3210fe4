"""The position as the page draws it: pieces as text, the squares' places and names."""

from __future__ import annotations

from drl.rules import Board, Outcome, Variant
from drl.rules.core import ST_BK, ST_BM, ST_WK, ST_WM
from drl.rules.geometry import square_name, square_to_rowcol
from drl.rules.pdn import PDNError, result_for_file, result_for_white

__all__ = [
    "board_layout",
    "file_result_text",
    "outcome_text",
    "players_text",
    "position_text",
]

_MARKS = ((ST_BM, "b"), (ST_BK, "B"), (ST_WM, "w"), (ST_WK, "W"))


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


def outcome_text(outcome: Outcome, variant: Variant) -> str:
    """Describe a finished game's result as its PDN file writes it, and in words.

    Args:
        outcome: how the game ended (:meth:`drl.rules.Board.outcome`).
        variant: the game's rules, which decide the file's result convention
            (``drl.rules.pdn.result_for_file``: English-board files put Black's score
            first, docs/rules.md).

    Returns:
        E.g. ``"0-1: White wins (no pieces)"`` in English, ``"1-0: White wins (no
        pieces)"`` in International, ``"1/2-1/2: draw (threefold repetition)"``.
    """
    why = outcome.termination.name.lower().replace("_", " ")
    written = result_for_file(outcome, variant)
    if outcome.winner is None:
        return f"{written}: draw ({why})"
    return f"{written}: {('Black', 'White')[int(outcome.winner)]} wins ({why})"


def file_result_text(result: str, variant: Variant | None) -> str:
    """Describe a result read from a PDN file, as written there and in words.

    Args:
        result: the file's result (``1-0``, ``0-1``, ``1/2-1/2``, ``*``...), in the file's
            convention.
        variant: the game's rules (its ``GameType``/``Variant`` tag), or None when unknown
            (the result is then shown as written).

    Returns:
        E.g. ``"1-0: Black wins"`` for an English file, ``"1/2-1/2: draw"``,
        ``"*: unfinished"``.
    """
    if variant is None:
        return result
    try:
        white = result_for_white(result, variant)
    except PDNError:
        return result
    words = {"1-0": "White wins", "0-1": "Black wins", "1/2-1/2": "draw", "*": "unfinished"}
    return f"{result}: {words.get(white, 'no winner')}"


def players_text(black: str, white: str, variant: Variant | None) -> str:
    """Name a game's players in the order of its PDN file's result (first score first).

    Args:
        black: the ``Black`` tag.
        white: the ``White`` tag.
        variant: the game's rules, or None when unknown (White first, as the PDN
            standard).

    Returns:
        ``"Black - White"`` where the file puts Black's score first (GameType 21,
        docs/rules.md), else ``"White - Black"``.
    """
    black_first = variant is not None and result_for_file("0-1", variant) == "1-0"
    return f"{black} - {white}" if black_first else f"{white} - {black}"
