"""Batched step-level MCTS: winning moves from terminal values alone, masking, value signs,
repetition inside the tree, Gumbel schedule."""

import json

import numpy as np
import pytest

from drl.encode.actions import step_index
from drl.nn.evaluator import UniformEvaluator
from drl.rules import Board
from drl.rules.core import ST_HASH
from drl.search import BatchedMCTS, Evaluation, Roots, SearchConfig, halving_schedule

MODES = ["puct", "gumbel"]


def _search(
    board_or_boards,
    mode="puct",
    sims=64,
    evaluate=None,
    explore=False,
    seed=0,
    histories=None,
    prefixes=None,
):
    boards = board_or_boards if isinstance(board_or_boards, list) else [board_or_boards]
    variant = boards[0].variant
    roots = Roots.from_positions(
        [b.state for b in boards],
        [b.variant.params for b in boards],
        prefixes=prefixes,
        histories=histories,
    )
    mcts = BatchedMCTS(
        SearchConfig(num_simulations=sims, root_selection=mode),
        batch_size=len(boards),
        board_size=variant.board_size,
        max_plies=0,
    )
    return mcts.run(
        roots, evaluate or UniformEvaluator(), np.random.default_rng(seed), explore=explore
    )


def _step(board, a, b):
    """Action index of the hop between 1-based squares a -> b for the side to move."""
    return step_index(a - 1, b - 1, int(board.turn), board.variant.params)


# W:W7,22,23:B10,18 -- white to move has two captures: 22x15x6 takes both black men
# (black is left without pieces), 23x14 takes one (7 blocks the second jump).
WIN_FEN = "W:W7,22,23:B10,18"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("variant", ["english", "give_and_take:taker=white"])
def test_uniform_network_finds_the_winning_multi_jump(mode, variant):
    board = Board(variant, fen=WIN_FEN)
    res = _search(board, mode=mode)
    win, other = _step(board, 22, 15), _step(board, 23, 14)
    assert set(np.flatnonzero(res.legal[0])) == {win, other}
    assert res.action[0] == win
    # Every simulation through 22x15 but the first (which meets the network's 0 at the
    # mid-jump node) continues 15x6 by the same player and ends in a win for white, so
    # its mean value is close to +1 for white (a sign flip mid-jump would give -1).
    n = res.visits[0, win]
    assert res.q[0, win] == pytest.approx((n - 1) / n)
    if mode == "puct":  # Gumbel halving with two actions splits the visits evenly
        assert res.visits[0, win] > res.visits[0, other]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("winner", ["taker", "giver"])
def test_giver_offers_its_last_piece_only_when_that_wins(mode, winner):
    # Give and Take, black Taker, white Giver with one man on 22. 22-18 lets black's
    # 15 jump it (15x22, forced), which eliminates the Giver: a win for the player named
    # by elimination_winner. 22-17 leads to no capture.
    board = Board(f"give_and_take:elimination_winner={winner}", fen="W:W22:B15")
    res = _search(board, mode=mode, sims=32)
    to18, to17 = _step(board, 22, 18), _step(board, 22, 17)
    assert set(np.flatnonzero(res.legal[0])) == {to17, to18}
    n = res.visits[0, to18]
    if winner == "giver":
        assert res.action[0] == to18
        assert res.q[0, to18] == pytest.approx((n - 1) / n)
    else:
        assert res.action[0] == to17
        assert res.q[0, to18] == pytest.approx(-(n - 1) / n)


@pytest.mark.parametrize("mode", MODES)
def test_never_selects_a_masked_step(mode):
    rng = np.random.default_rng(1)
    boards = []
    for variant in ["give_and_take", "english", "russian"]:
        for _ in range(4):
            b = Board(variant)
            for _ in range(int(rng.integers(0, 30))):
                if b.is_game_over():
                    break
                moves = b.legal_moves
                b.push(moves[int(rng.integers(len(moves)))])
            if b.is_game_over():
                b = Board(variant)
            boards.append(b)
    for i in range(0, len(boards), 4):
        group = boards[i : i + 4]
        res = _search(group, mode=mode, sims=24, explore=True, seed=i)
        for j, b in enumerate(group):
            legal_steps = {
                step_index(m.path[0], m.path[1], int(b.turn), b.variant.params)
                for m in b.legal_moves
            }
            assert set(np.flatnonzero(res.legal[j])) == legal_steps
            assert res.legal[j, res.action[j]]
            assert np.all(res.visits[j][~res.legal[j]] == 0)
            assert np.all(res.policy[j][~res.legal[j]] == 0)
            assert res.policy[j].sum() == pytest.approx(1.0, abs=1e-5)
            assert res.visits[j].sum() == 24


class _Material:
    """Stand-in network: uniform policy, value 0.3 * (own pieces - opponent pieces)."""

    def __call__(self, obs, mask):
        own = obs[:, 0:2].sum(axis=(1, 2, 3))
        opp = obs[:, 2:4].sum(axis=(1, 2, 3))
        return Evaluation(np.zeros(mask.shape, np.float32), (0.3 * (own - opp)).astype(np.float32))


def _history(board):
    replay = board.root().copy()
    hashes = []
    for move in board.move_stack:
        hashes.append(int(replay.state[ST_HASH]))
        replay.push(move)
    return hashes


