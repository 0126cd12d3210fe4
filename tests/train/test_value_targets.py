"""Games cut at the ply cap are adjudicated, and value targets mix in the search value."""

import numpy as np
import pytest
import torch

from drl.agents.alphabeta import AlphaBetaAgent
from drl.encode.actions import num_actions
from drl.encode.planes import N_CHANNELS
from drl.eval.arena import role_variant
from drl.nn import UniformEvaluator
from drl.nn import build as build_net
from drl.rules import Board, Variant
from drl.rules.pdn import read_games, replay
from drl.search import SearchConfig
from drl.train.buffer import GameBatch, SampleBatch
from drl.train.learner import LossConfig, train_step, value_target
from drl.train.selfplay import (
    RESULT_DRAW,
    RESULT_TRUNCATED,
    SelfPlayActor,
    SelfPlayConfig,
    adjudicate,
)


@pytest.mark.parametrize(
    ("fen", "expected"),
    [
        # White to move with two kings against one man: the side ahead (white) wins.
        ("W:WK1,K3:B20", 1),
        # The same material with black to move: still white's win, seen from black.
        ("B:WK1,K3:B20", 1),
        # Black three men up, black to move.
        ("B:W29:B5,6,7,8", 0),
        # One man each, far apart and blocked by nothing: level, a draw.
        ("B:W29:B4", RESULT_DRAW),
    ],
)
def test_a_capped_position_is_adjudicated_for_the_side_ahead(fen, expected):
    board = Board("english", fen=fen)
    assert adjudicate(board, AlphaBetaAgent(depth=4), margin=100) == expected


def test_a_forced_result_is_exact_whatever_the_margin():
    # After 14-18 White's only move 22x15 lets Black take two men and win: a loss for the
    # mover found by the search, judged so even with a margin no material lead reaches.
    board = Board("english", fen="B:W22,24:B6,10,14")
    board.push("14-18")
    huge = 10**6 - 200
    assert adjudicate(board, AlphaBetaAgent(depth=4), margin=huge) == 0  # black wins
    # without a forced result the same margin judges a draw
    level = Board("english", fen="B:W29:B4")
    assert adjudicate(level, AlphaBetaAgent(depth=4), margin=huge) == RESULT_DRAW


def test_adjudicating_a_finished_game_is_refused():
    board = Board("english", fen="B:WK1:B")  # black has no pieces: over by rule
    with pytest.raises(ValueError, match="over by rule"):
        adjudicate(board, AlphaBetaAgent(depth=2), 100)


def _capped_games(depth: int, seed: int = 1):
    v = Variant.parse("give_and_take")
    actor = SelfPlayActor(
        [role_variant(v, "black"), role_variant(v, "white")],
        SearchConfig(num_simulations=4, root_selection="gumbel"),
        SelfPlayConfig(games_in_flight=4, max_plies=12, adjudicate_depth=depth),
        seed=seed,
    )
    chunks = []
    actor.play(UniformEvaluator(), 8, on_games=lambda b, p: chunks.append((b, p)))
    return actor, GameBatch.concat([c[0] for c in chunks]), [p for c in chunks for p in c[1]]


def test_capped_self_play_games_teach_the_adjudicated_result():
    actor, batch, pdns = _capped_games(depth=3)
    batch.validate()
    assert np.all(batch.game_result == RESULT_TRUNCATED)  # 12 plies: every game is cut
    starts = np.flatnonzero(np.r_[True, np.diff(batch.game_index) != 0])
    decisive = 0
    for g, s in enumerate(starts):
        e = starts[g + 1] if g + 1 < len(starts) else batch.num_positions
        adj = int(batch.game_adjudicated[g])
        # the judged result is the one a fresh search of the last position gives
        text = pdns[g]
        game = next(read_games(text))
        board = replay(game)
        assert board.ply == 12
        assert adjudicate(board, AlphaBetaAgent(depth=3, tt_bits=16), 100) == adj
        assert game.tags["Adjudicated"] == ("black", "white", "draw")[adj]
        players, values = batch.player[s:e], batch.value[s:e]
        if adj in (0, 1):
            decisive += 1
            assert np.all(values[players == adj] == 1.0)
            assert np.all(values[players != adj] == -1.0)
        else:
            assert np.all(values == 0.0)
    assert decisive > 0  # 12 random-ish plies of Give and Take leave someone ahead


