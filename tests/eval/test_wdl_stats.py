"""W/D/L summaries and Wilson intervals."""

import pytest

from drl.eval.records import GameRecord
from drl.eval.stats import summarize, wilson_interval


def _game(i, black, white, winner, roles=(None, None), termination="no_pieces"):
    result = {"black": "0-1", "white": "1-0", None: "1/2-1/2"}[winner]
    return GameRecord(
        index=i,
        black=black,
        white=white,
        variant="give_and_take",
        roles=roles,
        opening="",
        opening_index=0,
        moves=(),
        result=result,
        winner=winner,
        termination=termination,
        plies=10,
        seed=i,
    )


def test_wilson_known_values():
    # Published values of the Wilson score interval (95%).
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson_interval(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    lo, hi = wilson_interval(5.5, 10)
    assert 0.2366 < lo < hi < 1 and hi > 0.7634
    with pytest.raises(ValueError, match="successes"):
        wilson_interval(11, 10)


def test_summary_by_colour_and_role():
    games = [
        _game(0, "A", "B", "black", ("taker", "giver")),
        _game(1, "B", "A", "black", ("giver", "taker")),
        _game(2, "A", "B", None, ("giver", "taker"), termination="max_plies"),
        _game(3, "B", "A", "black", ("taker", "giver")),
        _game(4, "C", "D", "white"),
    ]
    s = summarize(games, "A")
    assert (s["all"].wins, s["all"].draws, s["all"].losses) == (1, 1, 2)
    assert s["all"].truncated == 1
    assert s["all"].score == pytest.approx(1.5 / 4)
    assert (s["black"].wins, s["black"].draws) == (1, 1)
    assert (s["white"].losses, s["white"].games) == (2, 2)
    assert (s["taker"].wins, s["taker"].losses) == (1, 1)
    assert (s["giver"].draws, s["giver"].losses) == (1, 1)
    lo, hi = s["all"].score_interval
    assert lo < s["all"].score < hi
    assert s["all"].elo < 0
    assert "taker" not in summarize(games, "C")
