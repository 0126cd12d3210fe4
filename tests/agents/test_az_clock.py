"""``az:...,time=SECONDS``: the network player searches until its time per move is spent."""

from __future__ import annotations

import time

import numpy as np
import pytest

from drl.agents import is_batched, is_timed, make
from drl.nn.evaluator import UniformEvaluator
from drl.rules import Board
from drl.search import BatchedMCTS, Roots, SearchConfig, halving_schedule


def sparse_checkpoint(folder):
    """A seeded small ``sparse`` network (English board) saved as a checkpoint."""
    import torch

    from drl import nn as drl_nn
    from drl.encode.actions import num_actions
    from drl.encode.planes import N_CHANNELS
    from drl.nn.checkpoint import save_checkpoint

    torch.manual_seed(0)
    net = drl_nn.build(
        "sparse",
        in_channels=N_CHANNELS,
        board_size=8,
        num_actions=num_actions(8),
        hidden=32,
        hidden2=8,
    )
    with torch.no_grad():
        for p in net.parameters():
            p.normal_(0.0, 0.3)
    payload = {"model": net.state_dict(), **drl_nn.describe(net), "counters": {}}
    payload["variant"] = "english"
    return save_checkpoint(folder / "ckpt", 1, payload)


@pytest.mark.parametrize("m, n", [(1, 5), (2, 9), (3, 20), (4, 8), (16, 50), (16, 200)])
def test_a_schedule_run_past_its_plan_keeps_the_plan_and_goes_on_with_the_last_phase(m, n):
    planned = halving_schedule(m, n)
    longer = halving_schedule(m, n, 3 * n + 7)
    assert longer[:n].tolist() == planned.tolist()
    tail = longer[n:]
    if m == 1:
        assert tail.tolist() == list(range(n, 3 * n + 7))
        return
    # past the plan, the two last survivors are visited in turn: each count twice, rising
    full = longer[len(longer) - len(tail) - (len(tail) % 2) :]
    assert np.all(np.diff(tail) >= 0)
    assert np.all(np.diff(tail) <= 1)
    values, counts = np.unique(full[1:-1] if len(full) > 2 else full, return_counts=True)
    assert np.all(counts[1:-1] == 2)
    with pytest.raises(ValueError, match="length"):
        halving_schedule(m, n, n - 1)


@pytest.mark.parametrize("root_selection", ["gumbel", "puct"])
def test_a_search_on_a_clock_stops_at_its_deadline(root_selection):
    """The batched path (an evaluator without a compiled forward pass) reads the clock
    after every round; far more simulations are allowed than the time fits."""
    board = Board("english")
    cfg = SearchConfig(num_simulations=200_000, root_selection=root_selection)
    mcts = BatchedMCTS(cfg, batch_size=2, board_size=8)
    roots = Roots.from_positions([board.state, board.state], board.variant.params)
    rng = np.random.default_rng(0)
    mcts.run(roots, UniformEvaluator(), rng, budgets=np.array([4, 4]), explore=False)  # warm up
    for seconds in (0.05, 0.2):
        t0 = time.perf_counter()
        res = mcts.run(roots, UniformEvaluator(), rng, explore=False, deadline=t0 + seconds)
        spent = time.perf_counter() - t0
        # generous: a process of a loaded machine can wait a tenth of a second for a core
        assert seconds * 0.8 < spent < seconds + 0.25
        assert 0 < res.simulations < cfg.num_simulations  # the clock, not the budget, ended it
        assert res.visits.sum() == pytest.approx(res.simulations, abs=2)
        assert mcts.speed is not None and mcts.speed > 0
    assert np.all(res.action >= 0) and np.all(res.legal[np.arange(2), res.action])


def test_az_with_time_is_an_agent_on_a_clock_and_not_batched(tmp_path):
    path = sparse_checkpoint(tmp_path)
    assert is_batched(f"az:ckpt={path}") and not is_timed(f"az:ckpt={path}")
    assert not is_batched(f"az:ckpt={path},time=0.1") and is_timed(f"az:ckpt={path},time=0.1")
    assert is_timed("alphabeta:time=0.5") and not is_timed("alphabeta:depth=3")
    assert not is_timed("random")
    agent = make(f"az:ckpt={path},time=0.02")
    assert not agent.batched and agent.player.time == 0.02
    with pytest.raises(ValueError, match="time"):
        make(f"az:ckpt={path},time=0")
    from drl.agents.az import AZAgent

    with pytest.raises(ValueError, match="finite number of seconds"):
        AZAgent(str(path), time=float("nan"))


def _timed_moves(agent, moves, seed=0):
    """Seconds of ``moves`` searched moves of ``agent`` in games from random openings."""
    rng = np.random.default_rng(seed)
    agent.check_variant("english")  # as the arena does before a game (off the clock)
    board, spent = None, []
    while len(spent) < moves:
        if board is None or board.outcome() is not None or board.ply > 120:
            board = Board("english")
            for _ in range(4):
                legal = board.legal_moves
                board.push(legal[int(rng.integers(len(legal)))])
        forced = len(board.legal_moves) == 1
        t0 = time.perf_counter()
        move = agent.select_move(board)
        if not forced:
            spent.append(time.perf_counter() - t0)
        board.push(move)
    return np.array(spent)


def test_az_time_spends_about_its_time_on_every_move(tmp_path):
    """A short version of the clock's check, with bounds a loaded machine keeps (the slow
    test holds the clock to 10% over 100 moves): the search neither ignores its time nor
    stops at once."""
    agent = make(f"az:ckpt={sparse_checkpoint(tmp_path)},time=0.05")
    spent = _timed_moves(agent, 20)
    assert 0.05 * 0.5 < spent.mean() < 0.05 * 2, spent
    assert spent.max() < 0.05 * 6, spent
    assert agent.player.simulations > 20 * 50  # it searched, not just waited


@pytest.mark.slow
def test_az_time_holds_its_clock_over_100_moves(tmp_path):
    """Over 100 moves at time=0.1 the mean is within 10% of it, no move over twice it."""
    agent = make(f"az:ckpt={sparse_checkpoint(tmp_path)},time=0.1")
    spent = _timed_moves(agent, 100)
    assert abs(spent.mean() - 0.1) < 0.01, (spent.mean(), spent.max())
    assert spent.max() < 0.2, (spent.mean(), spent.max())
