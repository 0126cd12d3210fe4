"""The compiled vector env: spaces, consistency with the encoder, resets, errors, seeds."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import drl.envs  # noqa: F401  (registers the ids)
from drl.encode import num_actions
from drl.encode.mask import mask_from_moves
from drl.envs import _kernels as K
from drl.envs.vector import DraughtsVectorEnv
from drl.game import kernels as G
from drl.rules.core import generate_moves


def _random_actions(rng, masks):
    # A finished game (empty mask) gets a dummy action: it is reset on this step.
    return np.array(
        [rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks], dtype=np.int64
    )


@pytest.mark.parametrize(
    "env_id", ["drl/English-v0", "drl/GiveAndTake-Giver-v0", "drl/International-v0"]
)
def test_random_play_is_consistent(env_id):
    envs = gym.make_vec(env_id, num_envs=6, max_plies=80)
    assert isinstance(envs, DraughtsVectorEnv)
    obs, info = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    params2 = envs._params2
    ended = 0
    needs_reset = np.zeros(6, dtype=bool)
    for _ in range(150):
        assert envs.observation_space.contains(obs)
        # The masks are those of the encoder for each game's position and move in progress.
        for i in range(6):
            # (recomputed from scratch here, not with the game core's kernels)
            mask = np.zeros(num_actions(envs.variant.board_size), dtype=np.int8)
            pos = envs._pos[i]
            params = params2[envs._ws[i, K.W_AGENT]]
            moves = np.zeros_like(envs._rows[i])
            n = generate_moves(pos[:12].copy(), params, moves)
            mask_from_moves(
                moves,
                n,
                pos[4],
                params,
                pos[G.G_PREFIX : G.G_PREFIX + G.MAX_STEPS],
                pos[G.G_PLEN],
                mask,
            )
            assert np.array_equal(mask, obs["action_mask"][i])
            if not needs_reset[i]:  # a game that goes on: the agent is to move
                assert mask.any()
                assert envs._pos[i, 4] == info["agent_color"][i]
        actions = _random_actions(rng, obs["action_mask"])
        actions[needs_reset] = -5  # ignored: those games restart this step
        obs, rewards, terminated, truncated, info = envs.step(actions)
        assert not (terminated & truncated).any()
        assert np.all(rewards[~terminated] == 0)
        assert np.all(np.isin(rewards[terminated], (-1.0, 0.0, 1.0)))
        if terminated.any():
            winner = info["winner"][terminated]
            agent = info["agent_color"][terminated]
            expected = np.where(winner == 2, 0.0, np.where(winner == agent, 1.0, -1.0))
            assert np.array_equal(rewards[terminated], expected)
        assert np.all(envs._pos[truncated, 9] == 80)  # ST_PLY
        ended += int(terminated.sum() + truncated.sum())
        needs_reset = terminated | truncated
    assert ended > 0


def test_illegal_actions_raise_or_lose():
    envs = DraughtsVectorEnv(3, "english", agent_color="black", illegal_action="raise")
    obs, _ = envs.reset(seed=1)
    states = envs._pos.copy()
    actions = np.array([np.flatnonzero(m)[0] for m in obs["action_mask"]])
    bad = actions.copy()
    bad[1] = np.flatnonzero(obs["action_mask"][1] == 0)[0]
    with pytest.raises(ValueError, match=rf"illegal action {bad[1]} in game 1"):
        envs.step(bad)
    assert np.array_equal(envs._pos, states)
    with pytest.raises(ValueError, match="expected 3 actions"):
        envs.step(actions[:2])
    lose = DraughtsVectorEnv(3, "english")  # the default: an illegal action loses
    obs, _ = lose.reset(seed=1)
    bad = np.array([np.flatnonzero(m)[0] for m in obs["action_mask"]])
    bad[2] = 10_000
    _, rewards, terminated, _, _ = lose.step(bad)
    assert terminated.tolist() == [False, False, True] and rewards[2] == -1.0
    with pytest.raises(ValueError, match="opponent"):
        DraughtsVectorEnv(2, opponent="greedy")


def test_same_seed_same_run():
    def run(seed):
        envs = DraughtsVectorEnv(4, "russian", max_plies=60)
        obs, info = envs.reset(seed=seed)
        rng = np.random.default_rng(seed)
        total = [info["agent_color"].tolist()]
        for _ in range(60):
            obs, r, te, tr, info = envs.step(_random_actions(rng, obs["action_mask"]))
            total.append((obs["observation"].sum(), r.tolist(), te.tolist(), tr.tolist()))
        return total

    assert run(3) == run(3)
    assert run(3) != run(4)


def test_roles_follow_the_agent_colour():
    envs = DraughtsVectorEnv(8, "give_and_take", role="giver")
    obs, info = envs.reset(seed=0)
    own_give = obs["observation"][:, 6, 0, 0]
    assert np.all(own_give == 1.0)
    assert set(info["agent_color"].tolist()) == {0, 1}
    assert envs._pos.shape == (8, G.POS_SIZE)


def test_game_moves_need_recording():
    envs = DraughtsVectorEnv(2, "english")
    envs.reset(seed=0)
    with pytest.raises(RuntimeError, match="record_moves=True"):
        envs.game_moves(0)
    rec = DraughtsVectorEnv(2, "english", agent_color="white", record_moves=True)
    rec.reset(seed=0)
    assert len(rec.game_moves(1)) == 1  # black (the random opponent) moved first
    with pytest.raises(IndexError):
        rec.game_moves(2)


# -- sizes: a number of games whose buffers cannot fit is refused before allocating -----------


def test_a_number_of_envs_whose_buffers_cannot_fit_in_memory_is_refused():
    # About 560 KB per game (the 512 KiB legal-move rows are most of it): 10**12 games
    # would need 560 PB; the buffers used to be allocated until memory ran out.
    with pytest.raises(ValueError, match=r"num_envs=1000000000000 needs .* GiB") as info:
        gym.make_vec("drl/English-v0", num_envs=10**12)
    message = str(info.value)
    assert "memory limit of" in message and "games fit" in message
    with pytest.raises(ValueError, match=r"max_plies=1000000000000"):
        DraughtsVectorEnv(1, "english", max_plies=10**12)  # the history grows with max_plies
    # sizes past int64 and past a float are refused the same way, briefly
    with pytest.raises(ValueError, match="an integer of about 401 digits") as info:
        DraughtsVectorEnv(10**400, "english")
    assert len(str(info.value)) < 400
    with pytest.raises(ValueError, match="not even one game fits"):
        DraughtsVectorEnv(1, "english", max_plies=10**400)


def test_the_memory_limit_decides_how_many_envs_fit(monkeypatch):
    from drl.envs import vector

    per_env = vector.bytes_per_env(8, 400)
    monkeypatch.setattr(vector, "memory_limit", lambda: 5 * per_env + per_env // 2)
    assert DraughtsVectorEnv(5, "english").num_envs == 5
    with pytest.raises(ValueError, match="at most 5 games fit"):
        DraughtsVectorEnv(6, "english")
    with pytest.raises(ValueError, match="at most 5 games fit"):
        gym.make_vec("drl/English-v0", num_envs=6)
    monkeypatch.setattr(vector, "memory_limit", lambda: None)  # unknown: not checked
    assert DraughtsVectorEnv(6, "english").num_envs == 6


@pytest.mark.parametrize("variant, record", [("english", False), ("international", True)])
def test_bytes_per_env_counts_every_buffer_of_the_env(variant, record):
    from drl.envs.vector import bytes_per_env, memory_limit

    envs = DraughtsVectorEnv(3, variant, max_plies=50, record_moves=record)
    arrays = sum(a.nbytes for a in vars(envs).values() if isinstance(a, np.ndarray))
    estimate = 3 * bytes_per_env(envs.variant.board_size, 50, record)
    assert arrays <= estimate <= 1.1 * arrays  # plus the spaces' bounds and a step's copy
    limit = memory_limit()
    assert limit is None or limit > 2**20
