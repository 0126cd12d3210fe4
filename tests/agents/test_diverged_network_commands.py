"""A network whose outputs are not finite stops every command that plays it with one
line naming the output (TrainingDiverged), never a traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.tiny_checkpoints import tiny_resnet_checkpoint

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def nan_ckpt(tmp_path_factory):
    return tiny_resnet_checkpoint(tmp_path_factory.mktemp("nan") / "ckpt", fill=float("nan"))


def _run(args, tmp_path, stdin=""):
    return subprocess.run(
        [sys.executable, "-m", *args],
        cwd=tmp_path,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _one_line_naming_the_output(proc, prog):
    assert proc.returncode not in (0, None), proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith(f"{prog}:")]
    assert len(lines) == 1, proc.stderr[-3000:]
    assert "not finite" in lines[0] or "nan" in lines[0].lower(), lines[0]


def test_drl_play(nan_ckpt, tmp_path):
    proc = _run(
        ["drl.cli.play", f"ckpt={nan_ckpt}", "device=cpu", "sims=2", "color=white"],
        tmp_path,
        stdin="quit\n",
    )
    _one_line_naming_the_output(proc, "drl-play")


def test_drl_analyze(nan_ckpt, tmp_path):
    proc = _run(
        ["drl.cli.analyze", str(nan_ckpt), "--out", str(tmp_path / "out"), "--games", "2"],
        tmp_path,
    )
    _one_line_naming_the_output(proc, "drl-analyze")
    assert proc.returncode == 2


def test_drl_eval(nan_ckpt, tmp_path):
    proc = _run(
        [
            "drl.cli.eval",
            "variant=english",
            f"agents=[az:ckpt={nan_ckpt},sims=2,random]",
            "games=2",
            "workers=1",
            "progress=false",
            f"hydra.run.dir={tmp_path / 'out'}",
        ],
        tmp_path,
    )
    _one_line_naming_the_output(proc, "drl-eval")
