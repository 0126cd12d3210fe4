"""Move text: numeric (``15x24``) and algebraic (``c3:e5``) PDN moves.

Square names come from :mod:`drl.rules.geometry` (0-based squares, ``PDN number - 1``).
This module is plain Python (no kernels): it turns move text into a :class:`MoveText`
description that :meth:`drl.rules.Board.parse_move` matches against the legal moves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from drl.rules._quote import excerpt
from drl.rules.geometry import parse_square, square_name

__all__ = ["MAX_MOVE_TEXT", "MoveText", "format_move", "parse_move_text"]

#: Longest move text read, in characters. A move has at most 27 landing squares (the
#: kernel's move row), each at most 3 characters and a separator: about 110 characters;
#: the rest is room for spaces after separators and strength marks.
MAX_MOVE_TEXT = 256
_SHORT_RUSSIAN = re.compile(r"([a-z])([a-z]\d{1,2})")


def format_move(
    path: tuple[int, ...] | list[int], is_capture: bool, board_size: int, algebraic: bool = False
) -> str:
    """PDN text of a move with every landing square.

    Numeric: ``11-15``, ``15x24x31``; algebraic: ``c3-d4``, ``c3:e5:g3``.
    """
    sep = (":" if algebraic else "x") if is_capture else "-"
    notation = "algebraic" if algebraic else "numeric"
    return sep.join(square_name(s, board_size, notation) for s in path)


@dataclass(frozen=True)
class MoveText:
    """What a move text says, before it is matched against the legal moves.

    Attributes:
        text: the original text (strength marks removed).
        squares: 0-based squares named, in order (start, [intermediate landings], end);
            empty for the Russian short form.
        capture: True for ``x``/``:``, False for ``-``, None when no separator was written.
        file: for the Russian short form (``ed4``: the man or king on file e moves to d4),
            the start column (0 = a); else None.
        end: for the Russian short form, the destination square; else None.
    """

    text: str
    squares: tuple[int, ...] = ()
    capture: bool | None = None
    file: int | None = None
    end: int | None = None


def parse_move_text(text: str, board_size: int) -> MoveText:
    """Parse move text in any common PDN spelling.

    Accepted: ``11-15``, ``15x24``, ``15x24x31``, ``c3-d4``, ``c3:e5:g3``, ``c3xe5``,
    ``a3b4`` (no separator), spaces after a separator (``1- 7``), trailing strength marks
    (``!``, ``?``, ``!?``), and the Russian short form ``ed4`` (start file + end square).

    Raises:
        ValueError: the text is not a move, or is longer than :data:`MAX_MOVE_TEXT`
            characters; the message names the text (a bounded excerpt) and the bad part.
    """
    raw = excerpt(text)
    if len(text) > MAX_MOVE_TEXT:
        raise ValueError(
            f"move text {raw} is too long to be a move (at most {MAX_MOVE_TEXT} characters)"
        )
    t = text.strip().rstrip("!?").replace(" ", "").lower()  # strength marks: 15x24!?
    if not t:
        raise ValueError(f"empty move text {raw}")
    m = _SHORT_RUSSIAN.fullmatch(t)
    if m is not None and board_size == 8:
        col = ord(m.group(1)) - ord("a")
        if col >= board_size:
            raise ValueError(f"{raw}: file {m.group(1)!r} is off the board")
        try:
            end = parse_square(m.group(2), board_size)
        except ValueError as err:
            raise ValueError(f"{raw}: {err}") from None
        return MoveText(text=t, file=col, end=end)
    seps = set(re.findall(r"[-x:]", t))
    if len(seps) > 1:
        raise ValueError(f"{raw} mixes separators {sorted(seps)}")
    if seps:
        sep = seps.pop()
        parts = t.split(sep)
        capture = sep in "x:"
    else:
        parts = re.findall(r"[a-z]\d{1,2}", t)
        if "".join(parts) != t or len(parts) < 2:
            raise ValueError(f"{raw} is not a move (expected e.g. 11-15, 15x24, c3-d4)")
        capture = None
    if len(parts) < 2 or any(p == "" for p in parts):
        raise ValueError(f"{raw} is not a move (a square is missing)")
    squares = []
    for p in parts:
        try:
            squares.append(parse_square(p, board_size))
        except ValueError as err:
            raise ValueError(f"{raw}: {err}") from None
    return MoveText(text=t, squares=tuple(squares), capture=capture)
