"""An interrupted evaluation keeps every game it finished: games are written as they
finish, and on Ctrl-C (or SIGTERM) drl-eval prints and writes what it has and exits with
130 (143)."""

import json
import multiprocessing
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from drl.rules import read_games, replay


def _pdn_games(path):
    return list(read_games(path)) if path.exists() and path.stat().st_size else []


def _check_consistent(out_dir, finished):
    """results.json and games.pdn hold the same ``finished`` games, in game order."""
    results = json.loads((out_dir / "results.json").read_text())
    games = _pdn_games(out_dir / "games.pdn")
    assert results["games_finished"] == len(results["games"]) == len(games) == finished
    assert [g["index"] for g in results["games"]] == sorted(g["index"] for g in results["games"])
    assert [list(g.moves) for g in games] == [g["moves"] for g in results["games"]]
    for g in games:
        replay(g)
    if finished:  # each game counts once for each of its two players
        assert sum(s["all"]["games"] for s in results["summary"].values()) == 2 * finished
    return results


@pytest.mark.parametrize(
    "workers, sig, group, code",
    [
        (1, signal.SIGINT, False, 130),
        (2, signal.SIGINT, True, 130),  # Ctrl-C in a terminal reaches the workers too
        (1, signal.SIGTERM, False, 143),
    ],
)
def test_drl_eval_keeps_the_finished_games_when_interrupted(tmp_path, workers, sig, group, code):
    cmd = [
        sys.executable,
        "-m",
        "drl.cli.eval",
        "agents=[greedy,random]",
        "games=2000",
        "max_plies=40",
        "openings=0",
        f"workers={workers}",
        "progress=false",
        f"hydra.run.dir={tmp_path}",
    ]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        pdn = tmp_path / "games.pdn"
        while proc.poll() is None and (not pdn.exists() or pdn.read_text().count("[Event") < 3):
            time.sleep(0.2)
        assert proc.poll() is None, proc.communicate()
        if group:
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == code, err
    assert "Traceback" not in err
    found = re.search(r"interrupted after (\d+) of 2000 games", out)
    assert found, out
    finished = int(found.group(1))
    assert finished >= 3
    results = _check_consistent(tmp_path, finished)
    assert results["status"] == "interrupted" and results["games_planned"] == 2000
    # the printed table counts the same games
    row = re.search(r"greedy[\s│|]+(\d+)[\s│|]", out)
    assert row and int(row.group(1)) == finished


def _config(fmt, **changes):
    from drl._configs import VariantCfg
    from drl.cli.eval import EvalConfig

    spec = "give_and_take" if fmt == "halftime" else "english"
    agents = {
        "round_robin": ["greedy", "random", "random:seed=1"],
        "gauntlet": ["greedy", "random", "random:seed=1"],
        "pool": ["greedy", "random", "random:seed=1"],
        "halftime": ["greedy", "random"],
        "sprt": ["greedy", "random"],
    }[fmt]
    cfg = EvalConfig(
        variant=VariantCfg(name=spec, spec=spec),
        agents=agents,
        format=fmt,
        games=8,
        openings=2,
        workers=1,
        progress=False,
        max_plies=30,
        plot=False,
        **changes,
    )
    cfg.sprt.max_games = 40
    return cfg


def _stop_after(k, error=KeyboardInterrupt):
    seen = []

    def on_record(rec):
        seen.append(rec)
        if len(seen) == k:
            raise error("stop")

    return on_record, seen


@pytest.mark.parametrize(
    "fmt, planned",
    [
        ("round_robin", "of 24 games"),
        ("gauntlet", "of 16 games"),
        ("halftime", "of 8 games"),
        ("pool", "games"),
        ("sprt", "of at most 40 games"),
    ],
)
def test_an_interrupted_run_writes_and_prints_the_games_so_far(tmp_path, capsys, fmt, planned):
    from drl.cli.eval import run

    on_record, seen = _stop_after(5)
    with pytest.raises(KeyboardInterrupt):
        run(_config(fmt), tmp_path, on_record=on_record)
    out = capsys.readouterr().out
    assert f"interrupted after 5 {planned}" in out
    assert "Pairs" in out
    results = _check_consistent(tmp_path, 5)
    assert results["status"] == "interrupted"
    assert sorted(g["index"] for g in results["games"]) == sorted(r.index for r in seen)


