"""Search roots from the game core's batch: ``Roots.from_games`` is the field-by-field
copy of each game's position, and a search from it is the search from the same boards'
``Roots.from_positions``."""

from __future__ import annotations

import numpy as np

from drl.encode.actions import num_actions
from drl.game import kernels as G
from drl.game.batch import GameStates
from drl.nn.evaluator import UniformEvaluator
from drl.rules import Board
from drl.rules.core import MOVE_WIDTH, ST_PLY, STATE_SIZE
from drl.search import BatchedMCTS, Roots, SearchConfig

FIELDS = ("states", "prefixes", "prefix_lens", "repetitions", "params", "history", "history_len")


def _boards(seed: int) -> list[Board]:
    rng = np.random.default_rng(seed)
    boards = []
    for spec, plies in [("english", 11), ("give_and_take", 4), ("russian", 17), ("english", 0)]:
        b = Board(spec)
        for _ in range(plies):
            if b.outcome() is not None:
                break
            moves = b.legal_moves
            b.push(moves[int(rng.integers(len(moves)))])
        boards.append(b)
    return boards


def _field_by_field(games: GameStates) -> Roots:
    """The roots as self-play and the network agent each used to build them."""
    pos = games.pos
    return Roots(
        states=pos[:, :STATE_SIZE].copy(),
        prefixes=pos[:, G.G_PREFIX : G.G_PREFIX + G.MAX_STEPS].copy(),
        prefix_lens=pos[:, G.G_PLEN].copy(),
        repetitions=pos[:, G.G_REPS].copy(),
        params=games.params,
        history=games.hist,
        history_len=pos[:, ST_PLY] + 1,
    )


def _assert_same(a: Roots, b: Roots) -> None:
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


def test_roots_of_games_are_their_positions_field_by_field_mid_move_too():
    games = GameStates.from_boards(_boards(0))
    rng = np.random.default_rng(3)
    b = len(games)
    count, single = np.zeros(b, np.int64), np.zeros(b, np.int64)
    played, result = np.zeros((b, MOVE_WIDTH), np.int64), np.zeros(b, np.int64)
    mid_move = 0
    moves = G.move_buffer()
    for _ in range(40):
        active = games.pos[:, G.G_CODE] == -1
        _assert_same(Roots.from_games(games), _field_by_field(games))
        mid_move += int((games.pos[:, G.G_PLEN] > 0).sum())
        games.legal_counts(active, count, single)
        actions = np.full(b, -1, np.int64)
        for i in np.flatnonzero(active):
            mask = np.zeros(num_actions(8), np.int8)
            G.generate(games.pos[i], games.params[i], moves)
            G.legal_mask(games.pos[i], games.params[i], moves, mask)
            legal = np.flatnonzero(mask)
            actions[i] = legal[int(rng.integers(len(legal)))]
        games.step(actions, active, played, result)
    assert mid_move > 0  # some roots were inside a multi-jump


def test_a_search_from_games_is_the_search_from_the_same_boards_positions():
    boards = _boards(5)
    boards = [b for b in boards if b.outcome() is None]
    games = GameStates.from_boards(boards)
    by_positions = Roots.from_positions(
        [b.state for b in boards],
        [b.variant.params for b in boards],
        histories=[list(b.history()[:-1]) for b in boards],
    )
    by_games = Roots.from_games(games)
    for name in ("states", "prefixes", "prefix_lens", "repetitions", "params", "history_len"):
        np.testing.assert_array_equal(getattr(by_games, name), getattr(by_positions, name))
    known = by_positions.history.shape[1]  # from_games keeps one entry more, for a move
    np.testing.assert_array_equal(by_games.history[:, :known], by_positions.history)
    results = []
    for roots in (by_games, by_positions):
        mcts = BatchedMCTS(SearchConfig(num_simulations=24), len(boards), 8, max_plies=0)
        res = mcts.run(roots, UniformEvaluator(), np.random.default_rng(0), explore=False)
        results.append((res.action, res.visits, res.root_value))
    for a, b in zip(*results, strict=True):
        np.testing.assert_array_equal(a, b)
