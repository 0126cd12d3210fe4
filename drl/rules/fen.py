"""Standard draughts FEN: ``W:W21,22,K5:B1,2``.

Grammar (PDN 3.0 FEN, with the spellings found in real files):

* first field: side to move, ``W`` or ``B`` (``?`` = unknown, read as ``None``);
* then one field per colour, in either order: the colour letter and a comma-separated
  list of squares; ``K`` before a square marks a king; ``31-50`` is a range of men
  (``K31-35`` a range of kings); a colour may have no pieces (``B:W50:B``) and its
  list may then be left out (``W:W28``, as in the DCTL test suite);
* squares are numbers or, on 8x8 boards, algebraic names (``c3``);
* optional lidraughts counters ``H<n>`` (plies without progress) and ``F<n>`` (move
  number); trailing dots and whitespace are ignored.

Parsing is all-or-nothing: a bad token raises :class:`FENError` and nothing is returned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from drl.rules._quote import excerpt
from drl.rules.geometry import parse_square, square_to_rowcol
from drl.rules.geometry import square_name as _square_name

__all__ = ["FENError", "FenPosition", "format_fen", "parse_fen"]


class FENError(ValueError):
    """A FEN string that cannot be read; the message names the bad token and why."""


@dataclass(frozen=True)
class FenPosition:
    """The content of a FEN, as sets of 0-based squares.

    Attributes:
        turn: 0 black (dark) to move, 1 white (light) to move, None when written ``?``.
        black_men, black_kings, white_men, white_kings: 0-based squares.
        no_progress: the ``H`` counter (plies without capture or man move), or None.
        move_number: the ``F`` counter, or None.
    """

    turn: int | None
    black_men: frozenset[int]
    black_kings: frozenset[int]
    white_men: frozenset[int]
    white_kings: frozenset[int]
    no_progress: int | None = None
    move_number: int | None = None


_RANGE = re.compile(r"(\d+)-(\d+)")


def _squares(body: str, token: str, board_size: int, fen: str) -> list[int]:
    """Squares named by one list item without its K prefix (``12``, ``31-50``, ``c3``).

    ``fen`` is the FEN as quoted in messages.
    """
    m = _RANGE.fullmatch(body)
    try:
        if m is None:
            return [parse_square(body, board_size)]
        lo = parse_square(m.group(1), board_size)
        hi = parse_square(m.group(2), board_size)
    except ValueError as err:
        raise FENError(f"FEN {fen}: bad square {excerpt(token)} ({err})") from None
    if hi < lo:
        raise FENError(f"FEN {fen}: range {excerpt(token)} runs backwards")
    return list(range(lo, hi + 1))


def _counter(field: str, quoted: str) -> int:
    """The number of an ``H``/``F`` counter field; FENError unless ASCII and below 10**9."""
    digits = field[1:]
    if not digits.isascii() or len(digits) > 9:
        raise FENError(
            f"FEN {quoted}: counter {excerpt(field)} must be an ASCII number below 10**9"
        )
    return int(digits)


def _check_crowning_rows(
    men: dict[str, set[int]], owner: dict[int, tuple[str, str]], board_size: int, quoted: str
) -> None:
    """FENError for a man on its own crowning row (it would already have been crowned)."""
    half = board_size // 2
    for colour, name, crowned in (
        ("W", "white", lambda sq: sq < half),
        ("B", "black", lambda sq: sq >= board_size * half - half),
    ):
        for sq in men[colour]:
            if crowned(sq):
                raise FENError(
                    f"FEN {quoted}: a {name} man on {_square_name(sq, board_size)} "
                    f"(token {excerpt(owner[sq][1])}) stands on its crowning row"
                )


def parse_fen(fen: str, board_size: int) -> FenPosition:
    """Parse a FEN string for a board of the given size.

    Args:
        fen: the FEN text (surrounding quotes, whitespace and trailing dots allowed).
        board_size: 8 or 10.

    Returns:
        The position as a :class:`FenPosition`.

    Raises:
        FENError: unknown side to move, no piece list at all, unknown field, a square out
            of range or on a light square, a square listed twice, a man standing on its
            own crowning row (it would already have been crowned; rule case 020 of
            ``tests/golden/cases/``), or an ``H``/``F`` counter that is not an ASCII number
            below 10**9. The message names the offending token.
    """
    if not isinstance(fen, str):
        raise FENError(f"a FEN is a string, got {type(fen).__name__} {excerpt(fen)}")
    quoted = excerpt(fen)  # messages quote a bounded excerpt of the input
    text = fen.strip().strip('"').strip().rstrip(".").strip()
    if not text:
        raise FENError("empty FEN")
    fields = [f.strip() for f in text.split(":")]
    side = fields[0].upper()
    if side not in ("W", "B", "?"):
        raise FENError(f"FEN {quoted}: side to move must be W, B or ?, got {excerpt(fields[0])}")
    turn = None if side == "?" else (1 if side == "W" else 0)
    men: dict[str, set[int]] = {"B": set(), "W": set()}
    kings: dict[str, set[int]] = {"B": set(), "W": set()}
    seen_colours: set[str] = set()
    counters: dict[str, int] = {}
    owner: dict[int, tuple[str, str]] = {}
    for field in fields[1:]:
        field = field.replace(" ", "").rstrip(".")
        if not field:
            raise FENError(f"FEN {quoted}: empty field")
        head = field[0].upper()
        if head in ("H", "F") and field[1:].isdigit():
            counters[head] = _counter(field, quoted)
            continue
        if head not in ("W", "B"):
            raise FENError(f"FEN {quoted}: field {excerpt(field)} must start with W or B")
        if head in seen_colours:
            raise FENError(f"FEN {quoted}: the {head} piece list appears twice")
        seen_colours.add(head)
        items = field[1:]
        if not items:
            continue
        for item in items.split(","):
            if not item:
                raise FENError(f"FEN {quoted}: empty square in {excerpt(field)}")
            is_king = item[0] in "Kk"  # no file is called k, so K always marks a king
            squares = _squares(item[1:] if is_king else item, item, board_size, quoted)
            for sq in squares:
                if sq in owner:
                    where = "twice" if owner[sq][0] == head else "for both colours"
                    raise FENError(
                        f"FEN {quoted}: square {_square_name(sq, board_size)} "
                        f"is listed {where} (token {excerpt(item)})"
                    )
                owner[sq] = (head, item)
                (kings if is_king else men)[head].add(sq)
    if not seen_colours:
        raise FENError(f"FEN {quoted}: no piece list (expected e.g. W:W31,32:B1,2)")
    _check_crowning_rows(men, owner, board_size, quoted)
    return FenPosition(
        turn=turn,
        black_men=frozenset(men["B"]),
        black_kings=frozenset(kings["B"]),
        white_men=frozenset(men["W"]),
        white_kings=frozenset(kings["W"]),
        no_progress=counters.get("H"),
        move_number=counters.get("F"),
    )


def format_fen(pos: FenPosition, board_size: int, algebraic: bool = False) -> str:
    """Write a position as FEN: side, white list, black list, kings marked ``K``.

    Squares ascend by number, or in algebraic notation by file then rank. Example:
    ``W:W12,13,K32:B2,3``. A side with no pieces writes its bare letter.
    """
    if pos.turn is None:
        side = "?"
    else:
        side = "W" if pos.turn == 1 else "B"

    def pieces(men: frozenset[int], kings: frozenset[int]) -> str:
        notation = "algebraic" if algebraic else "numeric"
        return ",".join(
            ("K" if s in kings else "") + _square_name(s, board_size, notation)
            for s in sorted(men | kings, key=key)
        )

    def key(square: int) -> tuple[int, int]:
        if not algebraic:
            return square, 0
        row, col = square_to_rowcol(square, board_size)
        return col, -row  # a1, a3, b2, ...

    return (
        f"{side}:W{pieces(pos.white_men, pos.white_kings)}"
        f":B{pieces(pos.black_men, pos.black_kings)}"
    )
