"""One game core: every consumer that plays games reaches the same end of the same game.

Thousands of random games per preset are played in the vector env (the compiled batched
path); each finished game is replayed move by move on a :class:`~drl.rules.Board` (the
checked, pure-Python-facing rules API), and a sample of them through the single-agent
env, the PettingZoo env, the functional :class:`~drl.game.StepState`, the arena's game
loop (two agents replaying the game) and the search's in-tree game (a search from the
position before the last step must find that step's node terminal, with the game's value).
All must agree on how the game ended (termination, winner, truncation) and on its value
for each player. ``DRL_CORE_GAMES`` sets the games per preset (default 500).
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from drl.agents import Agent
from drl.encode.actions import move_to_actions
from drl.envs.gym_env import DraughtsEnv
from drl.envs.pettingzoo import raw_env
from drl.envs.vector import DraughtsVectorEnv
from drl.eval.arena import GameTask, play_game
from drl.game import StepState
from drl.game import kernels as G
from drl.nn.evaluator import UniformEvaluator
from drl.rules import Board, Move
from drl.search import BatchedMCTS, Roots, SearchConfig

PRESETS = [
    "english",
    "russian",
    "brazilian",
    "international",
    "giveaway",
    "losing",
    "give_and_take",
]
GAMES = int(os.environ.get("DRL_CORE_GAMES", "500"))
MAX_PLIES = 120
SAMPLE = 10  # every SAMPLE-th game also goes through the slower consumers


class Scripted(Agent):
    """A player that replays the recorded moves of its colour."""

    name = "scripted"

    def __init__(self, moves: list[Move]) -> None:
        self.moves = moves

    def reset(self, seed=None) -> None:
        pass

    def select_move(self, board: Board) -> Move:
        return self.moves[board.ply]


def _vector_games(preset: str, games: int, seed: int):
    """Random games of the vector env: (variant, agent colour, moves, end) per game, where
    end is ("terminated", reward, winner) or ("truncated",)."""
    envs = DraughtsVectorEnv(32, preset, max_plies=MAX_PLIES, record_moves=True)
    obs, info = envs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < games:
        masks = obs["action_mask"]
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        agents = info["agent_color"]
        obs, rewards, terminated, truncated, info = envs.step(actions)
        for i in np.flatnonzero(terminated | truncated):
            agent = int(agents[i])
            end = (
                ("terminated", float(rewards[i]), int(info["winner"][i]))
                if terminated[i]
                else ("truncated",)
            )
            out.append((envs._variants[agent], agent, envs.game_moves(i), end))
    return out[:games]


def _board_end(variant, moves):
    board = Board(variant)
    for move in moves:
        assert board.outcome() is None
        board.push(move)  # checked: every move the vector env played is legal
    return board


def _gym_end(variant, agent, moves):
    env = DraughtsEnv(
        variant,
        opponent=Scripted(moves),
        agent_color=("black", "white")[agent],
        max_plies=MAX_PLIES,
    )
    env.reset(seed=0)
    board = Board(variant)
    result = None
    for move in moves:
        if board.turn == agent:
            for a in move_to_actions(move, agent, variant.params):
                assert result is None
                _, reward, terminated, truncated, info = env.step(a)
                if terminated or truncated:
                    result = (terminated, truncated, reward, info["winner"])
        board.push(move)
    return result


def _pettingzoo_end(variant, moves):
    env = raw_env(variant=variant, max_plies=MAX_PLIES)
    env.reset(seed=0)
    turn = Board(variant)
    for move in moves:
        for a in move_to_actions(move, int(turn.turn), variant.params):
            env.step(a)
        turn.push(move)
    return (
        {ag: env.terminations[ag] for ag in env.agents},
        {ag: env._cumulative_rewards[ag] for ag in env.agents},
    )


def _step_state_end(variant, moves):
    state = StepState.from_board(Board(variant))
    for move in moves:
        for a in move_to_actions(move, state.turn, variant.params):
            state, _ = state.push(a)
    return state


def _arena_end(variant, moves):
    scripted = Scripted(moves)
    task = GameTask(
        index=0,
        black_spec=scripted,
        white_spec=scripted,
        black_name="a",
        white_name="b",
        variant=str(variant),
        opening=None,
        opening_index=0,
        seed=0,
        max_plies=MAX_PLIES,
    )
    return play_game(task)


def _search_end(variant, moves, outcome):
    """Search from the position before the game's last step; return the terminal code and
    the mean backed-up value (root player's view) of that step's edge."""
    board = Board(variant)
    for move in moves[:-1]:
        board.push(move)
    steps = move_to_actions(moves[-1], int(board.turn), variant.params)
    ply = int(board.state[9])
    roots = Roots.from_positions(
        [board.state],
        variant.params,
        prefixes=[steps[:-1]],
        histories=[board.history()[:ply].tolist()],
    )
    config = SearchConfig(num_simulations=256, root_selection="gumbel", gumbel_max_considered=256)
    mcts = BatchedMCTS(config, batch_size=1, board_size=variant.board_size)
    mcts.run(roots, UniformEvaluator(), np.random.default_rng(0), explore=False)
    tree = mcts.tree
    start, count = int(tree.edge_start[0, 0]), int(tree.edge_count[0, 0])
    for e in range(start, start + count):
        if int(tree.action[0, e]) == steps[-1]:
            child = int(tree.child[0, e])
            assert child >= 0, "the search never expanded the game's last step"
            mean = float(tree.edge_value_sum[0, e]) / int(tree.edge_visits[0, e])
            return int(tree.pos[0, child, G.G_CODE]), mean, int(board.turn)
    raise AssertionError("the game's last step is not a root edge of the search")


@pytest.mark.parametrize("preset", PRESETS)
def test_every_consumer_reaches_the_same_end(preset):
    games = _vector_games(preset, GAMES, seed=PRESETS.index(preset))
    ends = {"terminated": 0, "truncated": 0}
    for n, (variant, agent, moves, end) in enumerate(games):
        ends[end[0]] += 1
        board = _board_end(variant, moves)
        outcome = board.outcome()
        if end[0] == "terminated":
            assert outcome is not None, (preset, n, board.fen())
            assert end[1] == outcome.value(agent)
            assert end[2] == (2 if outcome.winner is None else int(outcome.winner))
        else:
            assert outcome is None and board.ply == MAX_PLIES
        if n % SAMPLE:
            continue
        gym_end = _gym_end(variant, agent, moves)
        if gym_end is not None:  # the agent's last step ended or truncated the episode
            terminated, truncated, reward, winner = gym_end
            assert terminated == (outcome is not None)
            if terminated:
                assert reward == outcome.value(agent)
        terms, rewards = _pettingzoo_end(variant, moves)
        if outcome is not None:
            assert all(terms.values())
            for ag, color in (("black", 0), ("white", 1)):
                assert rewards[ag] == outcome.value(color)
        else:
            assert not any(terms.values())
        record = _arena_end(variant, moves)
        if outcome is None:
            assert record.termination == "max_plies" and record.result == "*"
        else:
            assert record.termination == outcome.termination.name.lower()
            assert record.winner == (
                None if outcome.winner is None else ("black", "white")[int(outcome.winner)]
            )
            code, mean, mover = _search_end(variant, moves, outcome)
            assert code == int(outcome.termination) * 4 + (
                2 if outcome.winner is None else int(outcome.winner)
            )
            assert mean == pytest.approx(outcome.value(mover))
        final = _step_state_end(variant, moves)
        assert np.array_equal(final.state, board.state)
        if outcome is not None and outcome.termination.name != "THREEFOLD_REPETITION":
            # a StepState has no history: every other end is decided by the position
            assert final.outcome == outcome
    assert ends["terminated"] > 0, ends  # (flying-king presets rarely reach the cap)
