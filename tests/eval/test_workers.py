"""Games spread over worker processes: the same games whatever the number of workers."""

from __future__ import annotations

import pytest

from drl.eval.arena import match_tasks, run_games
from tests.agents.test_az_clock import sparse_checkpoint


def _content(records):
    timed = ("seconds", "clock")
    return [{k: v for k, v in r.to_dict().items() if k not in timed} for r in records]


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    return sparse_checkpoint(tmp_path_factory.mktemp("net"))


def test_az_games_are_the_same_with_one_two_or_three_workers(checkpoint):
    """The network's games are seeded per game, not per worker: each number of workers
    plays the same games (here a batched agent's games split 8 / 4+4 / 3+3+2)."""
    tasks = match_tasks(f"az:ckpt={checkpoint},sims=24", "greedy", "english", 8, 2, 5, 60)
    runs = {w: run_games(tasks, workers=w, progress=False, in_flight=3) for w in (1, 2, 3)}
    assert _content(runs[2]) == _content(runs[1])
    assert _content(runs[3]) == _content(runs[1])
    assert len({r.moves for r in runs[1]}) > 1  # distinct games, not one replayed
    for rec in runs[2]:
        moves, seconds, most = rec.clock_of(rec.black)
        assert moves == (rec.plies + 1) // 2 and 0 < most <= seconds


def test_a_network_agent_object_plays_in_workers_as_in_this_process(checkpoint):
    """Training's evaluation passes the network as an agent object: it is sent to the
    workers once, pickled, and plays the same games there."""
    from drl.agents.az import AZAgent

    agent = AZAgent(str(checkpoint), sims=16, device="cpu")
    tasks = match_tasks(agent, "random", "english", 4, 2, 3, 40)
    one, two = (run_games(tasks, workers=w, progress=False, in_flight=2) for w in (1, 2))
    assert _content(two) == _content(one)
    assert agent.player._mcts is not None  # it played here once, and was still pickled


def test_a_worker_error_reaches_the_caller_with_its_message(checkpoint):
    tasks = match_tasks("random", f"az:ckpt={checkpoint},sims=8", "international", 2, 0)
    with pytest.raises(ValueError, match="board"):
        run_games(tasks, workers=2, progress=False)


def test_games_on_a_clock_get_a_worker_and_a_core_each(monkeypatch):
    """A game with an agent on a clock goes only to a worker holding nothing, and only
    to as many workers as there are cores; batched games share a worker."""
    from drl.eval import workers as W

    monkeypatch.setattr(W, "usable_cpus", lambda: 2)
    pool = W.GamePool(processes=3, in_flight=2)
    assert pool.timed_workers == 2

    class Held:
        def __init__(self, held, alone):
            self.held, self.alone = held, alone

    pool._workers = [Held(1, True), None, None]
    assert pool._choose(batched=False, timed=True) == 1
    pool._workers[1] = Held(1, True)
    assert pool._choose(batched=False, timed=True) is None  # the third has no core of its own
    assert pool._choose(batched=False, timed=False) == 2
    pool._workers = [Held(1, False), Held(2, False), None]
    assert pool._choose(batched=True, timed=False) == 2
    pool._workers[2] = Held(1, False)
    assert pool._choose(batched=True, timed=False) == 0  # the least loaded with room
    assert pool._choose(batched=False, timed=True) is None


def test_results_hold_each_players_clock_and_the_table_shows_both(tmp_path, capsys):
    import json

    from drl.agents import make
    from drl.cli.eval import run
    from drl.eval.config import EvalConfig
    from drl.rules import Board

    for spec in ("alphabeta:time=0.02", "greedy"):  # compiled before the clock runs
        make(spec).select_move(Board("english"))

    cfg = EvalConfig(
        agents=["alphabeta:time=0.02", "greedy"],
        games=2,
        workers=1,
        max_plies=30,
        plot=False,
        progress=False,
    )
    results = run(cfg, tmp_path)
    clocks = json.loads((tmp_path / "results.json").read_text())["clocks"]
    assert clocks == json.loads(json.dumps(results["clocks"]))
    ab, greedy = clocks["alphabeta:time=0.02"], clocks["greedy"]
    assert ab["moves"] == sum(
        r["clock"][c][0]
        for r in results["games"]
        for c in ("black", "white")
        if r[c] == "alphabeta:time=0.02"
    )
    assert 0.005 < ab["mean_s"] <= ab["max_s"] < 0.2
    assert greedy["mean_s"] < ab["mean_s"]
    out = capsys.readouterr().out
    assert "ms/move" in out
    assert f"{1000 * ab['mean_s']:.0f}/{1000 * ab['max_s']:.0f}" in out
