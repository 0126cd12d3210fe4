"""The learned alpha-beta's first layer updated along the search path
(:mod:`drl.agents._nnue`) against its recomputation from all the features."""

from __future__ import annotations

import numpy as np
import pytest

from drl.agents import _alphabeta as ab
from drl.agents._board import kernel_inputs, search_history
from drl.agents._nnue import leaf_value, make_net_stack, refresh, update
from drl.agents.alphabeta import AlphaBetaAgent
from drl.encode.actions import num_actions
from drl.encode.features import num_features
from drl.encode.sparse_net import SparseWeights, evaluate_position, make_scratch
from drl.rules import Board

VARIANTS = [
    "english",
    "russian",
    "brazilian",
    "international",
    "giveaway",
    "losing",
    "give_and_take",
    "give_and_take:board_size=10",
]


def _weights(board_size: int, seed: int, h1: int = 64, h2: int = 16) -> SparseWeights:
    rng = np.random.default_rng(seed)
    f, a = num_features(board_size), num_actions(board_size)

    def r(*shape, s=0.3):
        return (s * rng.standard_normal(shape)).astype(np.float32)

    return SparseWeights(
        w1=r(f, h1), b1=r(h1), w2=r(h2, h1, s=0.1), b2=r(h2), wv=r(h2), bv=r(1),
        wp=r(a, h2), bp=r(a),
    )  # fmt: skip


def _kings(state) -> int:
    return bin(int(state[1])).count("1") + bin(int(state[3])).count("1")


def _random_game(variant: str, plies: int, rng) -> Board:
    board = Board(variant)
    for _ in range(plies):
        moves = board.legal_moves
        if not moves or board.is_game_over():
            break
        board.push(moves[rng.integers(len(moves))])
    return board


@pytest.mark.parametrize("variant", VARIANTS)
def test_updated_accumulators_match_recomputation_along_random_paths(variant):
    """Random positions, then random paths from them (captures, multi-captures and
    crownings included): at every ply the updated accumulators equal those built from
    scratch, and the leaf value equals the full forward pass."""
    rng = np.random.default_rng(7)
    board_size = Board(variant).variant.board_size
    net = _weights(board_size, seed=1)
    scratch = make_scratch(net)
    params = np.array(Board(variant).variant.params, np.int64)
    nstack = make_net_stack(net, 2)
    fresh = np.zeros_like(nstack.acc[0])
    kinds = {"capture": 0, "crowning": 0}
    compared = 0
    for _ in range(12):
        board = _random_game(variant, int(rng.integers(0, 60)), rng)
        refresh(np.array(board.state, np.int64), params, net, nstack.acc[0])
        for _ in range(40):
            moves = board.legal_moves
            if not moves or board.is_game_over():
                break
            move = moves[rng.integers(len(moves))]
            parent = np.array(board.state, np.int64)
            board.push(move)
            child = np.array(board.state, np.int64)
            kinds["capture"] += bool(move.captures)
            kinds["crowning"] += _kings(child) > _kings(parent)
            update(parent, child, params, net, nstack.acc[0], nstack.acc[1])
            refresh(child, params, net, fresh)
            np.testing.assert_allclose(nstack.acc[1], fresh, rtol=0, atol=2e-5)
            want = evaluate_position(child, params, child, 0, 0, net, scratch)
            got = leaf_value(child, params, 0, net, scratch, nstack.acc[1])
            assert got == pytest.approx(want, abs=2e-6)
            nstack.acc[0] = nstack.acc[1]
            compared += 1
    assert compared > 200
    assert kinds["capture"] > 10 and kinds["crowning"] > 0, kinds


def _agent(net: SparseWeights, incremental: bool, depth: int) -> AlphaBetaAgent:
    agent = AlphaBetaAgent(depth=depth)
    agent._net = net
    agent._scratch = make_scratch(net)
    agent._net_stack = make_net_stack(net, ab.MAX_PLY + 1, incremental)
    agent._leaf_eval = (tuple(net), tuple(agent._scratch), tuple(agent._net_stack))
    return agent


@pytest.mark.parametrize("variant", ["english", "international", "give_and_take"])
def test_search_with_updated_layer_chooses_as_with_recomputation(variant):
    """Whole searches, incremental against recomputed first layer: same move, same
    score up to the float32 rounding of the value (one unit of ``NET_SCALE`` at most)."""
    rng = np.random.default_rng(3)
    net = _weights(Board(variant).variant.board_size, seed=2)
    full, inc = _agent(net, True, 3), _agent(net, True, 3)
    full.set_incremental(False)  # the switch the benchmark uses
    same_move = 0
    for _ in range(6):
        board = _random_game(variant, int(rng.integers(4, 40)), rng)
        if board.is_game_over():
            continue
        full.reset()
        inc.reset()
        row_f, score_f = full.search(board)
        row_i, score_i = inc.search(board)
        assert abs(score_f - score_i) <= 1
        same_move += bool(np.array_equal(row_f, row_i))
    assert same_move >= 4


def test_material_search_has_a_row_per_ply_for_the_accumulators():
    """The material search marks accumulators out of date at every ply too, so its
    stand-in stack needs a row per ply (one row only wrote past the array's end)."""
    agent = AlphaBetaAgent(depth=6)
    board = _random_game("english", 20, np.random.default_rng(5))
    _, score = agent.search(board)
    assert ab.NO_NET_STACK.valid.shape[0] == ab.MAX_PLY + 1
    assert abs(score) < ab.INF
    nstack = ab.make_net_stack(ab.NO_NET, 1)
    rank = np.arange(ab.MAX_MOVES, dtype=np.int64)
    root = (*kernel_inputs(board), search_history(board, ab.MAX_PLY + 1), rank, ab.NO_EGTB)
    net = (tuple(ab.NO_NET), tuple(ab.NO_SCRATCH), tuple(nstack))
    with pytest.raises(ValueError, match="one row per ply"):
        ab.search_root(root, 1, *agent._buf.args, *net)
