"""Rollout MCTS: legal, seeded, finds short wins, beats random."""

import numpy as np

from drl.agents import make
from drl.eval.settings import MatchSettings
from drl.rules import Board


def test_visits_add_up_and_search_is_seeded():
    board = Board("english")
    a = make("mcts:sims=300")
    a.reset(seed=2)
    counts = a.search(board)
    assert counts.shape == (len(board.legal_moves),)
    assert counts.sum() == 300  # every simulation passes through one root child
    assert (counts > 0).all()
    b = make("mcts:sims=300")
    b.reset(seed=2)
    np.testing.assert_array_equal(b.search(board), counts)


def test_takes_the_immediate_win():
    board = Board("give_and_take", fen="B:W15,24:B10,11")
    agent = make("mcts:sims=200")
    agent.reset(seed=0)
    assert str(agent.select_move(board)) == "10x19x28"


def test_finds_the_giver_block():
    board = Board("give_and_take:taker=white", fen="B:WK23:B24,28")
    agent = make("mcts:sims=500")
    agent.reset(seed=0)
    assert str(agent.select_move(board)) == "24-27"


def test_beats_random():
    from drl.eval.arena import play_match

    m = play_match(
        "mcts:sims=100",
        "random",
        "english",
        games=4,
        settings=MatchSettings(workers=1, progress=False, seed=3),
    )
    assert m.score("mcts:sims=100") >= 3.5
