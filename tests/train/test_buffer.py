"""Replay buffer: atomic shards, reload after restart, sampling on the legal mask only."""

import logging

import numpy as np
import pytest

from drl.train.buffer import GameBatch, ReplayBuffer, ShardError, load_shard


def _batch(n_pos, game_index, n_actions=20, seed=0):
    rng = np.random.default_rng(seed)
    legal, pol = [], []
    for _ in range(n_pos):
        k = int(rng.integers(1, 5))
        acts = np.sort(rng.choice(n_actions, size=k, replace=False)).astype(np.int16)
        p = rng.random(k).astype(np.float32)
        legal.append(acts)
        pol.append(p / p.sum())
    off = np.zeros(n_pos + 1, np.int64)
    off[1:] = np.cumsum([len(a) for a in legal])
    return GameBatch(
        obs=rng.random((n_pos, 3, 4, 4)).astype(np.float16),
        legal_offsets=off,
        legal_actions=np.concatenate(legal),
        policy=np.concatenate(pol),
        policy_weight=np.ones(n_pos, np.float32),
        value=np.ones(n_pos, np.float32),
        pieces_left=np.zeros((n_pos, 2), np.float32),
        plies_left=np.arange(n_pos, dtype=np.float32),
        player=np.zeros(n_pos, np.int8),
        game_index=np.full(n_pos, game_index, np.int64),
        game_plies=np.array([n_pos]),
        game_result=np.array([1]),
        game_taker=np.array([-1]),
    )


def test_shards_survive_a_restart(tmp_path):
    buf = ReplayBuffer(tmp_path, window=1000)
    for g in range(3):
        buf.add(_batch(5 + g, g, seed=g))
    assert (buf.num_games, buf.num_positions, buf.num_shards) == (3, 18, 3)
    (tmp_path / "shard-000003.npz.tmp").write_bytes(b"half a write")
    again = ReplayBuffer(tmp_path, window=1000)
    assert (again.num_games, again.num_positions, again.num_shards) == (3, 18, 3)
    assert not list(tmp_path.glob("*.tmp"))
    again.add(_batch(2, 3))
    assert again.shard_paths()[-1].name == "shard-000003.npz"


def test_sample_puts_targets_on_the_stored_legal_steps_only(tmp_path):
    buf = ReplayBuffer(tmp_path, window=1000)
    batches = [_batch(6, g, seed=10 + g) for g in range(2)]
    for b in batches:
        buf.add(b)
    s = buf.sample(64, np.random.default_rng(0), num_actions=20)
    assert s.obs.shape == (64, 3, 4, 4) and s.obs.dtype == np.float32
    assert np.all(s.policy[~s.mask] == 0)
    np.testing.assert_allclose(s.policy.sum(axis=1), 1.0, rtol=1e-5)
    # every sampled row equals one stored position: (plies_left identifies it in its game)
    stored = {}
    for b in batches:
        for i in range(b.num_positions):
            lo, hi = b.legal_offsets[i], b.legal_offsets[i + 1]
            stored[(b.game_index[i], b.plies_left[i])] = set(b.legal_actions[lo:hi].tolist())
    for row in range(64):
        matches = [
            k
            for k, acts in stored.items()
            if k[1] == s.plies_left[row] and acts == set(np.flatnonzero(s.mask[row]))
        ]
        assert matches


def test_window_keeps_the_newest_positions(tmp_path):
    buf = ReplayBuffer(tmp_path, window=10)
    for g in range(5):
        b = _batch(6, g, seed=g)
        # the value target tags the game (g / 4 stays in the value range [-1, 1])
        buf.add(GameBatch(**{**b.__dict__, "value": np.full(6, g / 4, np.float32)}))
    s = buf.sample(300, np.random.default_rng(1), num_actions=20)
    # the newest 10 of 30 positions: game 4 (plies_left 0..5) and game 3's last four
    assert set(s.value.tolist()) == {0.75, 1.0}
    assert s.plies_left[s.value == 0.75].min() == 2
    assert buf.num_positions == 30 and buf.num_games == 5


def test_unreadable_shard_is_set_aside_with_a_warning(tmp_path, caplog):
    buf = ReplayBuffer(tmp_path, window=100)
    buf.add(_batch(3, 0))
    buf.add(_batch(3, 1))
    (tmp_path / "shard-000000.npz").write_bytes(b"not a zip file")
    with pytest.raises(ShardError, match="shard-000000.npz"):
        load_shard(tmp_path / "shard-000000.npz")
    with caplog.at_level(logging.WARNING):
        again = ReplayBuffer(tmp_path, window=100)
    assert again.num_games == 1 and again.num_shards == 2
    assert "shard-000000.npz" in caplog.text and "set aside" in caplog.text
    assert (tmp_path / "shard-000000.npz.corrupt").read_bytes() == b"not a zip file"


def test_inconsistent_batch_is_rejected(tmp_path):
    b = _batch(3, 0)
    bad = GameBatch(**{**b.__dict__, "value": np.ones(2, np.float32)})
    with pytest.raises(ShardError):
        ReplayBuffer(tmp_path, window=10).add(bad)
    assert not list(tmp_path.glob("shard-*"))


def test_empty_buffer_cannot_be_sampled(tmp_path):
    with pytest.raises(ValueError, match="empty"):
        ReplayBuffer(tmp_path, window=10).sample(4, np.random.default_rng(0), 20)
