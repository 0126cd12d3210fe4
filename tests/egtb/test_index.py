"""The index: position counts against the published English table, rank <-> position."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from drl.egtb._index import (
    BINOM,
    S_OFFSET,
    S_PIECES,
    S_SIZE,
    Layout,
    locate,
    mirror,
    rank,
    unrank,
)
from drl.rules.geometry import CROWN_MASK

# Schaeffer et al., "Building the checkers 10-piece endgame databases": placements of
# men and kings of both colours, no man on its crowning row, side to move not counted.
PUBLISHED_ENGLISH = {1: 120, 2: 6_972, 3: 261_224, 4: 7_092_774, 5: 148_688_232}


@njit(cache=True)
def _valid_entries(layout_geo, table, binom, sid):
    count = 0
    for idx in range(table[sid, S_SIZE]):
        if unrank(sid, idx, layout_geo, table, binom)[5]:
            count += 1
    return count


def _counts(layout: Layout) -> dict[int, int]:
    out: dict[int, int] = {}
    for sid, row in enumerate(layout.table):
        n = int(row[S_PIECES])
        out[n] = out.get(n, 0) + _valid_entries(layout.geo, layout.table, BINOM, sid)
    return out


@pytest.mark.parametrize("pieces", [3, pytest.param(4, marks=pytest.mark.slow)])
def test_english_entries_are_the_published_positions(pieces):
    """A symmetric database keeps Black to move only, so its valid entries are exactly the
    published placements (one per position without side to move)."""
    counts = _counts(Layout(8, pieces, symmetric=True))
    for n in range(1, pieces + 1):
        assert counts[n] == PUBLISHED_ENGLISH[n]
    assert counts[0] == 1  # the empty board


def test_give_and_take_keeps_both_sides_to_move():
    counts = _counts(Layout(8, 2, symmetric=False))
    assert counts[1] == 2 * PUBLISHED_ENGLISH[1]
    assert counts[2] == 2 * PUBLISHED_ENGLISH[2]


def test_invalid_entries_are_few():
    layout = Layout(8, 3, symmetric=True)
    assert layout.total < 1.02 * (1 + sum(PUBLISHED_ENGLISH[n] for n in (1, 2, 3)))


@pytest.mark.parametrize(("size", "pieces", "symmetric"), [(8, 4, True), (10, 3, False)])
def test_rank_inverts_unrank(size, pieces, symmetric):
    layout = Layout(size, pieces, symmetric)
    nsq = layout.nsq
    rng = np.random.default_rng(7)
    seen = 0
    for g in rng.integers(0, layout.total, 3000):
        sid = int(np.searchsorted(layout.table[:, S_OFFSET], g, side="right") - 1)
        idx = int(g - layout.table[sid, S_OFFSET])
        bm, bk, wm, wk, turn, ok = unrank(sid, idx, layout.geo, layout.table, BINOM)
        if not ok:
            assert bm & wm
            continue
        seen += 1
        z = 0 if size == 8 else 1
        assert not bm & CROWN_MASK[z, 0] and not wm & CROWN_MASK[z, 1]
        pieces_bb = (bm, bk, wm, wk)
        assert sum(bin(b).count("1") for b in pieces_bb) == layout.table[sid, S_PIECES]
        assert bin(bm | bk | wm | wk).count("1") == layout.table[sid, S_PIECES]
        assert rank(bm, bk, wm, wk, turn, layout.geo, layout.table, layout.slice_of, BINOM) == g
        assert max(pieces_bb) < 1 << nsq
    assert seen > 2500


def test_white_to_move_is_the_turned_position():
    """Symmetric databases store Black to move: White to move is found turned round with
    the colours swapped."""
    layout = Layout(8, 3, symmetric=True)
    args = (layout.geo, layout.slice_of, BINOM)
    bm, bk, wm, wk = 1 << 9, 0, 1 << 20, 1 << 30
    turned = (mirror(wm, 32), mirror(wk, 32), mirror(bm, 32), mirror(bk, 32))
    assert locate(bm, bk, wm, wk, 1, *args) == locate(*turned, 0, *args)
    assert locate(bm, bk, wm, wk, 0, *args) != locate(*turned, 0, *args)
    assert locate(bm, bk | 1, wm | 2, wk | 4, 0, *args)[0] == -1  # too many pieces
