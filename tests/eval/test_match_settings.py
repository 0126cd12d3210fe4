"""MatchSettings: the options the match functions share, checked once."""

import dataclasses

import pytest

from drl.eval.arena import match_tasks, play_match, play_tasks
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


def test_match_tasks_and_play_tasks_take_the_settings_whole(tmp_path):
    tasks = match_tasks("greedy", "random", "give_and_take", 4, QUICK)
    assert [t.max_plies for t in tasks] == [8] * 4
    assert {t.event for t in tasks} == {"drl arena"}  # the arena's tag when none is set
    assert [t.seed for t in tasks] == [
        t.seed for t in match_tasks("greedy", "random", "give_and_take", 4, QUICK)
    ]
    other = match_tasks("greedy", "random", "give_and_take", 4, dataclasses.replace(QUICK, seed=6))
    assert [t.seed for t in tasks] != [t.seed for t in other]
    assert [t.opening for t in tasks] != [t.opening for t in other]
    named = match_tasks("greedy", "random", "english", 2, dataclasses.replace(QUICK, event="x"))
    assert {t.event for t in named} == {"x"}
    assert {t.egtb for t in named} == {True}
    played_out = match_tasks(
        "greedy", "random", "english", 2, dataclasses.replace(QUICK, egtb=False)
    )
    assert {t.egtb for t in played_out} == {False}
    start = match_tasks("greedy", "random", "english", 2, dataclasses.replace(QUICK, openings=None))
    assert {t.opening for t in start} == {None}
    path = tmp_path / "games.pdn"
    records, written = play_tasks(named, dataclasses.replace(QUICK, pdn_path=path))
    assert written == path and path.read_text().count('[Event "x"]') == len(records) == 2
    assert play_tasks(named, QUICK)[1] is None  # no PDN file unless the settings name one


def test_sprt_settings_are_checked():
    with pytest.raises(ValueError, match="elo0 < elo1"):
        play_sprt("random", "greedy", "english", 2, test=SPRTSettings(elo0=5, elo1=5))
