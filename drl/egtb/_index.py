"""The index of an endgame database: slices of equal material and the rank of a position.

Positions are grouped in **slices**: every position with the same numbers of black men,
black kings, white men and white kings, and the same side to move. A slice's positions
are numbered by a perfect hash of the piece placements (no man on its crowning row):

``index = ((r_bm * C(M, wm) + r_wm) * C(F1, bk) + r_bk) * C(F2, wk) + r_wk``

- ``M = nsq - board_size / 2``: the squares a man may stand on (all but its crowning
  row); ``r_bm`` is the combinatorial (colex) rank of the black men's squares among them,
  ``r_wm`` that of the white men's squares, counted from White's side (square
  ``nsq - 1 - s``). The two ranks are independent, so entries whose black and white men
  share a square stand for no position (**invalid**; a few percent of the entries);
- ``F1 = nsq - bm - wm``: the black kings are ranked among the squares the men leave
  free, and the white kings among the ``F2 = F1 - bk`` squares left after them.

**Symmetry.** Turning the board half round (square ``s`` to ``nsq - 1 - s``) and
swapping the colours maps a position with White to move onto one with Black to move
that has the same value, in every variant whose two colours have the same objective
(the rules engine has no other colour-dependent rule once the first player has moved).
Those databases keep only Black-to-move slices: an index entry is then one placement of
the pieces, exactly what the published English counts count ("positions without side to
move", Schaeffer et al.). Give and Take keeps both sides to move, for the Taker as Black;
the assignment with the Taker as White is the same database seen turned round.

Everything here is compiled (numba) and reads the small ``int64`` tables built by
:class:`Layout`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numba import njit

from drl.rules._bits import lowest_square, popcount

__all__ = ["Layout", "BINOM", "mirror", "locate", "rank", "unrank", "slice_size"]

# Binomial coefficients C(n, k), n, k <= 50 (C(50, 25) ~ 1.3e14 fits int64).
BINOM = np.zeros((51, 51), dtype=np.int64)
for _n in range(51):
    BINOM[_n, 0] = 1
    for _k in range(1, _n + 1):
        BINOM[_n, _k] = BINOM[_n - 1, _k - 1] + BINOM[_n - 1, _k]
BINOM.setflags(write=False)

# Columns of the slice table.
S_BM, S_BK, S_WM, S_WK, S_TURN, S_SIZE, S_OFFSET, S_PIECES = range(8)
S_WIDTH = 8

# Entries of the geometry array ``geo``.
G_NSQ, G_HALF, G_MEN_SQ, G_SYMMETRIC, G_MAXP = range(5)
G_SIZE = 5


def slice_size(nsq: int, half: int, bm: int, bk: int, wm: int, wk: int) -> int:
    """Number of index entries of a slice (valid positions and invalid men overlaps)."""
    m = nsq - half
    f1 = nsq - bm - wm
    if f1 < bk or f1 - bk < wk or bm > m or wm > m:
        return 0
    return int(BINOM[m, bm] * BINOM[m, wm] * BINOM[f1, bk] * BINOM[f1 - bk, wk])


@dataclass(frozen=True)
class Layout:
    """The slices of a database of up to ``pieces`` pieces, in build order.

    The empty board is a slice of its own (0 pieces): a move can empty the board, e.g.
    a man that captures the last piece and is taken off on the far row
    (``promotion=remove``).

    Attributes:
        board_size: 8 or 10.
        pieces: the most pieces on the board, >= 1.
        symmetric: True when only Black-to-move slices are kept (both colours share an
            objective); False keeps both sides to move (Give and Take).
    """

    board_size: int
    pieces: int
    symmetric: bool

    @cached_property
    def nsq(self) -> int:
        return self.board_size * self.board_size // 2

    @cached_property
    def table(self) -> np.ndarray:
        """``int64[S, S_WIDTH]``: one row per slice (columns ``S_*``), in build order.

        Build order: fewer pieces first, then fewer men, so that the slices a capture
        or a promotion leads to come earlier; a slice is next to its **partner**, the
        slice a quiet move leads to (the colours' material swapped in a symmetric
        database, else the other side to move).
        """
        half = self.board_size // 2
        rows: list[list[int]] = []
        seen: set[tuple[int, ...]] = set()
        for n in range(self.pieces + 1):
            keys = []
            for bm in range(n + 1):
                for bk in range(n + 1 - bm):
                    for wm in range(n + 1 - bm - bk):
                        wk = n - bm - bk - wm
                        for turn in (0,) if self.symmetric else (0, 1):
                            keys.append((bm + wm, bm, bk, wm, wk, turn))
            for _, bm, bk, wm, wk, turn in sorted(keys):
                if (bm, bk, wm, wk, turn) in seen:
                    continue
                partner = (wm, wk, bm, bk, 0) if self.symmetric else (bm, bk, wm, wk, 1 - turn)
                for key in dict.fromkeys([(bm, bk, wm, wk, turn), partner]):
                    seen.add(key)
                    size = slice_size(self.nsq, half, *key[:4])
                    rows.append([*key, size, 0, n])
        table = np.array(rows, dtype=np.int64).reshape(-1, S_WIDTH)
        table[1:, S_OFFSET] = np.cumsum(table[:-1, S_SIZE])
        table.setflags(write=False)
        return table

    @cached_property
    def slice_of(self) -> np.ndarray:
        """``int64[(P+1)**4 * 2]``: slice row of material (bm, bk, wm, wk, turn), -1 if none."""
        p1 = self.pieces + 1
        out = np.full(p1**4 * 2, -1, dtype=np.int64)
        for sid, row in enumerate(self.table):
            out[_material_key(p1, *row[:5])] = sid
        out.setflags(write=False)
        return out

    @cached_property
    def geo(self) -> np.ndarray:
        """``int64[G_SIZE]``: squares, squares per row, man squares, symmetric, pieces."""
        half = self.board_size // 2
        geo = np.array(
            [self.nsq, half, self.nsq - half, int(self.symmetric), self.pieces], dtype=np.int64
        )
        geo.setflags(write=False)
        return geo

    @property
    def total(self) -> int:
        """Number of index entries of all slices."""
        last = self.table[-1]
        return int(last[S_OFFSET] + last[S_SIZE])

    def groups(self) -> list[tuple[int, int]]:
        """Slice rows ``(first, last + 1)`` of each group solved together, in build order.

        A group is a slice and its partner.
        """
        out = []
        sid = 0
        rows = self.table
        while sid < len(rows):
            bm, bk, wm, wk, turn = (int(v) for v in rows[sid, :5])
            partner = (wm, wk, bm, bk, 0) if self.symmetric else (bm, bk, wm, wk, 1 - turn)
            end = sid + 1
            if end < len(rows) and tuple(int(v) for v in rows[end, :5]) == partner:
                end += 1
            out.append((sid, end))
            sid = end
        return out


@njit(cache=True, inline="always")
def _material_key(p1, bm, bk, wm, wk, turn):
    return (((bm * p1 + bk) * p1 + wm) * p1 + wk) * 2 + turn


@njit(cache=True, inline="always")
def mirror(bb, nsq):
    """The bitboard turned half round: square ``s`` goes to ``nsq - 1 - s``."""
    out = 0
    while bb:
        s = lowest_square(bb)
        bb &= bb - 1
        out |= 1 << (nsq - 1 - s)
    return out


@njit(cache=True, inline="always")
def _rank_set(bb, binom):
    """Colex rank of the squares of ``bb``: sum of C(s_i, i + 1) over them, ascending."""
    r = 0
    i = 0
    while bb:
        s = lowest_square(bb)
        bb &= bb - 1
        i += 1
        r += binom[s, i]
    return r


@njit(cache=True, inline="always")
def _rank_squeezed(bb, occ, binom):
    """Colex rank of ``bb``'s squares counted among the squares not in ``occ``."""
    r = 0
    i = 0
    while bb:
        s = lowest_square(bb)
        bb &= bb - 1
        i += 1
        r += binom[s - popcount(occ & ((1 << s) - 1)), i]
    return r


