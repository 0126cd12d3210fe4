"""MatchSettings: the options the match functions share, checked once."""

import dataclasses

import pytest

from drl.eval.arena import play_match
from drl.eval.settings import DEFAULT_SETTINGS, MatchSettings
from drl.eval.sprt import SPRTSettings, play_sprt

QUICK = MatchSettings(openings=2, seed=5, workers=1, max_plies=8, progress=False)


def test_settings_are_frozen_and_checked_when_made():
    s = MatchSettings(openings=["B:W22:B18"])
    assert s.openings == ("B:W22:B18",)  # a list of FENs is kept as a tuple
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.seed = 1  # type: ignore[misc]
    for bad, match in [
        ({"max_plies": 0}, "max_plies must be between 1 and 100,000"),
        ({"openings": -1}, "openings must be None"),
        ({"openings": 101}, "openings must be at most 100 plies"),
        ({"workers": 0}, "workers must be between 1 and 256"),
        ({"seed": -1}, "seed must be an integer >= 0"),
    ]:
        with pytest.raises(ValueError, match=match):
            MatchSettings(**bad)
    assert DEFAULT_SETTINGS.event_or("drl arena") == "drl arena"
    assert MatchSettings(event="x").event_or("drl arena") == "x"


def test_settings_decide_the_games_and_the_event():
    first = play_match("greedy", "random", "english", 2, settings=QUICK)
    again = play_match("greedy", "random", "english", 2, settings=QUICK)
    assert [r.moves for r in first.records] == [r.moves for r in again.records]
    assert '[Event "drl arena"]' in first.records[0].pdn
    named = play_match(
        "greedy", "random", "english", 2, settings=dataclasses.replace(QUICK, event="x")
    )
    assert '[Event "x"]' in named.records[0].pdn
    cut = play_match(
        "greedy", "random", "english", 2, settings=dataclasses.replace(QUICK, max_plies=3)
    )
    assert all(r.plies <= 3 for r in cut.records)


def test_sprt_settings_are_checked():
    with pytest.raises(ValueError, match="elo0 < elo1"):
        play_sprt("random", "greedy", "english", 2, test=SPRTSettings(elo0=5, elo1=5))
