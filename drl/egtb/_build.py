"""Solving a database level by level (all positions with n pieces, n = 1, 2, ...).

The positions with n pieces depend only on those with fewer pieces (a capture, or a man
removed on the far row) and on those with n pieces and fewer men (a promotion), so the
slice groups are solved in the layout's order, each with the compiled kernels of
:mod:`drl.egtb._solve`, the values of everything before it at hand in one ``uint16``
array.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from drl.egtb import _solve
from drl.egtb._index import BINOM, S_OFFSET, S_PIECES, S_SIZE, Layout

__all__ = ["solve_levels", "level_stats", "CHUNK"]

#: Entries per kernel call (the progress bar moves between calls).
CHUNK = 1 << 16


def _group_range(table: np.ndarray, a: int, b: int) -> tuple[int, int]:
    return int(table[a, S_OFFSET]), int(table[b - 1, S_OFFSET] + table[b - 1, S_SIZE])


def _solve_group(
    layout: Layout,
    params: np.ndarray,
    vals: np.ndarray,
    a: int,
    b: int,
    advance: Callable[[int], None],
) -> int:
    """Solve slices ``a..b-1`` (one group) into ``vals``; returns the rounds run."""
    table = layout.table
    ix = (layout.geo, table, layout.slice_of, BINOM)
    buf = _solve.new_buffers(layout.nsq)
    g0, g1 = _group_range(table, a, b)
    n = g1 - g0
    cnt = np.zeros(n, dtype=np.int32)
    indeg = np.zeros(n + 1, dtype=np.int64)
    wcand = np.full(n, _solve.INF, dtype=np.int32)
    lmax = np.zeros(n, dtype=np.int32)
    flags = np.zeros(n, dtype=np.uint8)
    work = (cnt, indeg, wcand, lmax, flags)
    edges = 0
    for sid in range(a, b):
        size = int(table[sid, S_SIZE])
        for lo in range(0, size, CHUNK):
            hi = min(size, lo + CHUNK)
            edges += _solve.scan(sid, lo, hi, (g0, g1), ix, params, vals, work, buf)
            advance(hi - lo)
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(indeg[:n], out=ptr[1:])
    del indeg, work
    fill = ptr[:-1].copy()
    preds = np.empty(edges, dtype=np.int32)
    for sid in range(a, b):
        size = int(table[sid, S_SIZE])
        for lo in range(0, size, CHUNK):
            hi = min(size, lo + CHUNK)
            _solve.link(sid, lo, hi, (g0, g1), ix, params, cnt, (ptr, fill, preds), buf)
            advance(hi - lo)
    del fill
    return int(_solve.retrograde(g0, n, vals, cnt, wcand, lmax, flags, ptr, preds))


def solve_levels(
    layout: Layout,
    params: np.ndarray,
    vals: np.ndarray,
    first: int,
    advance: Callable[[int], None] = lambda k: None,
) -> None:
    """Solve every slice with ``first`` or more pieces into ``vals`` (``uint16[total]``).

    ``first`` 0 starts with the empty board.

    ``vals`` must hold the values of the slices with fewer pieces already. ``advance``
    is told the entries done, twice per entry (two passes).
    """
    table = layout.table
    for a, b in layout.groups():
        if int(table[a, S_PIECES]) >= first:
            _solve_group(layout, params, vals, a, b, advance)


def level_stats(layout: Layout, vals: np.ndarray) -> list[dict[str, int]]:
    """Per number of pieces: positions (valid entries), won, drawn, lost, longest (plies).

    Counted for the side to move over the stored entries (Black to move only in a
    symmetric database).
    """
    out = []
    table = layout.table
    for n in range(1, layout.pieces + 1):
        rows = table[table[:, S_PIECES] == n]
        lo = int(rows[0, S_OFFSET])
        hi = int(rows[-1, S_OFFSET] + rows[-1, S_SIZE])
        codes = vals[lo:hi]
        decided = codes >= 2
        won = int(np.count_nonzero(decided & (codes % 2 == 0)))
        lost = int(np.count_nonzero(decided)) - won
        drawn = int(np.count_nonzero(codes == 0))
        longest = int((codes[codes >= 2].max() - 2) // 2) if won + lost else 0
        out.append(
            {
                "pieces": n,
                "positions": won + lost + drawn,
                "won": won,
                "drawn": drawn,
                "lost": lost,
                "longest": longest,
            }
        )
    return out
