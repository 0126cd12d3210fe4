"""Positions and moves as the engine protocols write them (Hub-1, Hub-2 and DXP).

Also the variant names of Hub-2's ``variant`` parameter.

Squares are numbered 1..N (N = 50 on 10x10, 32 on 8x8) in the board's numeric order,
whatever notation the variant prints (drl's 0-based square ``i`` is ``i + 1``).

- Hub position: the side to move (``w``/``b`` in Hub-1, ``W``/``B`` in Hub-2), then one
  character per square: ``w``/``b`` man, ``W``/``B`` king, ``e`` empty (51 characters on
  10x10; 33 on 8x8, a drl extension).
- Hub move: ``from-to``, or ``fromxto`` followed by ``x<square>`` for each captured piece
  (in any order; intermediate landing squares are not written), e.g. ``37x19x23x32``.
- DXP: side ``W``/``Z``; squares ``e``, ``w``, ``z``, ``W``, ``Z``.

A move read from an engine is matched to drl's legal moves by its start, its end and
the set of captured squares (:func:`match_move`).
"""

from __future__ import annotations

import shlex

from drl.rules import Board, Color, Move, Variant
from drl.rules._quote import excerpt
from drl.rules.fen import parse_fen
from drl.rules.variant import PRESETS

__all__ = [
    "HUB_VARIANTS",
    "hub_variant_name",
    "variant_of_hub_name",
    "hub_position",
    "board_from_hub",
    "move_text",
    "parse_move_text",
    "match_move",
    "parse_hub_line",
    "format_hub_line",
]

HUB_VARIANTS: dict[str, str] = {
    "normal": "international",
    "losing": "international:objectives=give/give",
    "english": "english",
    "russian": "russian",
    "brazilian": "brazilian",
    "giveaway": "giveaway",
    "losing8x8": "losing",
    "give_and_take": "give_and_take",
}
"""Hub-2 ``variant`` values drl plays, and the drl variant of each. ``normal`` and
``losing`` are Scan 3.x's names (International rules; losing: each side aims to lose
its pieces); the 8x8 names are drl's extension (Scan's own ``killer``, ``bt`` and
``frisian`` are not implemented by drl and are refused)."""

REFUSED_HUB_VARIANTS = ("killer", "bt", "frisian")


def hub_variant_name(variant: Variant | str) -> str:
    """The Hub-2 ``variant`` value for a drl variant.

    A name of :data:`HUB_VARIANTS`, or the drl variant string itself (understood by
    ``drl-hub`` only).
    """
    v = Variant.parse(variant)
    for name, spec in HUB_VARIANTS.items():
        if Variant.parse(spec) == v:
            return name
    return str(v)


def variant_of_hub_name(name: str) -> Variant:
    """The drl variant of a Hub-2 ``variant`` value.

    The value is a :data:`HUB_VARIANTS` name or a drl variant string.

    Raises:
        ValueError: Scan's ``killer``, ``bt`` or ``frisian``, an unknown name, or a drl
            variant string with a bad flag (the message is the variant parser's, naming
            the flag).
    """
    key = name.strip().lower()
    if key in REFUSED_HUB_VARIANTS:
        raise ValueError(
            f"variant {excerpt(name)} is not implemented by drl (it plays: "
            f"{', '.join(HUB_VARIANTS)})"
        )
    if key in HUB_VARIANTS:
        return Variant.parse(HUB_VARIANTS[key])
    try:
        return Variant.parse(name.strip())
    except ValueError as err:
        if key.partition(":")[0].strip() in PRESETS:  # a drl variant with a bad flag
            raise ValueError(f"variant {excerpt(name)}: {err}") from None
        raise ValueError(
            f"unknown variant {excerpt(name)} (drl plays: {', '.join(HUB_VARIANTS)}, or a "
            f"drl variant string)"
        ) from None