@njit(cache=True, inline="always")
def _unrank_set(r, k, binom):
    """The set of ``k`` numbers whose colex rank is ``r``, as a bitmask."""
    out = 0
    e = 63
    for i in range(k, 0, -1):
        # the largest e with C(e, i) <= r
        if e > 50:
            e = 50
        while binom[e, i] > r:
            e -= 1
        r -= binom[e, i]
        out |= 1 << e
        e -= 1
    return out


@njit(cache=True, inline="always")
def _unsqueeze(mask, occ):
    """Squares of the ``mask`` positions counted among the squares not in ``occ``."""
    out = 0
    while mask:
        p = lowest_square(mask)
        mask &= mask - 1
        s = p
        o = occ
        while o:
            t = lowest_square(o)
            if t > s:
                break
            o &= o - 1
            s += 1
        out |= 1 << s
    return out


@njit(cache=True, inline="always")
def locate(bm, bk, wm, wk, turn, geo, slice_of, binom):
    """Slice row and index in the slice of a position (bitboards, side to move).

    Positions with White to move are turned round first in a symmetric database.

    Returns:
        ``(sid, idx)``; ``sid`` is -1 when the position has more pieces than the
        database holds.
    """
    nsq = geo[G_NSQ]
    if geo[G_SYMMETRIC] and turn == 1:
        bm, bk, wm, wk = mirror(wm, nsq), mirror(wk, nsq), mirror(bm, nsq), mirror(bk, nsq)
        turn = 0
    nbm = popcount(bm)
    nbk = popcount(bk)
    nwm = popcount(wm)
    nwk = popcount(wk)
    p = geo[G_MAXP]
    if nbm + nbk + nwm + nwk > p:
        return -1, 0
    sid = slice_of[_material_key(p + 1, nbm, nbk, nwm, nwk, turn)]
    m = geo[G_MEN_SQ]
    f1 = nsq - nbm - nwm
    men = bm | wm
    idx = _rank_set(bm, binom) * binom[m, nwm] + _rank_set(mirror(wm, nsq), binom)
    idx = idx * binom[f1, nbk] + _rank_squeezed(bk, men, binom)
    idx = idx * binom[f1 - nbk, nwk] + _rank_squeezed(wk, men | bk, binom)
    return sid, idx