def test_without_adjudication_capped_games_are_taught_as_zero():
    _actor, batch, pdns = _capped_games(depth=0)
    assert np.all(batch.game_adjudicated == -1)
    assert np.all(batch.value == 0.0)
    assert all("Adjudicated" not in next(read_games(p)).tags for p in pdns)


def test_search_values_are_recorded_and_forced_steps_carry_the_result():
    _actor, batch, _ = _capped_games(depth=3, seed=5)
    assert np.all(np.abs(batch.search_value) <= 1.0)
    forced = (batch.policy_weight == 0) & (np.diff(batch.legal_offsets) == 1)
    # a position with one legal step was not searched: its search value is its result
    assert np.array_equal(batch.search_value[forced], batch.value[forced])
    searched = ~forced
    assert searched.any() and not np.array_equal(
        batch.search_value[searched], batch.value[searched]
    )


def _sample(value, search_value):
    n = len(value)
    a = num_actions(8)
    mask = np.zeros((n, a), bool)
    mask[:, :3] = True
    policy = np.zeros((n, a), np.float32)
    policy[:, :3] = 1 / 3
    return SampleBatch(
        obs=np.random.default_rng(0).random((n, N_CHANNELS, 8, 8)).astype(np.float32),
        mask=mask,
        policy=policy,
        policy_weight=np.ones(n, np.float32),
        value=np.asarray(value, np.float32),
        pieces_left=np.full((n, 2), 0.5, np.float32),
        plies_left=np.full(n, 10.0, np.float32),
        search_value=np.asarray(search_value, np.float32),
    )


def test_the_value_target_is_the_stated_mix_computed_by_hand():
    batch = _sample([1.0, -1.0, 0.0], [0.5, 0.2, -0.4])
    # (1 - 0.25) * z + 0.25 * q
    np.testing.assert_allclose(value_target(batch, 0.25), [0.875, -0.7, -0.1], rtol=1e-6)
    np.testing.assert_array_equal(value_target(batch, 0.0), batch.value)
    np.testing.assert_allclose(value_target(batch, 1.0), batch.search_value)


def test_the_learner_trains_the_value_head_on_the_mixed_target():
    torch.manual_seed(0)
    net = build_net(
        "resnet",
        in_channels=N_CHANNELS,
        board_size=8,
        num_actions=num_actions(8),
        channels=8,
        blocks=1,
    )
    batch = _sample([1.0, -1.0, 0.0, 1.0], [0.5, 0.2, -0.4, -1.0])
    net.train()
    with torch.no_grad():
        v = net(torch.from_numpy(batch.obs)).value.numpy()
    for w in (0.0, 0.5):
        expected = float(np.mean((v - value_target(batch, w)) ** 2))
        opt = torch.optim.SGD(net.parameters(), lr=0.0)  # lr 0: the weights stay put
        out = train_step(net, opt, batch, LossConfig(search_value_weight=w))
        assert out["value_loss"] == pytest.approx(expected, rel=1e-5)


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan")])
def test_a_search_value_weight_outside_0_1_is_refused(bad):
    with pytest.raises(ValueError, match="search_value_weight"):
        LossConfig(search_value_weight=bad)


def test_shards_written_before_search_values_load_with_the_result_as_search_value(tmp_path):
    _actor, batch, _ = _capped_games(depth=0)
    from dataclasses import fields

    from drl.train.buffer import load_shard

    old = {
        f.name: getattr(batch, f.name)
        for f in fields(GameBatch)
        if f.name not in ("search_value", "game_adjudicated")
    }
    path = tmp_path / "shard-000000.npz"
    np.savez(path, **old)
    loaded = load_shard(path)
    np.testing.assert_array_equal(loaded.search_value, loaded.value)
    assert np.all(loaded.game_adjudicated == -1)
