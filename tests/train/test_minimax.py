"""Minimax self-play (``algo=minimax``): its targets, its games, its config, a whole run."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from drl.agents import _alphabeta as ab
from drl.nn import NetworkEvaluator
from drl.rules import Board, Variant
from drl.rules.pdn import read_games, replay
from drl.search import SearchConfig
from drl.train.buffer import GameBatch
from drl.train.learner import value_target
from drl.train.minimax import MinimaxActor, MinimaxConfig, root_value, sample_move
from drl.train.selfplay import RESULT_DRAW, RESULT_TRUNCATED, SelfPlayConfig
from tests.tiny_configs import tiny_sparse_net

_TINY_NET = ["model.hidden=32", "model.hidden2=8"]


def _play(seed: int, games: int = 4, explore_plies: int = 6) -> tuple[GameBatch, list[str]]:
    actor = MinimaxActor(
        [Variant.parse("english")],
        SearchConfig(num_simulations=4),
        SelfPlayConfig(games_in_flight=3, max_plies=80, adjudicate_depth=0),
        seed=seed,
        minimax=MinimaxConfig(depth=2, explore_plies=explore_plies, temperature=0.2),
    )
    chunks: list[tuple[GameBatch, list[str]]] = []
    stats = actor.play(
        NetworkEvaluator(tiny_sparse_net(), "cpu"), games, lambda b, p: chunks.append((b, p))
    )
    assert stats.games == games and stats.searched > 0 and stats.simulations > 0
    return GameBatch.concat([c[0] for c in chunks]), [p for c in chunks for p in c[1]]


@pytest.fixture(scope="module")
def played():
    return _play(seed=5)


def test_root_value_puts_scores_on_the_value_scale():
    scale, win = ab.NET_SCALE, ab.WIN
    got = root_value(np.array([0, scale // 2, -scale // 4, 3 * scale, win - 5, -(win - 9)]))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, [0.0, 0.5, -0.25, 1.0, 1.0, -1.0])
    assert float(root_value(-7 * scale)) == -1.0


def test_sample_move_breaks_ties_by_rank_and_follows_the_temperature():
    rng = np.random.default_rng(0)
    values = np.array([0.1, 0.5, 0.5, -1.0])
    best, sampled = sample_move(values, np.array([0, 9, 3, 1]), 1e-4, rng)
    assert best == 2 and sampled in (1, 2)  # equal best values: both likely, never the rest
    draws = [sample_move(values, np.arange(4), 100.0, rng)[1] for _ in range(400)]
    assert set(draws) == {0, 1, 2, 3}  # a high temperature plays every move
    cold = [sample_move(values, np.arange(4), 0.05, rng)[1] for _ in range(200)]
    assert cold.count(0) < 10 and 3 not in cold


def test_minimax_config_refuses_values_out_of_range():
    with pytest.raises(ValueError, match="mix"):
        MinimaxConfig(mix=1.5)
    with pytest.raises(ValueError, match="depth"):
        MinimaxConfig(depth=0)
    with pytest.raises(ValueError, match="temperature"):
        MinimaxConfig(temperature=0.0)


def test_games_replay_to_their_recorded_results(played):
    batch, pdns = played
    batch.validate()
    assert batch.num_games == len(pdns) == 4
    for text, result, plies in zip(pdns, batch.game_result, batch.game_plies, strict=True):
        game = next(read_games(text))
        assert game.tags["Event"] == "drl self-play"
        board = replay(game)
        assert board.ply == plies
        if result != RESULT_TRUNCATED:
            expected = {0: "0-1", 1: "1-0", RESULT_DRAW: "1/2-1/2"}[int(result)]
            assert board.outcome().result == expected


def test_targets_are_in_range_and_a_won_game_ends_valued_one_for_the_winner(played):
    batch, _ = played
    assert np.all(np.abs(batch.search_value) <= 1.0)
    assert set(np.unique(batch.value).tolist()) <= {-1.0, 0.0, 1.0}
    # the search's values are not the game results: it searched
    assert np.any(~np.isin(batch.search_value, [-1.0, 0.0, 1.0]))
    off = batch.legal_offsets
    counts = np.diff(off)
    np.testing.assert_allclose(np.add.reduceat(batch.policy, off[:-1]), 1.0, rtol=1e-6)
    assert np.all(batch.policy_weight[counts == 1] == 0.0)
    trained = batch.policy_weight == 1.0
    assert trained.sum() > 0.5 * np.sum(counts > 1)  # best moves: one-hot targets
    one_hot = np.maximum.reduceat(batch.policy, off[:-1]) == 1.0
    assert np.all(one_hot[trained])
    for g, res in enumerate(batch.game_result.tolist()):
        if res not in (0, 1):
            continue
        rows = np.flatnonzero((batch.game_index == batch.game_index[0] + g) & (batch.player == res))
        # the winner's last move wins: a forced win, valued exactly 1
        assert batch.search_value[rows[-1]] == 1.0


def test_the_value_target_mixes_result_and_search_by_minimax_mix():
    from drl.train.api import compose_config
    from drl.train.config import train_settings

    s = train_settings(compose_config(["algo=minimax", "minimax.mix=0.3", *_TINY_NET]))
    assert s.algo == "minimax" and s.minimax is not None and s.minimax.mix == 0.3
    assert s.loss.search_value_weight == pytest.approx(0.3)
    az = train_settings(compose_config(["minimax.mix=0.3", *_TINY_NET]))
    assert az.algo == "az" and az.minimax_selfplay is None and az.loss.search_value_weight == 0.5
    z = np.array([1.0, -1.0, 0.0, 1.0], np.float32)
    q = np.array([0.2, -0.6, 1.0, -1.0], np.float32)
    t = value_target(SimpleNamespace(value=z, search_value=q), s.loss.search_value_weight)
    np.testing.assert_allclose(t, 0.7 * z + 0.3 * q, rtol=1e-6)
    assert np.all(np.abs(t) <= 1.0)


def test_the_same_seed_plays_the_same_games_and_another_seed_others(played):
    _, pdns = played
    again = _play(seed=5)[1]
    assert again == pdns
    assert _play(seed=6)[1] != pdns


@pytest.mark.parametrize(
    ("overrides", "named"),
    [
        (["algo=minimax", "minimax.detph=3"], "detph"),
        (["algo=minmax"], "minmax"),
        (["algo=minimax", "minimax.mix=1.5"], "minimax.mix=1.5"),
        (["algo=minimax", "minimax.depth=0"], "minimax.depth=0"),
        (["algo=minimax", "model=tiny"], "model=sparse"),
    ],
)
def test_a_bad_minimax_setting_is_a_clear_error(overrides, named):
    from drl.train.api import compose_config

    with pytest.raises(ValueError, match=named):
        compose_config(overrides)


def test_a_tiny_minimax_run_rates_its_alphabeta_agent_and_both_agents_load(tmp_path):
    import json

    import drl
    from drl.agents import make
    from drl.cli.train import final_table

    overrides = [
        "variant=english",
        "train=tiny",
        "train.eval.every=1",
        "algo=minimax",
        "minimax.depth=2",
        "tensorboard=false",
        "progress=false",
        "threads=1",
        *_TINY_NET,
    ]
    run = drl.train(overrides, run_dir=tmp_path / "run")
    assert run.iterations == 2 and run.games == 8 and run.checkpoint is not None
    assert "name: minimax" in (tmp_path / "run" / "config.yaml").read_text()
    pdn = (tmp_path / "run" / "games" / "selfplay-000000.pdn").read_text()
    assert '[Round "1"]' in pdn and '[Session "0"]' in pdn
    # the final table rates the searcher the run trained, at its self-play depth
    agent = f"alphabeta:ckpt={run.checkpoint},depth=2"
    assert [r.agent for r in run.final_eval] == [agent]
    assert run.final_eval[0].summary["all"].games == 4
    table = final_table(run.final_eval, "english")
    assert table.title is not None and agent in str(table.title)
    saved = json.loads((tmp_path / "run" / "eval" / "final.json").read_text())
    assert saved["random"]["agent"] == agent
    # the evaluation during training too, with the network of iteration 1
    during = json.loads((tmp_path / "run" / "eval" / "iter-0001.json").read_text())
    first = tmp_path / "run" / "checkpoints" / "ckpt-00000001.pt"
    assert during["random"]["agent"] == f"alphabeta:ckpt={first},depth=2"
    assert during["random"]["all"]["games"] == 4
    board = Board("english")
    for spec in (f"alphabeta:ckpt={run.checkpoint},depth=2", f"az:ckpt={run.checkpoint},sims=4"):
        move = make(spec).select_move(board)
        assert move in board.legal_moves


def test_worker_processes_play_the_same_minimax_games_for_the_same_seed():
    from drl.nn import describe
    from drl.train.workers import WorkerPool

    net = tiny_sparse_net()
    config = SelfPlayConfig(games_in_flight=2, max_plies=30, adjudicate_depth=0)
    minimax = MinimaxConfig(depth=2, explore_plies=4)
    pool = WorkerPool([Variant.parse("english")], SearchConfig(), config, describe(net), 2, minimax)

    def moves(seed: list[int]) -> list[str]:
        got: list[str] = []
        st = pool.play(net.state_dict(), 4, seed, lambda b, p: got.extend(p), 2)
        assert st.games == 4 and st.searched > 0
        return [" ".join(str(m) for m in g.moves) for text in got for g in read_games(text)]

    try:
        first = moves([3, 0])
        assert moves([3, 0]) == first  # the same seed again: the same games, same order
        assert moves([4, 0]) != first
    finally:
        pool.close()
    assert len(set(first)) == len(first) == 4  # the two workers play their own games
