"""The PDN the envs write records the right winner in every file convention.

English-board files (GameType 21) put Black's score first, so a Black win is ``1-0``
there and ``0-1`` elsewhere; reading the file back with ``result_for_white`` must give
the winner of the game whatever the convention.
"""

from __future__ import annotations

import numpy as np
import pytest

from drl.envs import DraughtsEnv
from drl.envs.pettingzoo import raw_env
from drl.rules import Board, Color
from drl.rules.pdn import read_games, result_for_white, variant_for_game

# (variant, position where the side to move has one move, and after it Black has won)
BLACK_WINS = [
    ("english", "B:W22:B18"),  # 18x25 takes White's last piece
    ("give_and_take", "B:W22:B18"),  # the Taker (Black) takes the Giver's last piece
    ("losing", "W:W22:B18"),  # White must take Black's last piece: Black wins
    ("international", "B:W33:B28"),  # 28x39 takes White's last piece
]


def _read_back(pdn: str) -> str:
    game = next(read_games(pdn))
    return result_for_white(game.result, variant_for_game(game))


@pytest.mark.parametrize("variant, fen", BLACK_WINS)
def test_gym_env_pdn_reads_back_as_a_black_win(variant, fen):
    mover = "black" if fen[0] == "B" else "white"
    env = DraughtsEnv(variant, agent_color=mover)
    obs, _ = env.reset(seed=0, options={"fen": fen})
    (action,) = np.flatnonzero(obs["action_mask"])
    _, reward, terminated, _, info = env.step(int(action))
    assert terminated and info["winner"] == "black"
    assert reward == (1.0 if mover == "black" else -1.0)
    assert info["result"] == "0-1"  # the info dict keeps White's score first
    assert _read_back(info["pdn"]) == "0-1"
    assert Board(variant, fen=fen).variant == variant_for_game(next(read_games(info["pdn"])))


@pytest.mark.parametrize("variant, fen", BLACK_WINS)
def test_pettingzoo_pdn_reads_back_as_a_black_win(variant, fen):
    env = raw_env(variant=variant)
    env.reset(options={"fen": fen})
    mover = env.agent_selection
    (action,) = np.flatnonzero(env.observe(mover)["action_mask"])
    env.step(int(action))
    info = env.infos["black"]
    assert info["winner"] == "black" and env.rewards["black"] == 1
    assert _read_back(info["pdn"]) == "0-1"


def test_illegal_action_loss_is_written_for_the_right_side():
    # English, the agent (White) plays an illegal action under illegal_action="lose":
    # Black wins, and the GameType 21 file must say so in its own convention.
    env = DraughtsEnv("english", agent_color="white", illegal_action="lose")
    env.reset(seed=0, options={"fen": "W:W22:B18"})
    _, reward, terminated, _, info = env.step(0)
    assert terminated and reward == -1.0 and info["winner"] == "black"
    assert _read_back(info["pdn"]) == "0-1"
    assert Color.BLACK.name.lower() == info["winner"]
