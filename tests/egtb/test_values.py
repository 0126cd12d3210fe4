"""Values: each agrees with its children's, with an exhaustive search, and with a solver
written independently of the database's code; Give and Take's two role assignments."""

from __future__ import annotations

import numpy as np
import pytest

from drl.egtb._build import solve_levels
from drl.egtb._index import BINOM, S_OFFSET, unrank
from drl.egtb._rules import Rules, rules_of
from drl.egtb._verify import search_value, verify
from drl.rules import core
from drl.rules.variant import Variant

VARIANTS = [
    ("english", 3),
    ("give_and_take", 3),
    ("give_and_take:objectives=give/give", 3),
    ("give_and_take:max_capture=true,taker_blocked=draw,elimination_winner=giver", 3),
    ("losing", 3),
    ("losing:promotion=remove,blocked_giver=loses", 3),
    ("russian", 3),
    ("brazilian", 3),
    ("giveaway", 3),
    ("international", 2),
]


def _codes(db) -> np.ndarray:
    return np.concatenate([db.codes(sid) for sid in range(len(db.layout.table))])


@pytest.mark.parametrize(("variant", "pieces"), VARIANTS)
def test_every_value_agrees_with_its_children(built, variant, pieces):
    """Over the whole database: a win has a move to a loss in one ply fewer (the shortest),
    a loss only moves to wins (the longest one ply fewer), a draw a move to a draw and
    none to a loss, a finished game the rules' result."""
    db = built(variant, pieces)
    assert verify(db.layout, db.rules.params, _codes(db)) == []


def test_verify_finds_a_wrong_value(built):
    """The check can fail: one value changed is reported (with the parents it breaks)."""
    db = built("english", 3)
    codes = _codes(db)
    sid = int(np.flatnonzero((db.layout.table[:, :4] == [0, 2, 0, 1]).all(axis=1))[0])
    g = int(db.layout.table[sid, S_OFFSET]) + 100
    codes[g] = 0 if codes[g] else 2
    assert g in verify(db.layout, db.rules.params, codes, limit=1000)


def _random_checks(db, depth, count, seed=3):
    layout, params = db.layout, db.rules.params
    rng = np.random.default_rng(seed)
    codes = _codes(db)
    checked = found = 0
    while checked < count:
        g = int(rng.integers(layout.total))
        sid = int(np.searchsorted(layout.table[:, S_OFFSET], g, side="right") - 1)
        idx = g - int(layout.table[sid, S_OFFSET])
        bm, bk, wm, wk, turn, ok = unrank(sid, idx, layout.geo, layout.table, BINOM)
        if not ok:
            continue
        code = int(codes[g])
        expected = code if code >= 2 and (code - 2) // 2 <= depth else -1
        got = search_value(core.make_state(bm, bk, wm, wk, turn, params), params, depth)
        assert got == expected, (str(db.variant), bm, bk, wm, wk, turn, code, got)
        checked += 1
        found += got >= 0
    return found


@pytest.mark.parametrize(("variant", "pieces"), VARIANTS)
def test_random_positions_match_an_exhaustive_search(built, variant, pieces):
    """A full-width search to the end, ``depth`` plies deep, finds exactly the database's
    wins and losses that end within ``depth`` plies, and nothing else."""
    flying = Variant.parse(variant).flying_kings
    found = _random_checks(built(variant, pieces), 4 if flying else 6, 150)
    assert found > 30  # the search decided a good share of them


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "pieces"), VARIANTS)
def test_ten_thousand_random_positions_match_an_exhaustive_search(built, variant, pieces):
    flying = Variant.parse(variant).flying_kings
    assert _random_checks(built(variant, pieces), 5 if flying else 7, 10_000, seed=11) > 2000


def test_taker_white_is_the_turned_taker_black(built):
    """Both Give and Take role assignments come from one database: solving the variant with
    White as the Taker directly gives, position by position, what the Black-Taker file
    gives looked up turned round."""
    db = built("give_and_take:taker=white", 3)
    white = Variant.parse("give_and_take:taker=white")
    solved_white = rules_of("give_and_take").canonical.with_taker("white")
    direct = Rules(variant=white, canonical=solved_white, flip=False)
    layout = direct.layout(3)
    vals = np.zeros(layout.total, dtype=np.uint16)
    solve_levels(layout, direct.params, vals, 0)
    checked = 0
    for sid, row in enumerate(layout.table):
        for idx in range(0, int(row[5]), 7):
            bm, bk, wm, wk, turn, ok = unrank(sid, idx, layout.geo, layout.table, BINOM)
            if not ok:
                continue
            state = core.make_state(bm, bk, wm, wk, turn, white.params)
            probe = db.probe_state(state)
            code = int(vals[int(row[S_OFFSET]) + idx])
            assert probe is not None
            assert (probe.value, probe.plies) == (
                ("draw", 0) if code == 0 else ("win" if code % 2 == 0 else "loss", (code - 2) // 2)
            )
            checked += 1
    assert checked > 50_000
