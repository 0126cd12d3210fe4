"""Self-play in Ray actors: the same run as runtime=local, spread over two actors."""

import subprocess
import sys

import pytest

from drl.nn.checkpoint import list_checkpoints
from drl.train.buffer import ReplayBuffer

pytest.importorskip("ray")


@pytest.mark.slow
def test_drl_train_with_ray_actors(tmp_path):
    run = tmp_path / "run"
    cmd = [
        sys.executable,
        "-m",
        "drl.cli.train",
        "train=tiny",
        "model=tiny",
        "search.num_simulations=4",
        "progress=false",
        "threads=1",
        "runtime=ray",
        "runtime.actors=2",
        f"run_dir={run}",
    ]
    r = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert list_checkpoints(run / "checkpoints")
    assert ReplayBuffer(run / "replay", 10).num_games == 8
