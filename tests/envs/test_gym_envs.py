"""Gymnasium envs: registration, the env checker, steps, roles, truncation, rendering."""

from __future__ import annotations

import json
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from drl.encode import step_index
from drl.envs import ENV_IDS, DraughtsEnv
from drl.envs.render import KING_MARK
from drl.rules import Board
from drl.rules.geometry import square_to_rowcol
from drl.rules.pdn import read_games, replay, result_for_white, variant_for_game

EXPECTED_IDS = {
    "drl/GiveAndTake-Taker-v0",
    "drl/GiveAndTake-Giver-v0",
    "drl/GiveAndTake-BothGivers-v0",
    "drl/GiveAndTake10x10-Taker-v0",
    "drl/GiveAndTake10x10-Giver-v0",
    "drl/English-v0",
    "drl/Russian-v0",
    "drl/Brazilian-v0",
    "drl/International-v0",
    "drl/Giveaway-v0",
    "drl/Losing-v0",
}


def test_all_ids_are_registered_on_import():
    assert set(ENV_IDS) == EXPECTED_IDS
    assert EXPECTED_IDS <= set(gym.registry)
    env = gym.make("drl.envs:drl/English-v0")
    assert isinstance(env.unwrapped, DraughtsEnv)


@pytest.mark.parametrize("env_id", sorted(EXPECTED_IDS))
def test_env_checker_passes_with_default_arguments(env_id):
    # Gymnasium's checker steps unmasked samples of the action space: only an env that
    # ends the game on an illegal action (the default, as in PettingZoo) passes it.
    env = gym.make(env_id)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert not caught, [str(w.message) for w in caught]
    obs, info = env.reset(seed=3)
    n = env.unwrapped.variant.board_size
    assert obs["observation"].shape == (22, n, n)
    assert obs["action_mask"].shape == ((n * n // 2) * 4 * (n - 1),)
    assert np.array_equal(info["action_mask"], obs["action_mask"])
    assert np.array_equal(env.unwrapped.action_masks(), obs["action_mask"].astype(bool))


def _play_random(env, seed, max_steps=2000):
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    trace = [obs["observation"].sum()]
    for _ in range(max_steps):
        legal = np.flatnonzero(obs["action_mask"])
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        trace.append(obs["observation"].sum())
        if terminated or truncated:
            return trace, reward, terminated, truncated, info
    raise AssertionError("episode did not end")


@pytest.mark.parametrize(
    "env_id", ["drl/English-v0", "drl/GiveAndTake-Giver-v0", "drl/International-v0"]
)
def test_episodes_end_with_a_consistent_outcome_and_pdn(env_id):
    env = gym.make(env_id, max_plies=150)
    for seed in range(3):
        _, reward, terminated, truncated, info = _play_random(env, seed)
        assert terminated != truncated
        board = env.unwrapped.board
        # The PDN at the end replays to the same position.
        game = next(read_games(info["pdn"]))
        assert replay(game).fen() == board.fen()
        if terminated:
            outcome = board.outcome()
            assert info["outcome"] == outcome and info["termination"] == outcome.termination.name
            assert reward == outcome.value(("black", "white").index(info["agent_color"]))
            # The file's own convention (English-board files give Black's score first).
            assert result_for_white(game.result, variant_for_game(game)) == outcome.result
            assert info["result"] == outcome.result
        else:
            assert board.outcome() is None
            assert info["termination"] == "max_plies" and reward == 0 and info["winner"] is None
            assert board.ply == 150 and game.result == "*"


def test_same_seed_same_episode_and_seeds_differ():
    env = gym.make("drl/English-v0")
    a = _play_random(env, 42)
    b = _play_random(env, 42)
    assert a[0] == b[0] and a[4]["pdn"] == b[4]["pdn"]
    pdns = {_play_random(env, s)[4]["pdn"] for s in range(4)}
    assert len(pdns) > 1


def test_illegal_action_raises_naming_the_action_and_the_legal_ones():
    env = gym.make("drl/English-v0", agent_color="black", illegal_action="raise")
    obs, _ = env.reset(seed=0)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match=rf"illegal action {illegal}\b.*legal actions: .*9-13"):
        env.step(illegal)
    with pytest.raises(ValueError, match="illegal action 5000"):
        env.step(5000)
    # Nothing was played: a legal action still works, and the opponent replies.
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert env.unwrapped.board.ply == 2


def test_illegal_action_loses_the_game_by_default():
    env = gym.make("drl/English-v0", agent_color="white")
    obs, _ = env.reset(seed=0)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["termination"] == "illegal_action" and info["winner"] == "black"
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_multi_jump_takes_several_steps_by_the_agent(cases_dir):
    case = json.loads(next(cases_dir.glob("031-*.json")).read_text())
    env = gym.make("drl/English-v0", agent_color="white")
    obs, _ = env.reset(seed=1, options={"fen": case["fen"]})
    params = env.unwrapped.variant.params
    first = int(step_index(27, 18, 1, params))  # 28x19
    second = int(step_index(18, 9, 1, params))  # 19x10
    assert obs["action_mask"][first] and obs["action_mask"].sum() == 2
    obs, reward, terminated, truncated, info = env.step(first)
    assert not terminated and reward == 0
    assert np.flatnonzero(obs["action_mask"]).tolist() == [second]
    assert info["ply"] == 0 and env.unwrapped.prefix == (first,)
    assert obs["observation"][5].sum() == 1  # the jumping piece is marked
    obs, *_, info = env.step(second)
    assert env.unwrapped.prefix == ()
    assert info["ply"] >= 1


def test_role_semantics_same_final_position(cases_dir):
    # DESIGN section 2: when the Giver's last piece is captured the Taker wins
    # (elimination_winner=taker, the default); the flag turns it round.
    taker = gym.make("drl/GiveAndTake-Taker-v0", agent_color="white")
    obs, info = taker.reset(seed=0, options={"fen": "W:W22:B18"})
    assert info["role"] == "taker"
    _, reward, terminated, _, info = taker.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert terminated and reward == 1.0
    assert info["termination"] == "GIVER_ELIMINATED" and info["winner"] == "white"
    final = taker.unwrapped.board.fen()

    giver = gym.make("drl/GiveAndTake-Giver-v0", agent_color="black")
    obs, info = giver.reset(seed=0, options={"fen": "B:W22:B14"})
    assert info["role"] == "giver"
    _, reward, terminated, _, info = giver.step(
        int(step_index(13, 17, 0, giver.unwrapped.variant.params))
    )  # 14-18, then 22x15
    assert terminated and reward == -1.0 and info["winner"] == "white"
    assert giver.unwrapped.board.fen() == final

    literal = gym.make(
        "drl/GiveAndTake-Giver-v0",
        agent_color="black",
        variant_options={"elimination_winner": "giver"},
    )
    literal.reset(seed=0, options={"fen": "B:W22:B14"})
    _, reward, terminated, _, info = literal.step(
        int(step_index(13, 17, 0, literal.unwrapped.variant.params))
    )
    assert terminated and reward == 1.0 and info["winner"] == "black"


def test_blocked_giver_wins_unless_the_flag_says_it_loses():
    # Black (Taker, the agent) plays 21-25; White's man on 29 is then blocked (25 and 22
    # are taken). Seed 000 rule 11: a blocked Giver with pieces left wins.
    for options, expected in ((None, -1.0), ({"blocked_giver": "loses"}, 1.0)):
        env = gym.make("drl/GiveAndTake-Taker-v0", agent_color="black", variant_options=options)
        env.reset(seed=0, options={"fen": "B:W29:B21,22"})
        _, reward, terminated, _, info = env.step(
            int(step_index(20, 24, 0, env.unwrapped.variant.params))
        )
        assert terminated and reward == expected
        assert info["termination"] == "BLOCKED"
        assert info["winner"] == ("white" if expected < 0 else "black")


def test_truncation_is_not_a_draw_by_rule():
    env = gym.make("drl/English-v0", max_plies=4, agent_color="black")
    obs, _ = env.reset(seed=5)
    for _ in range(2):
        obs, reward, terminated, truncated, info = env.step(
            int(np.flatnonzero(obs["action_mask"])[0])
        )
    assert truncated and not terminated and reward == 0.0
    assert info["termination"] == "max_plies" and info["outcome"] is None
    assert env.unwrapped.board.ply == 4


def test_variant_options_and_bad_arguments():
    env = gym.make("drl/GiveAndTake-Taker-v0", variant_options="max_capture=true")
    assert env.unwrapped.variant.max_capture
    env = gym.make("drl/GiveAndTake-Taker-v0", variant_options={"board_size": 10})
    assert env.observation_space["observation"].shape == (22, 10, 10)
    assert env.action_space.n == 1800
    with pytest.raises(ValueError, match="agent_color"):
        DraughtsEnv(agent_color="red")
    with pytest.raises(ValueError, match="illegal_action"):
        DraughtsEnv(illegal_action="ignore")
    with pytest.raises(ValueError, match="max_plies"):
        DraughtsEnv(max_plies=0)
    with pytest.raises(ValueError, match="role"):
        DraughtsEnv(variant="english", role="taker")
    with pytest.raises(ValueError, match="flag"):
        DraughtsEnv(variant_options={"no_such_flag": 1})
    with pytest.raises(ValueError, match="opponent"):
        DraughtsEnv(opponent=3)


def test_give_and_take_roles_follow_the_agent_colour():
    for env_id, role in (
        ("drl/GiveAndTake-Taker-v0", "taker"),
        ("drl/GiveAndTake-Giver-v0", "giver"),
    ):
        env = gym.make(env_id)
        colours = set()
        for seed in range(8):
            _, info = env.reset(seed=seed)
            assert info["role"] == role
            assert info["objective"] == ("take" if role == "taker" else "give")
            colours.add(info["agent_color"])
        assert colours == {"black", "white"}
    env = gym.make("drl/GiveAndTake-BothGivers-v0")
    _, info = env.reset(seed=0)
    assert info["objective"] == "give" and info["role"] == "giver"


def test_render_ansi_and_rgb():
    env = gym.make("drl/English-v0", render_mode="ansi", agent_color="black")
    env.reset(seed=0, options={"fen": "B:W21,K28:B5,K9"})
    text = env.render()
    lines = text.splitlines()
    diagram = "".join(line[:16] for line in lines[:8])
    assert sorted(diagram.replace(" ", "").replace(".", "")) == ["B", "W", "b", "w"]
    assert diagram.count(".") == 28
    assert lines[-1] == "Black to move"
    # The squares are named by their numbers, as in the moves (9-14, 28x19), each beside
    # its place on the board: 1..4 on the top rank, 29..32 on the bottom one.
    assert lines[0].split()[-4:] == ["1", "2", "3", "4"] and lines[7].split()[-1] == "32"
    assert not any(c in "acdefgh" for line in lines[:8] for c in line)  # no a..h labels
    for square, piece in ((5, "b"), (9, "B"), (21, "w"), (28, "W")):
        r, c = square_to_rowcol(square - 1, 8)
        assert lines[r][2 * c] == piece
        assert lines[r][16 + 3 + 3 * c : 16 + 6 + 3 * c].strip() == str(square)
    # Russian draughts names squares a1..h8: files and ranks are written round the board.
    env = gym.make("drl/Russian-v0", render_mode="ansi")
    env.reset(seed=0)
    lines = env.render().splitlines()
    assert lines[0].startswith(" 8 ") and lines[8].split() == list("abcdefgh")
    env = gym.make("drl/English-v0", render_mode="rgb_array", agent_color="black")
    env.reset(seed=0, options={"fen": "B:W21,K28:B5,K9"})
    img = env.render()
    assert img.shape == (256, 256, 3) and img.dtype == np.uint8

    def centre(square_1based):
        r, c = square_to_rowcol(square_1based - 1, 8)
        return tuple(img[r * 32 + 16, c * 32 + 16])

    assert centre(28) == KING_MARK and centre(9) == KING_MARK
    assert centre(21) != KING_MARK and centre(5) != KING_MARK
    assert centre(21) != centre(5)  # white and black men differ
    env = gym.make("drl/International-v0", render_mode="rgb_array")
    env.reset(seed=0)
    assert env.render().shape == (320, 320, 3)


def test_other_opponents_come_from_the_agent_registry_or_an_object():
    env = gym.make("drl/GiveAndTake-Taker-v0", opponent="greedy", max_plies=40)
    _, reward, terminated, truncated, info = _play_random(env, 0)
    assert terminated or truncated
    if terminated:
        assert info["outcome"] == env.unwrapped.board.outcome()

    class FirstMove:
        """Always the first legal move; remembers the boards it was shown."""

        def __init__(self):
            self.seen = 0

        def reset(self, seed=None):
            self.seen = 0

        def select_move(self, board):
            self.seen += 1
            return board.legal_moves[0]

    opponent = FirstMove()
    env = gym.make("drl/English-v0", opponent=opponent, agent_color="white", max_plies=6)
    _, reward, terminated, truncated, info = _play_random(env, 0)
    assert truncated and opponent.seen == 3
    board = env.unwrapped.board
    black_moves = board.move_stack[0::2]
    replay_board = Board("english")
    for i, move in enumerate(board.move_stack):
        if i % 2 == 0:
            assert move == replay_board.legal_moves[0]
        replay_board.push(move)
    assert len(black_moves) == 3
    with pytest.raises(ValueError, match="unknown|agent|spec"):
        DraughtsEnv(opponent="no_such_agent")
