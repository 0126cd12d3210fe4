"""MatchSettings: the options the match functions share, checked once; the old keywords
still work, with a DeprecationWarning naming the settings class."""

import dataclasses

import pytest

from drl.eval.arena import play_match
from drl.eval.settings import DEFAULT_SETTINGS, MatchSettings, moved_keywords
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


def test_old_keywords_warn_and_play_the_same_games():
    new = play_match("greedy", "random", "english", 2, settings=QUICK)
    with pytest.warns(DeprecationWarning, match=r"pass settings=MatchSettings\(openings=\.\.\."):
        old = play_match(
            "greedy",
            "random",
            "english",
            2,
            openings=2,
            seed=5,
            workers=1,
            max_plies=8,
            progress=False,
        )
    assert [r.moves for r in old.records] == [r.moves for r in new.records]
    assert '[Event "drl arena"]' in old.records[0].pdn
    named = play_match(
        "greedy", "random", "english", 2, settings=dataclasses.replace(QUICK, event="x")
    )
    assert '[Event "x"]' in named.records[0].pdn
    # old keywords given with settings= replace those fields of the settings given
    with pytest.warns(DeprecationWarning, match="MatchSettings"):
        cut = play_match("greedy", "random", "english", 2, settings=QUICK, max_plies=3)
    assert all(r.plies <= 3 for r in cut.records)


def test_sprt_keywords_move_into_sprt_settings():
    with pytest.warns(DeprecationWarning, match=r"test=SPRTSettings\(elo0=\.\.\., elo1="):
        with pytest.raises(ValueError, match="elo0 < elo1"):
            play_sprt("random", "greedy", "english", 2, elo0=5, elo1=5, settings=QUICK)
    with pytest.raises(ValueError, match="elo0 < elo1"):
        play_sprt("random", "greedy", "english", 2, test=SPRTSettings(elo0=5, elo1=5))


def test_the_adapter_takes_old_positional_arguments_too():
    @moved_keywords(settings=MatchSettings, positional=("openings", "seed"))
    def f(a, *, settings=DEFAULT_SETTINGS):
        return a, settings

    assert f(1) == (1, DEFAULT_SETTINGS)
    with pytest.warns(DeprecationWarning, match="MatchSettings"):
        assert f(1, 0, 7) == (1, MatchSettings(openings=0, seed=7))
    with pytest.raises(TypeError, match="positional arguments"):
        f(1, 0, 7, 9)
    with pytest.raises(TypeError, match="multiple values for 'seed'"):
        f(1, 0, 7, seed=8)
    with pytest.raises(TypeError, match="unexpected keyword"):
        f(1, colour="red")


def test_renamed_names_still_work_and_say_what_replaced_them():
    import drl.cli.eval
    from drl._configs import VariantCfg
    from drl.eval.runners import FORMATS
    from drl.train import evaluate

    with pytest.warns(DeprecationWarning, match="play_against_baseline"):
        assert evaluate.play_lockstep is evaluate.play_against_baseline
    with pytest.warns(DeprecationWarning, match="drl._configs.VariantCfg"):
        assert drl.cli.eval.VariantNode is VariantCfg
    with pytest.warns(DeprecationWarning, match="drl.eval.sprt.SPRTSettings"):
        assert drl.cli.eval.SPRTNode is SPRTSettings
    assert (
        drl.cli.eval.FORMATS
        == tuple(FORMATS)
        == (
            "round_robin",
            "gauntlet",
            "halftime",
            "pool",
            "sprt",
        )
    )
