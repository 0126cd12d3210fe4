"""Roles switched at halftime (seed 000) and pool play with lives (seed 001)."""

import pytest

from drl.eval.formats import halftime_match, pool_tournament
from drl.eval.settings import MatchSettings
from drl.rules import Variant


def test_halftime_swaps_roles_and_keeps_openings():
    h = halftime_match(
        "alphabeta:depth=2",
        "random",
        "give_and_take",
        games_per_half=4,
        settings=MatchSettings(openings=2, seed=4, workers=1, progress=False),
    )
    a, b = h.players
    first, second = h.records[:4], h.records[4:]
    assert all(r.role_of(a) == "taker" for r in first)
    assert all(r.role_of(a) == "giver" for r in second)
    assert {r.color_of(a) for r in first} == {r.color_of(a) for r in second} == {"black", "white"}
    assert [r.opening for r in first] == [r.opening for r in second]
    assert h.total == (sum(r.score_of(a) for r in h.records), sum(r.score_of(b) for r in h.records))
    assert sum(h.total) == 8
    assert h.winner == a and h.won_both_roles == a


def test_halftime_needs_a_taker_and_a_giver():
    with pytest.raises(ValueError, match="one Taker and one Giver"):
        halftime_match("random", "greedy", "english", 2)


@pytest.mark.parametrize("life_lost_by", ["loser", "winner"])
def test_pool_lives(life_lost_by):
    specs = ["alphabeta:depth=2", "random", "random:seed=1"]
    p = pool_tournament(
        specs,
        "losing",
        lives=2,
        life_lost_by=life_lost_by,
        settings=MatchSettings(seed=1, workers=1, progress=False, max_plies=200),
    )
    by_name = {s.name: s for s in p.standings}
    for s in p.standings:
        lost = s.rounds_lost if life_lost_by == "loser" else s.rounds_won
        assert s.lives == 2 - lost
        assert (s.out_in_round is not None) == (s.lives == 0)
    assert p.winner is not None and by_name[p.winner].lives > 0
    assert sum(s.lives > 0 for s in p.standings) == 1
    assert p.standings[0].name == p.winner
    rounds_played = sum(len(r) for r in p.rounds)
    assert len(p.records) == 2 * rounds_played
    assert all(Variant.parse(r.variant).name == "losing" for r in p.records)
    if life_lost_by == "loser":
        assert p.winner == "alphabeta:depth=2"


def test_pool_needs_three_players():
    with pytest.raises(ValueError, match="three or more"):
        pool_tournament(["random", "greedy"], "losing")
