"""sb3-contrib ``MaskablePPO`` trains on the envs without ever choosing an illegal step."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import drl.envs  # noqa: F401  (registers the ids)

sb3_contrib = pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")


class _CountingEnv(gym.Wrapper):
    """Counts agent steps and checks each one against the mask it was offered."""

    def __init__(self, env):
        super().__init__(env)
        self.steps = 0
        self._mask = None

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        self._mask = obs["action_mask"]
        return obs, info

    def step(self, action):
        assert self._mask[int(action)], f"illegal action {action} chosen"
        self.steps += 1
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._mask = obs["action_mask"]
        return obs, reward, terminated, truncated, info

    def action_masks(self):
        return self.env.unwrapped.action_masks()


@pytest.mark.parametrize("env_id", ["drl/GiveAndTake-Taker-v0", "drl/International-v0"])
def test_maskable_ppo_runs_without_illegal_actions(env_id):
    torch.set_num_threads(1)
    env = _CountingEnv(gym.make(env_id, max_plies=60, illegal_action="raise"))
    model = sb3_contrib.MaskablePPO(
        "MultiInputPolicy",
        env,
        n_steps=128,
        batch_size=64,
        n_epochs=1,
        seed=0,
        policy_kwargs={"net_arch": [16]},
        device="cpu",
        verbose=0,
    )
    model.learn(total_timesteps=256)
    assert env.steps >= 256
    obs, _ = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert obs["action_mask"][int(action)]


def test_action_masks_work_through_subprocess_vec_env():
    from stable_baselines3.common.vec_env import SubprocVecEnv

    vec = SubprocVecEnv([lambda: gym.make("drl/English-v0") for _ in range(2)], start_method="fork")
    try:
        obs = vec.reset()
        masks = np.stack(vec.env_method("action_masks"))
        assert masks.shape == (2, 896) and masks.dtype == bool
        assert np.array_equal(masks, obs["action_mask"].astype(bool))
    finally:
        vec.close()
