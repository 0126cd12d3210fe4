"""Text and image pictures of a position for ``render_mode`` ``"ansi"`` and ``"rgb_array"``.

Both draw the board in the usual diagram orientation (square 1 top left side, White at the
bottom), whoever is to move. Pieces: Black (dark) men ``b`` / kings ``B``, White (light)
men ``w`` / kings ``W``; in the image Black pieces are dark discs, White pieces light
discs, and kings carry a gold centre. The piece making a move in progress is marked
(``*`` after it in text, a green square in the image).
"""

from __future__ import annotations

import numpy as np

from drl.rules.geometry import COL, ROW

_ST_BM, _ST_BK, _ST_WM, _ST_WK, _ST_TURN = 0, 1, 2, 3, 4

LIGHT_SQUARE = (238, 221, 187)
DARK_SQUARE = (160, 110, 70)
JUMPER_SQUARE = (90, 160, 90)
BLACK_PIECE = (25, 25, 25)
WHITE_PIECE = (250, 250, 245)
OUTLINE = (90, 90, 90)
KING_MARK = (220, 175, 40)


def _pieces(state: np.ndarray, nsq: int) -> list[str]:
    kinds = []
    for s in range(nsq):
        bit = 1 << s
        if int(state[_ST_BM]) & bit:
            kinds.append("b")
        elif int(state[_ST_BK]) & bit:
            kinds.append("B")
        elif int(state[_ST_WM]) & bit:
            kinds.append("w")
        elif int(state[_ST_WK]) & bit:
            kinds.append("W")
        else:
            kinds.append(".")
    return kinds


def render_ansi(
    state: np.ndarray,
    board_size: int,
    jumper: int = -1,
    moved_from: int = -1,
    notation: str = "numeric",
) -> str:
    """Text diagram of a position, its squares named as the variant's notation names them.

    Args:
        state: ``int64[STATE_SIZE]`` game state.
        board_size: 8 or 10.
        jumper: square (0-based) the piece of a move in progress stands on, or -1.
        moved_from: its start square (shown empty), or -1.
        notation: ``"numeric"`` (PDN square numbers: the diagram is followed, on each
            rank, by the numbers of that rank's squares, as in the printed diagrams of
            English and international draughts) or ``"algebraic"`` (files ``a..`` at the
            bottom, ranks ``1..`` on the left, as in Russian and Brazilian draughts).

    Returns:
        Lines of text: ranks from the top, the side to move last.

    Raises:
        ValueError: an unknown notation.
    """
    if notation not in ("numeric", "algebraic"):
        raise ValueError(f"unknown notation {notation!r}; expected 'numeric' or 'algebraic'")
    z = 0 if board_size == 8 else 1
    nsq = board_size * board_size // 2
    kinds = _pieces(state, nsq)
    if jumper >= 0 and moved_from >= 0 and jumper != moved_from:
        kinds[jumper], kinds[moved_from] = kinds[moved_from], "."
    grid = [["  "] * board_size for _ in range(board_size)]
    numbers = [["   "] * board_size for _ in range(board_size)]
    for s in range(nsq):
        r, c = int(ROW[z, s]), int(COL[z, s])
        grid[r][c] = kinds[s] + ("*" if s == jumper else " ")
        numbers[r][c] = f"{s + 1:>3}"
    lines = []
    for r in range(board_size):
        cells = "".join(grid[r])
        if notation == "numeric":
            lines.append(f"{cells}   {''.join(numbers[r])}".rstrip())
        else:
            lines.append(f"{board_size - r:>2} {cells}".rstrip())
    if notation == "algebraic":
        lines.append("   " + "".join(f"{chr(ord('a') + c)} " for c in range(board_size)).rstrip())
    side = "Black" if int(state[_ST_TURN]) == 0 else "White"
    lines.append(f"{side} to move" + (" (move in progress)" if jumper >= 0 else ""))
    return "\n".join(lines)


def render_rgb(
    state: np.ndarray, board_size: int, jumper: int = -1, moved_from: int = -1, cell: int = 32
) -> np.ndarray:
    """Image of a position.

    Args:
        state: ``int64[STATE_SIZE]`` game state.
        board_size: 8 or 10.
        jumper: square of the piece making a move in progress, or -1.
        moved_from: its start square (drawn empty), or -1.
        cell: side of one square in pixels.

    Returns:
        ``uint8[board_size * cell, board_size * cell, 3]`` RGB image.
    """
    z = 0 if board_size == 8 else 1
    nsq = board_size * board_size // 2
    kinds = _pieces(state, nsq)
    if jumper >= 0 and moved_from >= 0 and jumper != moved_from:
        kinds[jumper], kinds[moved_from] = kinds[moved_from], "."
    side = board_size * cell
    img = np.empty((side, side, 3), dtype=np.uint8)
    img[:] = LIGHT_SQUARE
    yy, xx = np.mgrid[0:cell, 0:cell]
    dist2 = (yy - (cell - 1) / 2) ** 2 + (xx - (cell - 1) / 2) ** 2
    r_piece = 0.40 * cell
    disc = dist2 <= r_piece**2
    ring = disc & (dist2 >= (r_piece - max(1.0, cell / 16)) ** 2)
    crown = dist2 <= (0.17 * cell) ** 2
    for s in range(nsq):
        r, c = int(ROW[z, s]), int(COL[z, s])
        tile = img[r * cell : (r + 1) * cell, c * cell : (c + 1) * cell]
        tile[:] = JUMPER_SQUARE if s == jumper else DARK_SQUARE
        kind = kinds[s]
        if kind == ".":
            continue
        tile[disc] = BLACK_PIECE if kind in "bB" else WHITE_PIECE
        tile[ring] = OUTLINE
        if kind in "BW":
            tile[crown] = KING_MARK
    return img