@njit(cache=True)
def rank(bm, bk, wm, wk, turn, geo, table, slice_of, binom):
    """Global entry index of a position (``table[sid, S_OFFSET]`` + :func:`locate`'s index).

    Returns:
        int64 entry index, or -1 when the material is not in the database.
    """
    sid, idx = locate(bm, bk, wm, wk, turn, geo, slice_of, binom)
    if sid < 0:
        return -1
    return table[sid, S_OFFSET] + idx


@njit(cache=True)
def unrank(sid, idx, geo, table, binom):
    """The position of entry ``idx`` (0-based, within slice ``sid``).

    Returns:
        ``(black men, black kings, white men, white kings, turn, valid)``; ``valid`` is
        False when the black and white men of the entry share a square.
    """
    nsq = geo[G_NSQ]
    m = geo[G_MEN_SQ]
    nbm = table[sid, S_BM]
    nbk = table[sid, S_BK]
    nwm = table[sid, S_WM]
    nwk = table[sid, S_WK]
    f1 = nsq - nbm - nwm
    c_wk = binom[f1 - nbk, nwk]
    c_bk = binom[f1, nbk]
    c_wm = binom[m, nwm]
    r_wk = idx % c_wk
    idx //= c_wk
    r_bk = idx % c_bk
    idx //= c_bk
    r_wm = idx % c_wm
    r_bm = idx // c_wm
    bm = _unrank_set(r_bm, nbm, binom)
    wm = mirror(_unrank_set(r_wm, nwm, binom), nsq)
    if bm & wm:
        return bm, 0, wm, 0, table[sid, S_TURN], False
    men = bm | wm
    bk = _unsqueeze(_unrank_set(r_bk, nbk, binom), men)
    wk = _unsqueeze(_unrank_set(r_wk, nwk, binom), men | bk)
    return bm, bk, wm, wk, table[sid, S_TURN], True
