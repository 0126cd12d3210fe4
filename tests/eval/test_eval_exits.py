"""Every way out of drl-eval is one of its own: complete, an error in one line (status 1),
or interrupted (130 for SIGINT, 143 for SIGTERM) with "interrupted after N of M games"
and a results.json that holds the games of games.pdn, wherever the signal or the full
disk comes: at start-up, while games are played, after the last game (rating, tables,
writing the files). And an output folder is never shared by two runs.

The faults are injected at named functions by ``_faulty_eval.py`` (no timing)."""

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from drl.cli._signals import INTERRUPTED_AT_START
from drl.rules import read_games

WRAPPER = str(Path(__file__).with_name("_faulty_eval.py"))
GAMES = ["agents=[greedy,random]", "games=8", "max_plies=30", "openings=2", "workers=1"]
QUIET = ["progress=false", "plot=false"]


def _drl_eval(args, cwd=None, **fault):
    env = {
        **os.environ,
        **{f"FAULT_{k.upper()}" if k != "fault" else "FAULT": v for k, v in fault.items()},
    }
    return subprocess.run(
        [sys.executable, WRAPPER, *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=cwd,
    )


def _pdn_count(path):
    return len(list(read_games(path))) if path.exists() and path.stat().st_size else 0


def _consistent(out_dir):
    """results.json and games.pdn hold the same games; returns results.json."""
    results = json.loads((out_dir / "results.json").read_text())
    pdn = (
        [list(g.moves) for g in read_games(out_dir / "games.pdn")]
        if (out_dir / "games.pdn").stat().st_size
        else []
    )
    assert results["games_finished"] == len(results["games"]) == len(pdn)
    assert [g["moves"] for g in results["games"]] == pdn
    return results


def _no_traceback(proc):
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr[-3000:]


@pytest.mark.parametrize(
    "where, sig, only_if, finished",
    [
        # after the last game: rating, tables, the final PDN
        ("drl.eval.evaluation:rate", "INT", "", 8),
        ("drl.eval.evaluation:print_tables", "TERM", "", 8),
        ("drl.eval.evaluation:write_pdn", "INT", "", 8),
        # start-up: the config check (before the results' files exist), before and while
        # the agents are built (the engines start there)
        ("drl.eval.checks:check_config", "INT", "", 0),
        ("drl.eval.evaluation:play_format", "TERM", "", 0),
        ("drl.eval.play:make", "INT", "", 0),
        # while the games are played
        ("drl.eval.journal:Journal.add", "INT", "", 0),
    ],
)
def test_a_signal_at_any_point_ends_interrupted_with_the_games_written(
    tmp_path, where, sig, only_if, finished
):
    proc = _drl_eval(
        [*GAMES, *QUIET, f"hydra.run.dir={tmp_path}"],
        at=where,
        fault=sig,
        **({"if": only_if} if only_if else {}),
    )
    _no_traceback(proc)
    assert proc.returncode == (130 if sig == "INT" else 143), proc.stderr[-3000:]
    assert re.search(rf"interrupted after {finished} of 8 games", proc.stdout), proc.stdout[-3000:]
    results = _consistent(tmp_path)
    assert results["status"] == "interrupted" and results["games_finished"] == finished
    assert results["games_planned"] == 8
    assert not list(tmp_path.glob("*.tmp"))


def test_a_signal_while_the_final_results_are_written_waits_for_them(tmp_path):
    proc = _drl_eval(
        [*GAMES, *QUIET, f"hydra.run.dir={tmp_path}"],
        at="drl.eval.journal:Journal.save",
        fault="INT",
        **{"if": "'complete'"},
    )
    _no_traceback(proc)
    assert proc.returncode == 130
    assert f"results in {tmp_path}" in proc.stdout
    results = _consistent(tmp_path)
    assert results["status"] == "complete" and results["games_finished"] == 8


def test_a_signal_while_hydra_starts_is_one_line(tmp_path):
    out = tmp_path / "out"
    proc = _drl_eval(
        [*GAMES, *QUIET, f"hydra.run.dir={out}"],
        at="drl.cli.eval:OutputDirCheck.on_run_start",
        fault="INT",
    )
    _no_traceback(proc)
    assert proc.returncode == 130
    assert proc.stderr.strip().splitlines()[-1] == INTERRUPTED_AT_START
    assert not (out / "results.json").exists()


def test_a_full_disk_for_hydras_config_files_is_one_line(tmp_path):
    proc = _drl_eval([*GAMES, *QUIET, f"hydra.run.dir={tmp_path}"], open=".hydra/")
    _no_traceback(proc)
    assert proc.returncode == 1
    line = proc.stderr.strip().splitlines()
    assert len(line) == 1 and line[0].startswith("drl-eval: ") and "config.yaml" in line[0]
    assert "No space left on device" in line[0]


def _full_disk_for_results(tmp_path, statuses):
    """drl-eval with results.json unwritable when it holds one of ``statuses``."""
    proc = _drl_eval(
        [*GAMES, *QUIET, f"hydra.run.dir={tmp_path}"],
        at="drl.eval.report:write_json",
        fault="ENOSPC",
        **{"if": f"'status': '{statuses}'"},
    )
    _no_traceback(proc)
    return proc


def test_a_full_disk_for_the_final_results_keeps_the_games(tmp_path):
    # the final results.json cannot be written; the one that says "failed" can
    proc = _full_disk_for_results(tmp_path, "complete")
    assert proc.returncode == 1
    assert "stopped by an error after 8 games" in proc.stdout
    assert "No space left on device" in proc.stderr.strip().splitlines()[-1]
    results = _consistent(tmp_path)
    assert results["status"] == "failed" and "No space left on device" in results["error"]


def test_a_disk_full_to_the_end_names_the_file_it_could_not_write(tmp_path):
    # neither the final nor the "failed" results.json can be written: the games stay in
    # games.pdn, and both messages name results.json
    proc = _full_disk_for_results(tmp_path, "(complete|failed)")
    assert proc.returncode == 1
    full = f"{tmp_path / 'results.json'}: No space left on device"
    squeeze = re.compile(r"\s+")  # (the console wraps long lines)
    assert squeeze.sub("", f"could not write {full}") in squeeze.sub("", proc.stdout)
    assert proc.stderr.strip() == f"drl-eval: {full}"
    assert _pdn_count(tmp_path / "games.pdn") == 8
    assert not list(tmp_path.glob("*.tmp"))


def test_two_runs_never_share_an_output_folder(tmp_path):
    first = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "drl.cli.eval",
            "agents=[greedy,random]",
            "games=2000",
            "max_plies=30",
            "openings=0",
            "workers=1",
            *QUIET,
            f"hydra.run.dir={tmp_path}",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        pdn = tmp_path / "games.pdn"
        while first.poll() is None and _pdn_count(pdn) < 2:
            time.sleep(0.2)
        assert first.poll() is None, first.communicate()
        second = _drl_eval([*GAMES, *QUIET, f"hydra.run.dir={tmp_path}"])
        assert second.returncode == 1
        assert second.stderr.strip() == (
            f"drl-eval: hydra.run.dir={tmp_path}: another drl-eval (pid {first.pid}) is "
            "writing its results there; choose another folder (hydra.run.dir=...)"
        )
        first.send_signal(signal.SIGINT)
        out, err = first.communicate(timeout=120)
    finally:
        if first.poll() is None:
            first.kill()
    assert first.returncode == 130, err
    found = re.search(r"interrupted after (\d+) of 2000 games", out)
    assert found, out
    results = _consistent(tmp_path)
    assert results["games_finished"] == int(found.group(1)) >= 2
    assert results["games_planned"] == 2000  # the first run's, not the second's
    # a finished run's folder is not written over either
    again = _drl_eval([*GAMES, *QUIET, f"hydra.run.dir={tmp_path}"])
    assert again.returncode == 1
    assert "holds the results of an earlier evaluation (results.json, status interrupted" in (
        again.stderr
    )
    assert _consistent(tmp_path)["games_planned"] == 2000


def test_the_default_folder_is_new_for_each_run_started_in_the_same_second(tmp_path):
    folders = []
    for seed in (1, 2):
        proc = _drl_eval([*GAMES, *QUIET, f"seed={seed}"], cwd=tmp_path, now="2001-02-03T04:05:06")
        assert proc.returncode == 0, proc.stderr[-3000:]
        folders.append(re.search(r"results in (\S+)", proc.stdout).group(1))
    day = tmp_path / "outputs" / "eval" / "2001-02-03"
    assert [str(Path(f).resolve()) for f in folders] == [
        str((day / "04-05-06").resolve()),
        str((day / "04-05-06-1").resolve()),
    ]
    for f, seed in zip(folders, (1, 2), strict=True):
        assert json.loads((tmp_path / f / "results.json").read_text())["config"]["seed"] == seed
        assert _consistent(tmp_path / f)["games_finished"] == 8


_SIGNAL_WHILE_IMPORTING = """
import importlib.abc, importlib.metadata, os, signal, sys

SIG = getattr(signal, sys.argv[1])

class Stop(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "drl.cli.eval":
            os.kill(os.getpid(), SIG)
        return None

sys.meta_path.insert(0, Stop())
(entry,) = importlib.metadata.entry_points(group="console_scripts", name="drl-eval")
sys.argv[1:] = []
sys.exit(entry.load()())
"""


@pytest.mark.parametrize(("sig", "status"), [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_signal_while_the_program_is_still_importing_is_one_line(tmp_path, sig, status):
    # The drl-eval command as installed: its handler is in place before drl-eval's module
    # (numpy, the config schemas) is imported, the window a loaded machine makes long.
    proc = subprocess.run(
        [sys.executable, "-c", _SIGNAL_WHILE_IMPORTING, sig],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    _no_traceback(proc)
    assert proc.returncode == status, proc.stderr[-2000:]
    assert proc.stderr.strip() == INTERRUPTED_AT_START
    assert list(tmp_path.iterdir()) == []


def test_an_evaluation_of_a_run_is_written_beside_it(tmp_path):
    from tests.tiny_checkpoints import tiny_resnet_checkpoint

    run = tmp_path / "runs" / "gt-1"
    ckpt = tiny_resnet_checkpoint(run / "checkpoints")
    agents = f"agents=[az:ckpt={ckpt.relative_to(tmp_path)},sims=2,random]"
    args = [agents, "games=2", "max_plies=20", "openings=1", "workers=1", *QUIET]
    proc = _drl_eval(args, cwd=tmp_path, now="2001-02-03T04:05:06")
    assert proc.returncode == 0, proc.stderr[-3000:]
    folder = Path(re.search(r"results in (\S+)", proc.stdout).group(1))
    assert (tmp_path / folder).resolve() == (run / "eval" / "2001-02-03_04-05-06").resolve()
    assert _consistent(tmp_path / folder)["games_finished"] == 2
    assert not (tmp_path / "outputs").exists()
