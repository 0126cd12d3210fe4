"""random and greedy: legal, seeded, objective-aware."""

import pytest

from drl.agents import make
from drl.rules import Board

# Black to move: 14-18 hangs a man to 23x14; 14-17, 1-5 and 1-6 hang nothing.
OFFER = "B:W23:B1,14"


def test_random_is_seeded_and_legal():
    board = Board("international")
    a, b = make("random"), make("random")
    a.reset(seed=5)
    b.reset(seed=5)
    picks = [a.select_move(board) for _ in range(10)]
    assert picks == [b.select_move(board) for _ in range(10)]
    assert all(m in board.legal_moves for m in picks)
    assert len(set(picks)) > 1


def test_greedy_takes_a_win_by_rule():
    # Give and Take, Black takes: the double jump removes the Giver's last pieces.
    board = Board("give_and_take", fen="B:W15,24:B10,11")
    for seed in range(4):
        agent = make("greedy")
        agent.reset(seed=seed)
        assert str(agent.select_move(board)) == "10x19x28"


@pytest.mark.parametrize("variant, wants_offer", [("english", False), ("losing", True)])
def test_greedy_follows_the_objective(variant, wants_offer):
    board = Board(variant, fen=OFFER)
    assert {str(m) for m in board.legal_moves} == {"1-5", "1-6", "14-17", "14-18"}
    agent = make("greedy")
    for seed in range(4):
        agent.reset(seed=seed)
        assert (str(agent.select_move(board)) == "14-18") == wants_offer


def test_no_move_raises():
    board = Board("english", fen="B:W5:B")
    with pytest.raises(ValueError, match="game is over"):
        make("random").select_move(board)
