"""drl-train and drl-play as processes: end-to-end run, kill -9 and resume, config typos."""

import os
import signal
import subprocess
import sys
import time

import pytest

from drl.nn.checkpoint import list_checkpoints, load_latest
from drl.train.buffer import ReplayBuffer
from drl.train.loop import train

TRAIN = [sys.executable, "-m", "drl.cli.train"]
TINY = ["train=tiny", "model=tiny", "search.num_simulations=4", "progress=false", "threads=1"]


def test_drl_train_end_to_end_from_another_directory(tmp_path):
    run = tmp_path / "run"
    r = subprocess.run(
        TRAIN + TINY + [f"run_dir={run}"], cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    assert r.returncode == 0, r.stderr[-3000:]
    assert "trained agent" in r.stdout and "random" in r.stdout
    # the table's title names the agent that played (rich may fold the long spec)
    assert "az:ckpt=" in "".join(r.stdout.split()) and ",sims=4vs" in "".join(r.stdout.split())
    assert "taker" in r.stdout and "giver" in r.stdout
    assert list_checkpoints(run / "checkpoints")
    assert ReplayBuffer(run / "replay", 10).num_games == 8
    assert "variant:" in (run / "config.yaml").read_text()
    assert not (tmp_path / "outputs").exists()


@pytest.mark.parametrize(
    "override, says",
    [
        ("train.iteratons=3", "iteratons"),
        ("variant=giv_and_take", "giv_and_take"),
        ("train.iterations=many", "many"),
    ],
)
def test_config_typo_gives_hydras_error(tmp_path, override, says):
    r = subprocess.run(
        TRAIN + [override], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert r.returncode != 0
    assert says in r.stderr
    assert "Traceback" not in r.stderr
    assert not list(tmp_path.iterdir())  # nothing was started


def test_bad_value_is_reported_without_traceback(tmp_path):
    r = subprocess.run(
        TRAIN + ["search.root_selection=ucb"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode != 0
    assert "search.root_selection" in r.stderr and "Traceback" not in r.stderr


def test_kill_9_then_resume_loses_no_finished_game(tmp_path, tiny):
    run = tmp_path / "run"
    cmd = TRAIN + TINY + [f"run_dir={run}", "train.iterations=1000", "tensorboard=false"]
    proc = subprocess.Popen(
        cmd, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 300  # a hang guard, not a speed check
    try:
        while len(list_checkpoints(run / "checkpoints")) < 2:
            if proc.poll() is not None:
                pytest.fail(f"drl-train exited early: {proc.stderr.read()[-3000:]}")
            if time.monotonic() > deadline:
                pytest.fail("drl-train made no checkpoint in time")
            time.sleep(0.1)
        time.sleep(0.5)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    before = ReplayBuffer(run / "replay", 10)
    shards_before = {p.name for p in before.shard_paths()}
    _, payload = load_latest(run / "checkpoints")
    counters = payload["counters"]

    result = train(tiny(iterations=counters["iteration"] + 1), run)

    after = ReplayBuffer(run / "replay", 10)
    assert shards_before <= {p.name for p in after.shard_paths()}
    done_since_ckpt = before.num_games - counters["games"]
    assert result.games == before.num_games + max(0, 4 - done_since_ckpt)
    assert result.games >= before.num_games
    # the step counter goes on from the checkpoint
    assert result.learner_steps == counters["learner_steps"] + 2
    assert result.iterations == counters["iteration"] + 1
