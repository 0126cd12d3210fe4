"""Board geometry: square numbering, neighbour and ray tables, Zobrist keys.

Squares are the playable (dark) squares, numbered ``s = PDN number - 1`` from the top
row (row 0, Black's back row) down to White's back row. See ``docs/internals.md`` for the
full convention. Every table is a module-level ``int64`` numpy array indexed first by the
size index ``z`` (0 for 8x8, 1 for 10x10) and padded with ``-1`` to 50 squares, so that
numba-compiled code can read them as constants.

Directions: 0 up-left, 1 up-right, 2 down-left, 3 down-right ("up" is towards row 0).
The opposite of direction ``d`` is ``3 - d``.
"""

from __future__ import annotations

import numpy as np

from drl.rules._quote import excerpt

BOARD_SIZES = (8, 10)
MAX_SQUARES = 50
MAX_STEPS = 9  # longest diagonal ray on 10x10 (n - 1)
N_DIRECTIONS = 4
# (row delta, column delta) of directions 0..3.
DIRECTION_DELTAS = ((-1, -1), (-1, 1), (1, -1), (1, 1))


def size_index(board_size: int) -> int:
    """Size index ``z`` of a board size.

    Args:
        board_size: 8 or 10.

    Returns:
        0 for 8x8, 1 for 10x10.

    Raises:
        ValueError: for any other board size.
    """
    if board_size not in BOARD_SIZES:
        raise ValueError(f"board size must be 8 or 10, got {board_size!r}")
    return BOARD_SIZES.index(board_size)


def num_squares(board_size: int) -> int:
    """Number of playable squares (32 on 8x8, 50 on 10x10)."""
    size_index(board_size)
    return board_size * board_size // 2


def square_to_rowcol(square: int, board_size: int) -> tuple[int, int]:
    """Row (from the top) and column (from the left) of a 0-based square.

    Raises:
        ValueError: if the square is off the board.
    """
    nsq = num_squares(board_size)
    if not 0 <= square < nsq:
        raise ValueError(f"square {square} out of range 0..{nsq - 1} on {board_size}x{board_size}")
    half = board_size // 2
    row = square // half
    col = 2 * (square % half) + (1 if row % 2 == 0 else 0)
    return row, col


