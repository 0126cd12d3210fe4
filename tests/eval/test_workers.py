"""Games spread over worker processes: the same games whatever the number of workers."""

from __future__ import annotations

import pytest

from drl.eval.arena import match_tasks, run_games
from drl.eval.settings import MatchSettings
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
    tasks = match_tasks(
        f"az:ckpt={checkpoint},sims=24",
        "greedy",
        "english",
        8,
        MatchSettings(openings=2, seed=5, max_plies=60),
    )
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
    tasks = match_tasks(
        agent, "random", "english", 4, MatchSettings(openings=2, seed=3, max_plies=40)
    )
    one, two = (run_games(tasks, workers=w, progress=False, in_flight=2) for w in (1, 2))
    assert _content(two) == _content(one)
    assert agent.player._mcts is not None  # it played here once, and was still pickled


def test_a_worker_error_reaches_the_caller_with_its_message(checkpoint):
    tasks = match_tasks(
        "random", f"az:ckpt={checkpoint},sims=8", "international", 2, MatchSettings(openings=0)
    )
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


def test_the_pool_runs_the_first_games_agents_here_before_starting_a_worker(monkeypatch):
    """The kernels of a match's agents are compiled (or loaded) in this process before any
    worker starts, so that the workers find them in numba's cache."""
    from drl.eval import workers as W

    order: list[str] = []
    monkeypatch.setattr(W, "warm_agents", lambda task: order.append(f"warm {task.index}"))
    start = W.GamePool._start
    monkeypatch.setattr(
        W.GamePool, "_start", lambda self, i: (order.append("start"), start(self, i))[1]
    )
    tasks = match_tasks(
        "random", "greedy", "english", 4, MatchSettings(openings=2, seed=3, max_plies=20)
    )
    run_games(tasks, workers=2, progress=False)
    assert order[:2] == ["warm 0", "start"] and order.count("warm 0") == 1


def test_warm_agents_plays_two_plies_with_copies_of_the_agents(checkpoint):
    """The agents of the task are copied: an agent object comes out untouched."""
    from drl._numba_cache import compiled_kernels
    from drl.agents.az import AZAgent
    from drl.eval.play import play_game
    from drl.eval.workers import warm_agents

    agent = AZAgent(str(checkpoint), sims=8, device="cpu")
    task = match_tasks(
        agent, "alphabeta:depth=2", "english", 2, MatchSettings(openings=0, seed=1, max_plies=20)
    )[0]
    warm_agents(task)
    assert agent.player._mcts is None  # the object itself never played
    before = compiled_kernels()
    play_game(task)  # what a worker does with it: nothing left to compile
    assert compiled_kernels() == before


_COLD_EVAL = """
import sys
from drl._numba_cache import compiled_kernels
from drl.eval.arena import MatchSettings, match_tasks
from drl.eval.play import play_game
from drl.eval.workers import warm_agents

if __name__ == "__main__":
    task = match_tasks(f"az:ckpt={sys.argv[2]},sims=8", "alphabeta:depth=2", "english",
                       2, MatchSettings(openings=0, seed=1, max_plies=30))[0]
    if sys.argv[1] == "warm":
        warm_agents(task)
    else:
        play_game(task)
        print("compiled", compiled_kernels())
"""


@pytest.mark.slow
def test_on_a_cold_cache_a_worker_finds_every_kernel_of_its_game(tmp_path, checkpoint):
    """After :func:`warm_agents` in one process, a process that plays the game (as a worker
    does) compiles nothing, where numba's cache started empty."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = tmp_path / "cold_eval.py"
    script.write_text(_COLD_EVAL)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"))
    root = Path(__file__).resolve().parents[2]
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH")]))
    for step in ("warm", "play"):
        out = subprocess.run(
            [sys.executable, str(script), step, str(checkpoint)],
            env=env,
            capture_output=True,
            text=True,
            timeout=1800,
        )
        assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1] == "compiled 0"
