"""PettingZoo AEC env: the library's API test, roles, turn keeping through multi-jumps."""

from __future__ import annotations

import json

import numpy as np
import pytest
from pettingzoo.test import api_test

from drl.encode import step_index
from drl.envs.pettingzoo import env, raw_env


@pytest.mark.filterwarnings(
    "ignore:.*(space|agents to be named|NumPy array|unknown reset options).*:UserWarning"
)
@pytest.mark.parametrize("variant", ["english", "give_and_take", "international"])
def test_pettingzoo_api_test_passes(variant):
    api_test(env(variant=variant, max_plies=120), num_cycles=200)


@pytest.mark.filterwarnings(
    "ignore:.*(space|agents to be named|NumPy array|unknown reset options).*:UserWarning"
)
def test_pettingzoo_api_test_passes_with_default_arguments():
    e = env()
    assert e.unwrapped.illegal_action == "lose" and e.unwrapped.max_plies == 200
    api_test(e, num_cycles=300)


def test_roles_are_in_infos():
    e = env(variant="give_and_take", variant_options={"taker": "white"})
    e.reset(seed=0)
    assert e.infos["white"]["role"] == "taker" and e.infos["black"]["role"] == "giver"
    e = env(variant="english")
    e.reset()
    assert e.infos["black"]["role"] is None and e.infos["black"]["objective"] == "take"


def test_same_agent_keeps_acting_through_a_multi_jump(cases_dir):
    case = json.loads(next(cases_dir.glob("031-*.json")).read_text())
    e = env(variant="english")
    e.reset(options={"fen": case["fen"]})
    params = e.unwrapped.variant.params
    assert e.agent_selection == "white"
    black_obs = e.observe("black")
    assert not black_obs["action_mask"].any()
    e.step(int(step_index(27, 18, 1, params)))  # 28x19
    assert e.agent_selection == "white"
    obs = e.observe("white")
    assert np.flatnonzero(obs["action_mask"]).tolist() == [int(step_index(18, 9, 1, params))]
    e.step(int(step_index(18, 9, 1, params)))  # 19x10
    assert e.agent_selection == "black"


def test_game_end_rewards_and_illegal_actions():
    # Give and Take, White takes: 22x15 captures the Giver's last piece (rule case 036).
    e = env(variant="give_and_take", variant_options={"taker": "white"}, illegal_action="raise")
    e.reset(options={"fen": "W:W22:B18"})
    with pytest.raises(ValueError, match="legal actions: .*22x15"):
        e.step(0)
    e.step(int(np.flatnonzero(e.observe("white")["action_mask"])[0]))
    assert e.terminations == {"black": True, "white": True}
    assert e.rewards == {"black": -1, "white": 1}
    assert e.infos["white"]["termination"] == "GIVER_ELIMINATED"
    assert "22x15" in e.infos["white"]["pdn"]
    lose = raw_env(variant="english")  # the default: an illegal action loses
    lose.reset()
    lose.step(0)
    assert lose.rewards == {"black": -1, "white": 1}
    assert lose.infos["black"]["termination"] == "illegal_action"


def test_truncation_after_max_plies():
    e = env(variant="english", max_plies=3)
    e.reset()
    for _ in range(3):
        agent = e.agent_selection
        while e.agent_selection == agent and not e.truncations[agent]:
            e.step(int(np.flatnonzero(e.observe(agent)["action_mask"])[0]))
    assert all(e.truncations.values()) and not any(e.terminations.values())
    assert e.infos["black"]["termination"] == "max_plies"
    assert e.rewards == {"black": 0, "white": 0}