def rowcol_to_square(row: int, col: int, board_size: int) -> int:
    """0-based square at (row, col); the inverse of :func:`square_to_rowcol`.

    Raises:
        ValueError: if (row, col) is off the board or a light (unplayable) square.
    """
    size_index(board_size)
    if not (0 <= row < board_size and 0 <= col < board_size):
        raise ValueError(f"({row}, {col}) is off the {board_size}x{board_size} board")
    if (row + col) % 2 == 0:
        raise ValueError(f"({row}, {col}) is a light square; pieces stand on dark squares only")
    return row * (board_size // 2) + col // 2


def square_name(square: int, board_size: int, notation: str = "numeric") -> str:
    """PDN name of a 0-based square: ``"1".."50"`` or algebraic ``"a1".."j10"``.

    Raises:
        ValueError: on an off-board square or an unknown notation.
    """
    row, col = square_to_rowcol(square, board_size)
    if notation == "numeric":
        return str(square + 1)
    if notation == "algebraic":
        return f"{chr(ord('a') + col)}{board_size - row}"
    raise ValueError(f"unknown notation {notation!r}; expected 'numeric' or 'algebraic'")


def _small_int(digits: str) -> int:
    """The value of ASCII digits, or 0 when it has more than 3 significant digits."""
    digits = digits.lstrip("0")
    return int(digits) if 0 < len(digits) <= 3 else 0


def parse_square(text: str, board_size: int) -> int:
    """0-based square from its PDN name, numeric (``"32"``) or algebraic (``"g1"``).

    Raises:
        ValueError: naming the text (a bounded excerpt of it) when it is not a playable
            square of this board.
    """
    token = text.strip().lower()
    nsq = num_squares(board_size)
    if not token.isascii():
        raise ValueError(
            f"cannot read square {excerpt(text)}: expected a number or a name like 'c3' "
            "(ASCII characters)"
        )
    # Square numbers and ranks have at most 2 digits (leading zeros aside); longer ones
    # are out of range and are not converted (int() of thousands of digits is slow, and
    # refused past 4300).
    if token.isdigit():
        number = _small_int(token)
        if not 1 <= number <= nsq:
            raise ValueError(f"square {excerpt(text)} out of range 1..{nsq}")
        return number - 1
    if len(token) >= 2 and token[0].isalpha() and token[1:].isdigit():
        col = ord(token[0]) - ord("a")
        rank = _small_int(token[1:])
        if not (0 <= col < board_size and 1 <= rank <= board_size):
            raise ValueError(f"square {excerpt(text)} is off the {board_size}x{board_size} board")
        try:
            return rowcol_to_square(board_size - rank, col, board_size)
        except ValueError:
            raise ValueError(f"square {excerpt(text)} is a light square") from None
    raise ValueError(f"cannot read square {excerpt(text)}: expected a number or a name like 'c3'")


def _build_tables():
    neighbor = np.full((2, MAX_SQUARES, 4), -1, dtype=np.int64)
    ray = np.full((2, MAX_SQUARES, 4, MAX_STEPS), -1, dtype=np.int64)
    ray_len = np.zeros((2, MAX_SQUARES, 4), dtype=np.int64)
    row_t = np.full((2, MAX_SQUARES), -1, dtype=np.int64)
    col_t = np.full((2, MAX_SQUARES), -1, dtype=np.int64)
    for z, n in enumerate(BOARD_SIZES):
        for s in range(n * n // 2):
            r, c = square_to_rowcol(s, n)
            row_t[z, s], col_t[z, s] = r, c
            for d, (dr, dc) in enumerate(DIRECTION_DELTAS):
                k = 0
                rr, cc = r + dr, c + dc
                while 0 <= rr < n and 0 <= cc < n:
                    ray[z, s, d, k] = rowcol_to_square(rr, cc, n)
                    k += 1
                    rr, cc = rr + dr, cc + dc
                ray_len[z, s, d] = k
                neighbor[z, s, d] = ray[z, s, d, 0]
    return neighbor, ray, ray_len, row_t, col_t


NEIGHBOR, RAY, RAY_LEN, ROW, COL = _build_tables()

# Zobrist keys: piece kinds 0 black man, 1 black king, 2 white man, 3 white king.
# Fixed seed so that hashes are identical across processes and runs.
_rng = np.random.default_rng(0x5EED_D4A7)
ZOBRIST = _rng.integers(1, 2**62, size=(2, 4, MAX_SQUARES), dtype=np.int64)
ZOBRIST_SIDE = int(_rng.integers(1, 2**62, dtype=np.int64))
del _rng


def _build_masks():
    """Bitboard helpers (extension of the documented tables, used by the kernels).

    ``FULL[z]``: all playable squares. ``ROW_MASK[z, r]``: squares of row r.
    ``CROWN_MASK[z, c]``: the crowning row of colour c (row n-1 for black, 0 for white).
    ``SHIFT_MASK[z, d, p]`` / ``SHIFT_AMOUNT[z, d, p]``: for squares on even (p=0) or odd
    (p=1) rows that have a neighbour in direction d, the neighbour is ``s + amount``
    (negative amounts shift towards lower squares). Stepping a whole bitboard one square in
    direction d is therefore two masked shifts.
    """
    full = np.zeros(2, dtype=np.int64)
    row_mask = np.zeros((2, 10), dtype=np.int64)
    crown = np.zeros((2, 2), dtype=np.int64)
    shift_mask = np.zeros((2, 4, 2), dtype=np.int64)
    shift_amount = np.zeros((2, 4, 2), dtype=np.int64)
    for z, n in enumerate(BOARD_SIZES):
        nsq = n * n // 2
        for s in range(nsq):
            r = int(ROW[z, s])
            full[z] |= 1 << s
            row_mask[z, r] |= 1 << s
            for d in range(4):
                t = int(NEIGHBOR[z, s, d])
                if t >= 0:
                    shift_mask[z, d, r % 2] |= 1 << s
                    shift_amount[z, d, r % 2] = t - s
        crown[z, 0] = row_mask[z, n - 1]
        crown[z, 1] = row_mask[z, 0]
    return full, row_mask, crown, shift_mask, shift_amount


FULL, ROW_MASK, CROWN_MASK, SHIFT_MASK, SHIFT_AMOUNT = _build_masks()

for _arr in (
    NEIGHBOR,
    RAY,
    RAY_LEN,
    ROW,
    COL,
    ZOBRIST,
    FULL,
    ROW_MASK,
    CROWN_MASK,
    SHIFT_MASK,
    SHIFT_AMOUNT,
):
    _arr.setflags(write=False)
del _arr
