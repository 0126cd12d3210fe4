"""The MCTS searches and self-play with the endgame database: solved leaves, exact endings."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from drl.agents import make
from drl.agents.az import NetworkPlayer
from drl.egtb._search import NO_DATABASE, T_DATABASE, GameDatabases
from drl.encode import move_to_actions
from drl.game import kernels as G
from drl.rules import Variant
from drl.rules.board import Board
from drl.search import BatchedMCTS, Evaluation, Roots, SearchConfig

WIN = "W:WK1,K8:BK2"  # two kings against one, White to move: a win, but 1-6 draws


def uniform(obs, mask):
    """A stand-in network: uniform policy, value 0 everywhere."""
    return Evaluation(
        logits=np.zeros(mask.shape, np.float32), value=np.zeros(len(mask), np.float32)
    )


@pytest.fixture
def english3(built, egtb_folder, monkeypatch):
    monkeypatch.setenv("DRL_EGTB_DIR", str(egtb_folder))
    return built("english", 3)


def _child_values(board: Board, db) -> dict[int, float]:
    """Root step action -> the exact value of the move's position for the root's mover."""
    out = {}
    for move in board.legal_moves:
        child = board.copy()
        child.push(move)
        exact = db.exact(child.state)
        assert exact is not None  # three pieces or fewer, no counter near its limit
        value = {"win": 1.0, "loss": -1.0, "draw": 0.0}[exact.value]
        out[move_to_actions(move, board.turn, board.variant.params)[0]] = -value
    return out


def _search(board: Board, evaluate, kernel: tuple, flag: int, sims: int = 64):
    roots = Roots.from_positions([board.state], board.variant.params)
    roots = replace(roots, egtb=np.array([flag], np.int64))
    mcts = BatchedMCTS(SearchConfig(num_simulations=sims), 1, 8)
    mcts.database = kernel
    return mcts, mcts.run(roots, evaluate, np.random.default_rng(0), explore=False)


def _sparse_evaluator():
    from drl.nn import NetworkEvaluator
    from tests.nn.test_sparse_net import sparse_net

    return NetworkEvaluator(sparse_net(8))


@pytest.mark.parametrize("path", ["batched", "inline"])
def test_mcts_backs_up_exact_values_at_the_roots_solved_children(english3, path):
    board = Board("english", fen=WIN)
    exact = _child_values(board, english3)
    assert max(exact.values()) == 1.0 and min(exact.values()) < 1.0  # some moves throw it
    evaluate = uniform if path == "batched" else _sparse_evaluator()
    mcts, res = _search(board, evaluate, english3.kernel, 0)
    visited = np.flatnonzero(res.visits[0])
    assert len(visited) >= 2
    for a in visited:
        assert res.q[0, a] == exact[int(a)]  # every visit backs up the exact value
    assert exact[int(res.action[0])] == 1.0  # a winning move
    tree = mcts.tree
    children = tree.child[0, : tree.edge_count[0, 0]]
    for c in children[children >= 0]:
        code = tree.pos[0, c, G.G_CODE]
        assert code // 4 == T_DATABASE and tree.edge_count[0, c] == 0  # solved, not expanded


@pytest.mark.parametrize("path", ["batched", "inline"])
def test_without_the_database_the_search_values_leaves_by_the_network(english3, path):
    board = Board("english", fen=WIN)
    exact = _child_values(board, english3)
    evaluate = uniform if path == "batched" else _sparse_evaluator()
    for kernel, flag in ((english3.kernel, -1), (NO_DATABASE, 0)):
        mcts, res = _search(board, evaluate, kernel, flag)
        assert res.action[0] >= 0
        codes = mcts.tree.pos[0, 1 : mcts.tree.num_nodes[0], G.G_CODE]
        assert not np.any(codes // 4 == T_DATABASE)
        visited = np.flatnonzero(res.visits[0])
        assert any(res.q[0, a] != exact[int(a)] for a in visited)  # the network's values


def test_az_player_with_the_database_plays_a_winning_move(english3):
    board = Board("english", fen=WIN)
    exact = _child_values(board, english3)
    cfg = SearchConfig(num_simulations=48)
    move = NetworkPlayer(uniform, cfg).choose_moves([board])[0]
    assert exact[move_to_actions(move, board.turn, board.variant.params)[0]] == 1.0
    plain = NetworkPlayer(uniform, cfg, egtb=False)
    assert plain.databases.flag(board.variant) == -1
    assert plain.choose_moves([board])[0] in board.legal_moves


def test_uct_agent_solves_its_nodes_and_plays_a_winning_move(english3):
    board = Board("english", fen=WIN)
    exact = _child_values(board, english3)
    agent = make("mcts:sims=300,seed=1")
    move = agent.select_move(board)
    assert exact[move_to_actions(move, board.turn, board.variant.params)[0]] == 1.0
    tree = agent._tree
    ch = int(tree.first_child[0])
    while ch >= 0:
        assert tree.code[ch] // 4 == T_DATABASE
        ch = int(tree.next_sibling[ch])
    plain = make("mcts:sims=50,seed=1,egtb=false")
    assert plain.select_move(board) in board.legal_moves
    ch = int(plain._tree.first_child[0])
    while ch >= 0:
        assert plain._tree.code[ch] < 0
        ch = int(plain._tree.next_sibling[ch])


def test_databases_are_found_for_both_give_and_take_role_assignments(built, egtb_folder):
    built("give_and_take", 2)
    dbs = GameDatabases(directory=egtb_folder)
    assert dbs.flag(Variant.parse("give_and_take").with_taker("black")) == 0
    assert dbs.flag(Variant.parse("give_and_take").with_taker("white")) == 1
    assert dbs.flag("english") == -1  # another file than the one opened
    assert GameDatabases(False, egtb_folder).flag("give_and_take") == -1


def test_a_pickled_player_opens_the_database_again(english3):
    import pickle

    dbs = GameDatabases()
    assert dbs.flag("english") == 0
    back = pickle.loads(pickle.dumps(dbs))
    assert back.kernel is NO_DATABASE and back.enabled  # nothing mapped travels
    assert back.flag("english") == 0 and back.kernel[3].size == english3.kernel[3].size