def test_a_failed_run_keeps_its_games_too(tmp_path):
    from drl.cli.eval import run

    on_record, _ = _stop_after(3, RuntimeError)
    with pytest.raises(RuntimeError):
        run(_config("round_robin"), tmp_path, on_record=on_record)
    results = _check_consistent(tmp_path, 3)
    assert results["status"] == "failed" and "RuntimeError: stop" in results["error"]


def test_games_are_on_disk_while_the_evaluation_runs(tmp_path):
    from drl.cli.eval import run

    on_disk = []

    def look(rec):  # the PDN file holds each game once it is reported finished
        on_disk.append(len(_pdn_games(tmp_path / "games.pdn")))

    res = run(_config("round_robin"), tmp_path, on_record=look)
    assert on_disk == list(range(1, 25))
    assert res["status"] == "complete"
    assert json.loads((tmp_path / "results.json").read_text())["status"] == "complete"
    _check_consistent(tmp_path, 24)


def test_library_matches_write_each_game_as_it_finishes(tmp_path):
    from drl.eval.arena import play_match
    from drl.eval.formats import halftime_match, pool_tournament
    from drl.eval.settings import MatchSettings
    from drl.eval.sprt import play_sprt
    from drl.eval.tournament import play_tournament

    three = ["greedy", "random", "random:seed=1"]

    def opts(path):
        return {"settings": MatchSettings(workers=1, progress=False, pdn_path=path)}

    calls = [
        lambda p, cb: play_match("greedy", "random", "english", 8, on_record=cb, **opts(p)),
        lambda p, cb: play_tournament(three, "english", 4, on_record=cb, **opts(p)),
        lambda p, cb: halftime_match(
            "greedy", "random", "give_and_take", 4, on_record=cb, **opts(p)
        ),
        lambda p, cb: pool_tournament(three, "english", on_record=cb, **opts(p)),
        lambda p, cb: play_sprt("greedy", "random", "english", 4, on_record=cb, **opts(p)),
    ]
    for i, call in enumerate(calls):
        path = tmp_path / f"{i}.pdn"
        on_record, seen = _stop_after(3)
        with pytest.raises(KeyboardInterrupt):
            call(path, on_record)
        assert len(_pdn_games(path)) == len(seen) == 3


def test_interrupted_workers_are_stopped():
    from drl.eval.arena import match_tasks, run_games
    from drl.eval.settings import MatchSettings

    # far more games than could be played: the queued ones are dropped, not waited for
    tasks = match_tasks(
        "greedy", "random", "english", 100_000, MatchSettings(openings=0, max_plies=40)
    )
    on_record, seen = _stop_after(4)
    with pytest.raises(KeyboardInterrupt):
        run_games(tasks, workers=2, progress=False, on_record=on_record)
    assert len(seen) == 4
    assert multiprocessing.active_children() == []  # no worker left running


def _report_sigint(queue):
    queue.put(repr(signal.getsignal(signal.SIGINT)))


def test_workers_ignore_ctrl_c_from_their_first_instruction():
    # A worker still importing when Ctrl-C reaches the process group must not die with
    # a traceback: it is started with SIGINT ignored, before any initializer can run.
    from drl.eval.arena import IgnoringSignals

    ctx = multiprocessing.get_context("spawn")
    seen = []
    for shielded in (False, True):
        queue = ctx.Queue()
        if shielded:
            with IgnoringSignals(signal.SIGINT):
                proc = ctx.Process(target=_report_sigint, args=(queue,))
                proc.start()
        else:
            proc = ctx.Process(target=_report_sigint, args=(queue,))
            proc.start()
        seen.append(queue.get(timeout=60))
        proc.join(timeout=60)
    assert seen[0] != repr(signal.SIG_IGN)  # the control: a plain child takes Ctrl-C
    assert seen[1] == repr(signal.SIG_IGN)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored
