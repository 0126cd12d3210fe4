"""SVG pictures of a board, for notebooks (``Board._repr_svg_``) and reports."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from drl.rules import core
from drl.rules.geometry import square_name, square_to_rowcol
from drl.rules.variant import Variant

__all__ = ["board_svg"]

_LIGHT_SQUARE = "#f0d9b5"
_DARK_SQUARE = "#8b5a2b"
_PIECE = {"black": ("#1e1e1e", "#f5f5f5"), "white": ("#f5f5f5", "#1e1e1e")}
_HIGHLIGHT = "#e8c547"


class _Drawn(Protocol):
    """What a drawing reads of a move (a :class:`drl.rules.Move` has it)."""

    @property
    def path(self) -> tuple[int, ...]: ...


class _Position(Protocol):
    """What a drawing reads of a board (a :class:`drl.rules.Board` has it)."""

    @property
    def variant(self) -> Variant: ...

    @property
    def state(self) -> np.ndarray: ...

    @property
    def move_stack(self) -> Sequence[_Drawn]: ...


def board_svg(
    board: _Position, size: int = 400, lastmove: _Drawn | None = None, numbers: bool = True
) -> str:
    """An SVG drawing of the position, top row at the top.

    Dark squares are brown, Black's men dark discs, White's men light discs; a king has
    a ring and a ``K`` on it. Each dark square carries its PDN name in small type.

    Args:
        board: the position to draw (a :class:`drl.rules.Board`).
        size: width and height in pixels.
        lastmove: squares of this move are highlighted (default: the last move played).
        numbers: print the square names.

    Returns:
        The SVG document as a string.
    """
    n = board.variant.board_size
    cell = size / n
    notation = board.variant.notation
    state = board.state
    if lastmove is None and board.move_stack:
        lastmove = board.move_stack[-1]
    marked = set(lastmove.path) if lastmove is not None else set()
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {size} {size}" '
        f'width="{size}" height="{size}">',
        f'<rect x="0" y="0" width="{size}" height="{size}" fill="{_LIGHT_SQUARE}"/>',
    ]
    for sq in range(n * n // 2):
        r, c = square_to_rowcol(sq, n)
        x, y = c * cell, r * cell
        fill = _HIGHLIGHT if sq in marked else _DARK_SQUARE
        parts.append(
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{cell:.1f}" height="{cell:.1f}" fill="{fill}"/>'
        )
        if numbers:
            parts.append(
                f'<text x="{x + 2:.1f}" y="{y + cell * 0.22:.1f}" '
                f'font-size="{cell * 0.2:.1f}" font-family="sans-serif" '
                f'fill="#f0e0c0">{square_name(sq, n, notation)}</text>'
            )
        bit = 1 << sq
        for index, colour, king in (
            (core.ST_BM, "black", False),
            (core.ST_BK, "black", True),
            (core.ST_WM, "white", False),
            (core.ST_WK, "white", True),
        ):
            if int(state[index]) & bit:
                body, edge = _PIECE[colour]
                cx, cy, rad = x + cell / 2, y + cell / 2, cell * 0.38
                parts.append(
                    f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{rad:.1f}" '
                    f'fill="{body}" stroke="{edge}" stroke-width="{cell * 0.03:.1f}"/>'
                )
                if king:
                    parts.append(
                        f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{rad * 0.7:.1f}" '
                        f'fill="none" stroke="{edge}" '
                        f'stroke-width="{cell * 0.04:.1f}"/>'
                    )
                    parts.append(
                        f'<text x="{cx:.1f}" y="{cy + cell * 0.1:.1f}" '
                        f'font-size="{cell * 0.3:.1f}" font-family="sans-serif" '
                        f'font-weight="bold" text-anchor="middle" '
                        f'fill="{edge}" class="king">K</text>'
                    )
    parts.append("</svg>")
    return "\n".join(parts)
