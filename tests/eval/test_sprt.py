"""SPRT: decisions on simulated result streams, and the LLR against its normal form."""

import numpy as np
import pytest

from drl.eval.elo import expected_score
from drl.eval.settings import MatchSettings
from drl.eval.sprt import SPRTSettings, llr, sprt


def _run(rng, true_elo, elo0, elo1, draw=0.3, max_games=20000, every=10):
    e = expected_score(true_elo)
    p_draw = draw * 2 * min(e, 1 - e)
    p_win = e - p_draw / 2
    counts = np.zeros(3)
    outcomes = rng.choice(3, size=max_games, p=[1 - p_win - p_draw, p_draw, p_win])
    for start in range(0, max_games, every):
        np.add.at(counts, outcomes[start : start + every], 1)
        res = sprt(counts, elo0, elo1)
        if res.decision != "continue":
            return res
    return res


@pytest.mark.parametrize("true_elo, expected", [(80.0, "H1"), (-40.0, "H0")])
def test_clear_streams_are_decided_right(true_elo, expected):
    rng = np.random.default_rng(7)
    for _ in range(5):
        assert _run(rng, true_elo, 0.0, 30.0).decision == expected


def test_error_rates_near_nominal():
    rng = np.random.default_rng(11)
    at_h0 = [_run(rng, 0.0, 0.0, 60.0, every=5).decision for _ in range(60)]
    at_h1 = [_run(rng, 60.0, 0.0, 60.0, every=5).decision for _ in range(60)]
    # alpha = beta = 0.05: a handful of wrong decisions at most out of 60.
    assert at_h0.count("H1") <= 8
    assert at_h1.count("H0") <= 8
    assert "continue" not in at_h0 + at_h1


def test_llr_matches_normal_approximation():
    counts = np.array([2000.0, 3100.0, 2300.0])
    a = np.array([0.0, 0.5, 1.0])
    n = counts.sum()
    p = counts / n
    mean = (p * a).sum()
    var = (p * (a - mean) ** 2).sum()
    s0, s1 = expected_score(0.0), expected_score(5.0)
    approx = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)
    assert llr(counts, 0.0, 5.0) == pytest.approx(approx, rel=0.02)


def test_pentanomial_counts():
    strong = [5, 20, 60, 80, 40]  # pair points 0, 1/2, 1, 3/2, 2
    weak = list(reversed(strong))
    assert sprt(strong, 0, 20).llr > 0
    assert sprt(weak, 0, 20).llr < 0
    assert sprt(strong, 0, 20).samples == sum(strong)


def test_bad_arguments():
    with pytest.raises(ValueError, match="elo0 < elo1"):
        sprt([1, 1, 1], 10, 0)
    with pytest.raises(ValueError, match="alpha"):
        sprt([1, 1, 1], 0, 10, alpha=1.5)
    with pytest.raises(ValueError, match="3 .trinomial. or 5"):
        sprt([1, 1], 0, 10)
    assert sprt([0, 0, 0], 0, 10).decision == "continue"


def test_counts_from_records():
    from drl.eval.records import GameRecord
    from drl.eval.sprt import pentanomial_counts, trinomial_counts

    def game(i, black, white, winner, opening):
        return GameRecord(
            index=i,
            black=black,
            white=white,
            variant="english",
            roles=(None, None),
            opening=opening,
            opening_index=0,
            moves=(),
            result="*",
            winner=winner,
            termination="no_pieces",
            plies=1,
            seed=0,
        )

    games = [
        game(0, "A", "B", "black", "x"),
        game(1, "B", "A", "white", "x"),  # 2 points
        game(2, "A", "B", None, "y"),
        game(3, "B", "A", "black", "y"),  # 1/2
        game(4, "A", "B", "white", "z"),
        game(5, "B", "A", None, "z"),  # 1/2
        game(6, "A", "C", "black", "w"),  # not B
    ]
    assert trinomial_counts(games, "B") == [2, 2, 2]
    assert pentanomial_counts(games[:6], "A") == [0, 2, 0, 0, 1]
    assert pentanomial_counts(games[:6], "B") == [1, 0, 0, 2, 0]
    with pytest.raises(ValueError, match="not a pair"):
        pentanomial_counts([games[0], games[2]], "A")


def test_play_sprt_plays_batches_until_the_test_decides():
    from drl.eval.arena import play_match
    from drl.eval.sprt import pentanomial_counts, play_sprt

    seen = []
    m = play_sprt(
        "greedy",
        "random",
        "english",
        4,
        on_batch=lambda test, games: seen.append(games),
        settings=MatchSettings(openings=2, seed=5, workers=1, max_plies=60, progress=False),
        test=SPRTSettings(elo0=0, elo1=400, max_games=12),
    )
    assert seen == list(range(4, 4 * len(seen) + 1, 4)) and len(m.history) == len(seen)
    assert [r.index for r in m.records] == list(range(len(m.records)))
    assert m.counts == pentanomial_counts(m.records, "greedy")
    assert m.result == m.history[-1] == sprt(m.counts, 0, 400)
    assert m.result.decision != "continue" or len(m.records) >= 12
    assert all(h.decision == "continue" for h in m.history[:-1])
    # batch k is the arena match with seed + k
    first = play_match(
        "greedy",
        "random",
        "english",
        4,
        settings=MatchSettings(openings=2, seed=5, workers=1, max_plies=60, progress=False),
    )
    assert [r.moves for r in m.records[:4]] == [r.moves for r in first.records]


def test_play_sprt_stops_at_the_game_budget_and_refuses_odd_batches():
    from drl.eval.sprt import play_sprt

    m = play_sprt(
        "random",
        "random:seed=1",
        "english",
        2,
        settings=MatchSettings(openings=None, workers=1, max_plies=10, progress=False),
        test=SPRTSettings(max_games=4),
    )
    assert len(m.records) == 4 and m.result.decision == "continue"
    with pytest.raises(ValueError, match="even"):
        play_sprt("random", "greedy", "english", 3)
    with pytest.raises(ValueError, match="elo0 < elo1"):
        play_sprt("random", "greedy", "english", 2, test=SPRTSettings(elo0=5, elo1=5))


def test_the_package_names_are_those_it_always_had():
    # drl.eval imports its heavier modules lazily; its public names stay as they were,
    # and drl.eval.sprt is the test function, not the submodule of the same name.
    import drl.eval

    for name in drl.eval.__all__:
        assert getattr(drl.eval, name) is not None, name
    assert drl.eval.sprt is sprt and "sprt" in drl.eval.__all__
