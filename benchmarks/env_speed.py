"""Env and encoder speed, side by side with OpenSpiel's ``checkers`` in the same run.

Measures, with uniformly random legal actions:

- drl env steps/s (English, International), through the env class directly and through
  ``gymnasium.make`` (which adds the checker and order-enforcing wrappers). One env step
  is one step action of the agent plus, when its move is complete, the random
  opponent's reply, and returns the planes and the mask;
- the vector env (``DraughtsVectorEnv``, 256 games stepped in one compiled call), with
  random legal actions drawn by a small compiled sampler;
- the batched encoder: states/s for batches of 256 positions (planes + masks);
- OpenSpiel ``checkers`` stepped through ``pyspiel``: ``legal_actions()`` +
  ``apply_action()`` per step, and again with ``observation_tensor()`` per step (what an
  RL env hands out), for the same number of steps.

Run: ``python benchmarks/env_speed.py [--steps 20000]``. Not a test; prints a table.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit


@njit(cache=True)
def _random_legal(masks, uniforms, out):
    """A uniformly random legal action per row of ``masks`` (``int8[B, A]``)."""
    for i in range(masks.shape[0]):
        count = 0
        for a in range(masks.shape[1]):
            count += masks[i, a]
        pick = int(uniforms[i] * count)
        for a in range(masks.shape[1]):
            if masks[i, a]:
                if pick == 0:
                    out[i] = a
                    break
                pick -= 1


def vector_env_steps(variant: str, num_envs: int, steps: int, seed: int = 0) -> float:
    """Env steps/s (games x steps) of the vector env with random legal actions."""
    from drl.envs.vector import DraughtsVectorEnv

    envs = DraughtsVectorEnv(num_envs, variant, copy=False)
    rng = np.random.default_rng(seed)
    actions = np.zeros(num_envs, dtype=np.int64)
    obs, _ = envs.reset(seed=seed)
    _random_legal(obs["action_mask"], rng.random(num_envs), actions)
    envs.step(actions)
    calls = max(1, steps // num_envs)
    t0 = time.perf_counter()
    for _ in range(calls):
        _random_legal(obs["action_mask"], rng.random(num_envs), actions)
        obs, *_ = envs.step(actions)
    return calls * num_envs / (time.perf_counter() - t0)


def drl_env_steps(env, steps: int, seed: int = 0) -> float:
    """Steps/s of random masked actions on a Gymnasium-style env (resets included)."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    t0 = time.perf_counter()
    for _ in range(steps):
        legal = np.flatnonzero(obs["action_mask"])
        obs, _, terminated, truncated, _ = env.step(int(legal[rng.integers(len(legal))]))
        if terminated or truncated:
            obs, _ = env.reset()
    return steps / (time.perf_counter() - t0)


def openspiel_steps(steps: int, observe: bool, seed: int = 0) -> float:
    """Steps/s of random legal actions on OpenSpiel ``checkers`` (restarts included)."""
    import pyspiel

    game = pyspiel.load_game("checkers")
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    t0 = time.perf_counter()
    for _ in range(steps):
        legal = state.legal_actions()
        state.apply_action(legal[rng.integers(len(legal))])
        if state.is_terminal():
            state = game.new_initial_state()
        if observe:
            state.observation_tensor(state.current_player())
    return steps / (time.perf_counter() - t0)


def sample_positions(variant: str, count: int, seed: int = 0):
    """``count`` positions (states, prefixes, prefix lengths) from random games."""
    from drl.encode import MAX_STEPS
    from drl.rules import Board

    rng = np.random.default_rng(seed)
    states = []
    board = Board(variant)
    while len(states) < count:
        moves = board.legal_moves
        if not moves or board.is_game_over() or board.ply > 150:
            board = Board(variant)
            continue
        states.append(np.array(board.state))
        board.push(moves[int(rng.integers(len(moves)))])
    return (np.stack(states), np.zeros((count, MAX_STEPS), dtype=np.int64),
            np.zeros(count, dtype=np.int64))


def encoder_states_per_s(variant: str, batch: int = 256, repeats: int = 40) -> float:
    """States/s of ``encode_batch`` + ``legal_masks_batch`` on batches of ``batch``."""
    from drl.encode import N_CHANNELS, encode_batch, num_actions
    from drl.game.kernels import legal_masks_batch
    from drl.rules import Variant

    params = Variant.parse(variant).params
    n = int(params[1])
    states, prefixes, lens = sample_positions(variant, batch)
    reps = np.zeros(batch, dtype=np.int64)
    planes = np.zeros((batch, N_CHANNELS, n, n), dtype=np.float32)
    masks = np.zeros((batch, num_actions(n)), dtype=np.bool_)
    encode_batch(states, params, prefixes, lens, reps, planes)  # compile / warm up
    legal_masks_batch(states, params, prefixes, lens, masks)
    t0 = time.perf_counter()
    for _ in range(repeats):
        encode_batch(states, params, prefixes, lens, reps, planes)
        legal_masks_batch(states, params, prefixes, lens, masks)
    return batch * repeats / (time.perf_counter() - t0)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20000, help="steps per measurement")
    args = parser.parse_args(argv)

    import gymnasium as gym

    import drl.envs  # noqa: F401  (registers the ids)
    from drl.envs import DraughtsEnv

    # Warm up the compiled kernels (numba cache) before timing.
    for variant in ("english", "international"):
        drl_env_steps(DraughtsEnv(variant), 200)
    openspiel_steps(200, observe=False)

    rows = []
    plain = openspiel_steps(args.steps, observe=False)
    observed = openspiel_steps(args.steps, observe=True)
    rows.append(("OpenSpiel checkers: legal_actions + apply_action", plain, None))
    rows.append(("OpenSpiel checkers: + observation_tensor", observed, None))
    for variant, env_id in (("english", "drl/English-v0"),
                            ("international", "drl/International-v0")):
        direct = drl_env_steps(DraughtsEnv(variant), args.steps)
        wrapped = drl_env_steps(gym.make(env_id), args.steps)
        rows.append((f"drl {variant} env (DraughtsEnv)", direct, plain))
        rows.append((f"drl {variant} env (gym.make, wrapped)", wrapped, plain))
        rows.append((f"drl {variant} vector env, 256 games",
                     vector_env_steps(variant, 256, 10 * args.steps), plain))
    for variant in ("english", "international"):
        rows.append((f"drl encoder {variant}, batch 256 (planes+masks)",
                     encoder_states_per_s(variant), None))

    width = max(len(r[0]) for r in rows)
    print(f"{'measurement':<{width}}  {'per second':>12}  {'vs OpenSpiel plain':>18}")
    for name, rate, ref in rows:
        ratio = f"{rate / ref:.2f}x" if ref else ""
        print(f"{name:<{width}}  {rate:>12,.0f}  {ratio:>18}")
    print(f"({args.steps} steps per env measurement; env steps include the random "
          f"opponent's replies and the observation)")


if __name__ == "__main__":
    main()
