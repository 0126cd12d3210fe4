"""The network player on the game core, with a uniform stand-in network (no torch)."""

import numpy as np
import pytest

from drl.agents.az import NetworkAgent, NetworkPlayer
from drl.game import StepState
from drl.rules import Board
from drl.rules.core import ST_HASH
from drl.search import Evaluation, SearchConfig


def uniform(obs, mask):
    return Evaluation(
        logits=np.zeros(mask.shape, np.float32), value=np.zeros(len(mask), np.float32)
    )


def _player(sims=8, root="puct"):
    return NetworkPlayer(uniform, SearchConfig(num_simulations=sims, root_selection=root))


def _boards():
    rng = np.random.default_rng(3)
    out = [Board("english", fen="W:W7,22,23:B10,18")]  # 22x15x6 (two steps) or 23x14
    for variant in ("give_and_take", "russian", "losing"):
        b = Board(variant)
        for _ in range(int(rng.integers(0, 12))):
            b.push(b.legal_moves[int(rng.integers(len(b.legal_moves)))])
        out.append(b)
    return out


@pytest.mark.parametrize("root", ["puct", "gumbel"])
def test_a_batch_of_boards_gets_the_moves_each_board_gets_alone(root):
    boards = _boards()
    together = _player(root=root).choose_moves(boards)
    alone = [_player(root=root).choose_moves([b])[0] for b in boards]
    assert together == alone
    for b, m in zip(boards, together, strict=True):
        assert m in b.legal_moves


def test_the_uniform_network_plays_the_double_capture():
    board = Board("english", fen="W:W7,22,23:B10,18")
    player = _player(sims=32)
    move = player.choose_moves([board])[0]
    assert str(move) == "22x15x6"  # the search saw through both steps of the jump
    assert player.searches >= 1 and player.simulations >= 32


def test_history_is_the_game_by_ply():
    board = Board("english")
    hashes = [int(board.state[ST_HASH])]
    for _ in range(6):
        board.push(board.legal_moves[0])
        hashes.append(int(board.state[ST_HASH]))
    assert board.history().tolist() == hashes


def test_the_agent_is_batched_and_groups_boards_by_size():
    agent = NetworkAgent(_player(sims=4))
    assert agent.batched
    boards = [Board("international"), Board("english"), Board("brazilian")]
    moves = agent.select_moves(boards)
    assert [m in b.legal_moves for m, b in zip(moves, boards, strict=True)] == [True] * 3


def test_a_finished_game_is_refused():
    board = Board("english", fen="B:W22:B18")
    board.push(board.legal_moves[0])  # Black takes the last white piece
    with pytest.raises(ValueError, match="over"):
        _player().choose_moves([board])
    with pytest.raises(ValueError, match="board sizes"):
        _player().choose_moves([Board("english"), Board("international")])


@pytest.mark.parametrize("root", ["puct", "gumbel"])
def test_analyse_reports_the_search_without_changing_the_moves(root):
    board = Board("english", fen="W:W7,22,23:B10,18")  # first steps 22x15 or 23x14
    agent = NetworkAgent(_player(sims=32, root=root))
    found = agent.analyse(board, top=1)
    assert len(found.steps) == 1 and found.simulations == 32 and -1 <= found.value <= 1
    both = agent.analyse(board)
    assert {a for a, _ in both.steps} <= set(StepState.from_board(board).legal_actions().tolist())
    assert len(both.steps) == 2 and abs(sum(s for _, s in both.steps) - 1) < 1e-6
    assert both.steps[0][1] >= both.steps[1][1]
    assert agent.select_move(board) == _player(sims=32, root=root).choose_moves([board])[0]
    with pytest.raises(ValueError, match="top must be at least 1"):
        agent.analyse(board, top=0)
    with pytest.raises(ValueError, match="the game is over"):
        agent.analyse(Board("english", fen="B:W18:B"))  # Black has no piece left