def test_threefold_repetition_is_a_draw_inside_the_tree():
    board = Board("english", fen="W:WK1:BK29,K32")
    for mv in ["1-5", "32-28", "5-1", "28-32", "1-5", "32-28", "5-1"]:
        board.push(mv)
    # Black to move: 28-32 repeats W:WK1:BK29,K32 a third time, a draw worth exactly 0.
    # Any other line keeps black a king up, which the stand-in network values +0.3.
    back = _step(board, 28, 32)
    res = _search(board, sims=40, evaluate=_Material(), histories=[_history(board)])
    assert res.visits[0, back] > 0
    assert res.q[0, back] == 0.0
    assert res.action[0] != back
    blind = _search(board, sims=40, evaluate=_Material())  # history unknown: no repetition
    assert blind.q[0, back] == pytest.approx(0.3)


def test_mid_jump_root_keeps_the_player(cases_dir):
    case = json.loads((cases_dir / "031-rl-multijump-steps-keep-the-same-player.json").read_text())
    board = Board(case["variant"]["name"], fen=case["fen"])
    first = {_step(board, *map(int, s.split("x"))) for s in case["expected"]["legal_first_steps"]}
    res = _search(board, sims=16)
    assert set(np.flatnonzero(res.legal[0])) == first
    step = _step(board, 28, 19)
    cont = _step(board, 19, 10)  # white still moves: the same frame
    res = _search(board, sims=16, prefixes=[(step,)])
    assert set(np.flatnonzero(res.legal[0])) == {cont}
    assert res.action[0] == cont


def test_search_is_reproducible_with_a_seed():
    board = Board("give_and_take")
    a = _search([board, board], mode="gumbel", sims=16, explore=True, seed=5)
    b = _search([board, board], mode="gumbel", sims=16, explore=True, seed=5)
    assert np.array_equal(a.visits, b.visits) and np.array_equal(a.action, b.action)


def test_budgets_and_inactive_roots():
    board = Board("english")
    roots = Roots.from_positions([board.state] * 3, board.variant.params)
    mcts = BatchedMCTS(SearchConfig(num_simulations=20), batch_size=3, board_size=8)
    res = mcts.run(
        roots,
        UniformEvaluator(),
        np.random.default_rng(0),
        active=np.array([True, False, True]),
        budgets=np.array([20, 20, 5]),
    )
    assert res.visits[0].sum() == 20 and res.visits[2].sum() == 5
    assert res.visits[1].sum() == 0 and res.action[1] == -1
    with pytest.raises(ValueError, match="budgets"):
        mcts.run(roots, UniformEvaluator(), np.random.default_rng(0), budgets=np.array([21] * 3))


def test_halving_schedule_by_hand():
    # m = 4 actions, n = 8: the four each get one visit, then the best two get two more.
    assert halving_schedule(4, 8).tolist() == [0, 0, 0, 0, 1, 1, 2, 2]
    assert halving_schedule(1, 3).tolist() == [0, 1, 2]
    assert len(halving_schedule(16, 50)) == 50
    with pytest.raises(ValueError):
        halving_schedule(0, 4)


def test_bad_search_config():
    with pytest.raises(ValueError, match="root_selection"):
        SearchConfig(root_selection="ucb")


def test_edges_grow_without_changing_the_search():
    board = Board("russian")
    roots = Roots.from_positions([board.state] * 2, board.variant.params)
    results = []
    for capacity in [1, 4096]:
        mcts = BatchedMCTS(
            SearchConfig(num_simulations=40, root_selection="puct"),
            batch_size=2,
            board_size=8,
            edge_capacity=capacity,
        )
        results.append(mcts.run(roots, _Material(), np.random.default_rng(3)))
        assert mcts.edge_capacity >= int(mcts.tree.num_edges.max())
    small, large = results
    for field in ["action", "visits", "q", "policy", "root_value"]:
        assert np.array_equal(getattr(small, field), getattr(large, field)), field


def _sampled_actions(temperature=1.0, plies=16, explore=True, mode="puct", fen=None, n=40):
    board = Board("english", fen=fen) if fen else Board("english")
    roots = Roots.from_positions([board.state] * n, board.variant.params)
    cfg = SearchConfig(
        num_simulations=16, root_selection=mode, temperature=temperature, temperature_plies=plies
    )
    mcts = BatchedMCTS(cfg, batch_size=n, board_size=8)
    return mcts.run(roots, UniformEvaluator(), np.random.default_rng(11), explore=explore)


def test_puct_samples_the_played_action_by_temperature_while_exploring():
    res = _sampled_actions()
    # Every root is searched alike, each with its own noise; the sampled actions are
    # visited steps, and they differ from the most visited step in some games.
    assert np.all(res.visits[np.arange(len(res.action)), res.action] > 0)
    assert np.any(res.action != np.argmax(res.visits, axis=1))
    for off in [
        _sampled_actions(temperature=0.0),
        _sampled_actions(plies=0),
        _sampled_actions(explore=False),
    ]:
        assert np.array_equal(off.action, np.argmax(off.visits, axis=1))


def test_gumbel_action_ignores_the_temperature():
    hot, cold = _sampled_actions(mode="gumbel"), _sampled_actions(mode="gumbel", temperature=0.0)
    assert np.array_equal(hot.action, cold.action)


def test_bad_temperature():
    with pytest.raises(ValueError, match="temperature"):
        SearchConfig(temperature=-1.0)
