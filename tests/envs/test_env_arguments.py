"""Env arguments that are not what they look like are refused with a clear error:
non-integer actions, unknown agents and reset options, variant flags that clash with an
env id, and episodes cut short before the agent moves."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import drl.envs  # noqa: F401  (registers the ids)
from drl.encode.actions import action_index
from drl.envs import DraughtsEnv, DraughtsVectorEnv
from drl.envs.pettingzoo import raw_env

NOT_INTEGERS = [
    595.7,
    595.0,
    "595",
    b"5",
    None,
    True,
    np.float64(3.0),
    np.bool_(True),
    np.array([1.5]),
    np.array(["7"]),
    [3],
]


@pytest.mark.parametrize("bad", NOT_INTEGERS)
def test_action_index_refuses_what_is_not_an_integer(bad):
    with pytest.raises(ValueError, match="integer step index"):
        action_index(bad)


def test_action_index_accepts_integers_of_every_kind():
    for good in (5, np.int64(5), np.int8(5), np.uint16(5), np.array(5), np.array([5])):
        assert action_index(good) == 5 and type(action_index(good)) is int


@pytest.mark.parametrize("bad", [595.7, "595", 1.0, True])
def test_gym_env_step_refuses_non_integer_actions_and_plays_nothing(bad):
    env = DraughtsEnv("english", agent_color="black")
    obs, _ = env.reset(seed=0)
    legal = int(np.flatnonzero(obs["action_mask"])[0])
    with pytest.raises(ValueError, match="integer step index"):
        env.step(float(legal) + 0.7 if bad == 595.7 else bad)
    assert env.unwrapped.board.ply == 0 and env.prefix == ()
    env.step(np.int64(legal))  # numpy integers are fine
    assert env.unwrapped.board.ply >= 1


def test_pettingzoo_step_refuses_non_integer_actions():
    env = raw_env(variant="english")
    env.reset()
    legal = int(np.flatnonzero(env.observe("black")["action_mask"])[0])
    for bad in (float(legal), str(legal), float(legal) + 0.5):
        with pytest.raises(ValueError, match="integer step index"):
            env.step(bad)
    assert env.agent_selection == "black" and env._game.plies == 0
    env.step(np.int32(legal))
    assert env.agent_selection == "white"


def test_vector_env_refuses_non_integer_actions():
    envs = DraughtsVectorEnv(2, "english")
    obs, _ = envs.reset(seed=0)
    legal = np.array([np.flatnonzero(m)[0] for m in obs["action_mask"]])
    with pytest.raises(ValueError, match="integer step indices"):
        envs.step(legal + 0.5)
    with pytest.raises(ValueError, match="integer step indices"):
        envs.step([str(a) for a in legal])
    envs.step(legal.astype(np.int32))


def test_pettingzoo_unknown_agent_lists_the_agents():
    env = raw_env(variant="english")
    env.reset()
    for method in (env.observe, env.observation_space, env.action_space):
        with pytest.raises(ValueError, match="unknown agent 'red'.*black, white"):
            method("red")
    assert env.observation_space("white") is env.observation_space("white")


def test_pettingzoo_reset_names_unknown_options():
    # A warning, not an error: PettingZoo's API test resets with {"options": 1} and
    # expects it to be accepted. The Gymnasium env raises.
    env = raw_env(variant="english")
    with pytest.warns(UserWarning, match="unknown reset options.*bogus"):
        env.reset(options={"fen": "W:W22:B18", "bogus": 1})
    assert env.agent_selection == "white"  # the fen option was still used
    with pytest.raises(ValueError, match="unknown reset options.*bogus"):
        DraughtsEnv("english").reset(options={"bogus": 1})


def test_gym_make_options_that_clash_with_the_env_id_say_so():
    with pytest.raises(
        ValueError, match="board_size=8 conflicts with the variant 'give_and_take:board_size=10'"
    ):
        gym.make("drl/GiveAndTake10x10-Taker-v0", variant_options={"board_size": 8})
    # Repeating the id's own value, or adding other flags, is fine.
    env = gym.make(
        "drl/GiveAndTake10x10-Taker-v0", variant_options={"board_size": 10, "max_capture": True}
    )
    assert env.unwrapped.variant.board_size == 10 and env.unwrapped.variant.max_capture
    with pytest.raises(ValueError, match="twice"):
        DraughtsEnv("english", variant_options="max_capture=true,max_capture=false")


def test_reset_says_whether_the_game_was_decided_or_truncated_before_the_agent_moves():
    with pytest.raises(ValueError, match="max_plies=1 is used up"):
        DraughtsEnv("english", agent_color="white", max_plies=1).reset(seed=0)
    with pytest.raises(ValueError, match="decided.*NO_PIECES"):
        DraughtsEnv("english", agent_color="white").reset(seed=0, options={"fen": "B:W22:B18"})
    # Black moves first in English: a 1-ply cap still lets a Black agent move.
    obs, _ = DraughtsEnv("english", agent_color="black", max_plies=1).reset(seed=0)
    assert obs["action_mask"].any()


def test_pettingzoo_step_after_everyone_is_done_says_so():
    env = raw_env(variant="english")
    env.reset(options={"fen": "W:W22:B18"})
    env.step(int(np.flatnonzero(env.observe("white")["action_mask"])[0]))  # 22x15 wins
    while env.agents:
        env.step(None)  # each done agent is stepped out with None
    with pytest.raises(RuntimeError, match="reset"):
        env.step(None)


@pytest.mark.parametrize("bad", [True, 0, 2.0, "2"])
def test_vector_env_needs_a_positive_integer_number_of_envs(bad):
    with pytest.raises(ValueError, match="num_envs"):
        DraughtsVectorEnv(bad, "english")


@pytest.mark.parametrize("max_plies", [10**12, 2**70])
def test_a_huge_max_plies_allocates_nothing_up_front(max_plies):
    # The move log used to be allocated for max_plies + 2 moves (256 TB for 10**12).
    env = gym.make("drl/English-v0", max_plies=max_plies, agent_color="black")
    obs, _ = env.reset(seed=0)
    for _ in range(3):
        obs, reward, terminated, truncated, _ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        assert not truncated
    assert env.unwrapped.max_plies == max_plies