def _pieces(board: Board) -> tuple[int, list[str]]:
    """(side to move 0 black / 1 white, one of ``e w b W B`` per square)."""
    pos = parse_fen(board.fen(), board.variant.board_size)
    squares = ["e"] * (board.variant.board_size**2 // 2)
    for group, char in (
        (pos.white_men, "w"),
        (pos.black_men, "b"),
        (pos.white_kings, "W"),
        (pos.black_kings, "B"),
    ):
        for sq in group:
            squares[sq] = char
    return int(board.turn), squares


def hub_position(board: Board, version: int = 2) -> str:
    """The Hub position string of ``board``.

    The side to move is upper case in Hub-2 (``version=2``), lower case in Hub-1.
    """
    turn, squares = _pieces(board)
    side = "w" if turn == int(Color.WHITE) else "b"
    return (side.upper() if version == 2 else side) + "".join(squares)


def dxp_position(board: Board) -> str:
    """The DXP position (GAMEREQ ``B`` form, without the ``B``): side, then 50 squares."""
    turn, squares = _pieces(board)
    side = "W" if turn == int(Color.WHITE) else "Z"
    return side + "".join({"b": "z", "B": "Z"}.get(c, c) for c in squares)


def board_from_hub(text: str, variant: Variant | str) -> Board:
    """The board of a Hub (or DXP, when ``text`` uses ``z``/``Z``) position string.

    Raises:
        ValueError: a string of the wrong length for the variant, an unknown side or
            square character (the message quotes the string).
    """
    v = Variant.parse(variant)
    n = v.board_size**2 // 2
    text = text.strip()
    if len(text) != n + 1:
        raise ValueError(
            f"position {excerpt(text)} has {len(text)} characters; {v} needs {n + 1} "
            f"(side to move, then {n} squares)"
        )
    side = {"w": "W", "b": "B", "z": "B"}.get(text[0].lower())
    if side is None:
        raise ValueError(f"position {text!r}: side to move {text[0]!r} is not W, B (or Z)")
    groups: dict[str, list[str]] = {"w": [], "b": []}
    for i, ch in enumerate(text[1:]):
        if ch in "eE.":
            continue
        colour = {"w": "w", "b": "b", "z": "b"}.get(ch.lower())
        if colour is None:
            raise ValueError(f"position {text!r}: square {i + 1} has {ch!r} (not e w b W B)")
        groups[colour].append(("K" if ch.isupper() else "") + str(i + 1))
    fen = f"{side}:W{','.join(groups['w'])}:B{','.join(groups['b'])}"
    return Board(v, fen=fen)


def move_text(move: Move) -> str:
    """A move in Hub form: ``32-28``, ``28x19x23`` (captured squares in jump order)."""
    if not move.captures:
        return f"{move.start + 1}-{move.end + 1}"
    return f"{move.start + 1}x{move.end + 1}" + "".join(f"x{c + 1}" for c in move.captures)


def parse_move_text(text: str) -> tuple[int, int, frozenset[int]]:
    """``(from, to, captured)`` (1-based squares) of a Hub move.

    The ``-``/``x`` separators follow the Hub form.

    Raises:
        ValueError: anything else.
    """
    t = text.strip()
    if "-" in t and "x" not in t.lower():
        parts = t.split("-")
        if len(parts) == 2 and all(p.isdigit() for p in parts):
            return int(parts[0]), int(parts[1]), frozenset()
    else:
        parts = t.lower().split("x")
        if len(parts) >= 3 and all(p.isdigit() for p in parts):
            return int(parts[0]), int(parts[1]), frozenset(int(p) for p in parts[2:])
    raise ValueError(
        f"{excerpt(text)} is not a move in Hub form (from-to, or fromxto x each capture)"
    )


def match_move(board: Board, start: int, end: int, captured: frozenset[int]) -> Move | None:
    """The legal move of ``board`` with these 1-based start, end and captured squares, or None."""
    key = (start - 1, end - 1, frozenset(c - 1 for c in captured))
    for move in board.legal_moves:
        if (move.start, move.end, frozenset(move.captures)) == key:
            return move
    return None


def parse_hub_line(line: str) -> tuple[str, dict[str, str]]:
    """Split a Hub-2 line ``command arg=val arg="quoted val" flag`` into ``(command, args)``.

    A flag's value is ``""``.

    Raises:
        ValueError: an unbalanced quote or an empty line.
    """
    words = shlex.split(line, posix=True)
    if not words:
        raise ValueError("empty line")
    args: dict[str, str] = {}
    for word in words[1:]:
        key, _, value = word.partition("=")
        args[key] = value
    return words[0], args


def _quote(value: str) -> str:
    if value and not any(ch in value for ch in ' ="\t'):
        return value
    return '"' + value.replace('"', "'") + '"'


def format_hub_line(command: str, *flags: str, **args: object) -> str:
    """A Hub-2 line of ``command``, then ``flags``, then ``key=value`` pairs.

    Values with spaces, ``=`` or empty are double-quoted. Keyword ``move_time`` is written
    ``move-time`` (every ``_`` becomes ``-``).
    """
    items = [command, *flags]
    items += [f"{k.replace('_', '-')}={_quote(str(v))}" for k, v in args.items()]
    return " ".join(items)
