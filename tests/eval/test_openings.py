"""Random openings: distinct, one per two games, seeded, and refused when too few exist."""

import pytest

from drl.cli.eval import EvalConfig
from drl.eval.arena import check_distinct_openings, make_openings, match_tasks
from drl.eval.settings import MatchSettings
from drl.rules import Board
from drl.train.config import TrainEvalCfg

VARIANTS = ["english", "give_and_take", "international", "russian", "giveaway"]


@pytest.mark.parametrize("plies", sorted({TrainEvalCfg().openings, EvalConfig().openings}))
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("games", [64, 200])
def test_default_openings_give_a_distinct_opening_per_two_games(variant, games, plies):
    tasks = match_tasks(
        "greedy", "random", variant, games, MatchSettings(openings=plies, seed=20000)
    )
    assert len({t.opening for t in tasks}) >= games / 2
    assert len({t.opening_index for t in tasks}) >= games / 2


def test_openings_are_distinct_and_seeded():
    a = make_openings("english", 40, 2, seed=5)
    assert len(set(a)) == 40
    assert a == make_openings("english", 40, 2, seed=5)
    assert a[:10] == make_openings("english", 10, 2, seed=5)  # drawn in order, lazily
    tasks = match_tasks("greedy", "random", "give_and_take", 12, MatchSettings(openings=3, seed=5))
    again = match_tasks("greedy", "random", "give_and_take", 12, MatchSettings(openings=3, seed=5))
    assert [t.opening for t in tasks] == [t.opening for t in again]


def test_every_opening_of_a_length_can_be_drawn():
    # English has 49 live 2-ply openings: random draws find most, the last ones are
    # taken in order once the draws keep repeating
    fens = make_openings("english", 49, 2, seed=1)
    assert len(set(fens)) == 49
    assert fens == make_openings("english", 49, 2, seed=1)
    for fen in fens:
        assert not Board("english", fen=fen).is_game_over()


def test_too_few_distinct_openings_is_an_error_naming_how_many_exist():
    with pytest.raises(ValueError, match=r"200 games start from 100 openings: .*only 7 distinct"):
        match_tasks("greedy", "random", "english", 200, MatchSettings(openings=1))
    with pytest.raises(ValueError, match=r"only 49 distinct live 2-ply openings, 50 asked"):
        make_openings("english", 50, 2)
    with pytest.raises(ValueError, match="more plies"):
        check_distinct_openings("international", 1, 64)
    check_distinct_openings("international", 2, 64)
