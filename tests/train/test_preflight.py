"""Everything the evaluations of a training run need is checked before training, and
before the run folder is touched: checkpoints load and engine programs start and answer
(a failure used to surface only after the whole run)."""

from __future__ import annotations

import sys
import time

import pytest

from drl.train.evaluate import preflight_baselines
from drl.train.loop import train


@pytest.mark.parametrize(
    "spec, says",
    [
        ("az:ckpt=/nonexistent", r"/nonexistent does not exist"),
        ("hub:cmd=/bin/false", r"exited with status 1"),
        ("alphabeta:depth=2,ckpt=/nonexistent", r"/nonexistent"),
    ],
)
def test_a_final_eval_baseline_that_cannot_start_is_refused_before_the_folder(
    tmp_path, tiny, spec, says
):
    cfg = tiny(variant="english")
    cfg.train.final_eval.baselines = ["random", spec]
    run = tmp_path / "run"
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=rf"^config train\.final_eval\.baselines: .*{says}"):
        train(cfg, run)
    assert not run.exists()  # nothing played, nothing written
    assert time.perf_counter() - t0 < 60


def test_a_periodic_eval_baseline_is_checked_only_when_that_evaluation_runs(tmp_path, tiny):
    cfg = tiny(iterations=2, variant="english")
    cfg.train.eval.every = 1
    cfg.train.eval.baselines = ["az:ckpt=/nonexistent"]
    with pytest.raises(ValueError, match=r"^config train\.eval\.baselines: .*does not exist"):
        train(cfg, tmp_path / "run")
    assert not (tmp_path / "run").exists()
    # every=0 (or every >= iterations): it never runs, and is not asked to start
    cfg.train.eval.every = 0
    cfg.train.final_eval.games = 0
    train(cfg, tmp_path / "run")


def test_an_engine_that_starts_and_answers_passes_and_is_closed(tmp_path):
    script = tmp_path / "engine.py"
    script.write_text(
        "import sys\n"
        "for line in sys.stdin:\n"
        "    w = line.split()\n"
        "    if not w: continue\n"
        "    if w[0] == 'hub': print('name fake'); print('wait', flush=True)\n"
        "    elif w[0] == 'init': print('ready', flush=True)\n"
        "    elif w[0] == 'go': print('move 32-28', flush=True)\n"
        "    elif w[0] == 'quit': break\n"
        "open(sys.argv[1], 'w').write('closed')\n"
    )
    flag = tmp_path / "closed"
    spec = f"hub:cmd={sys.executable},args='{script} {flag}',time=0.1,proto=1"
    preflight_baselines([("train.final_eval.baselines", ["random", spec])], "international")
    assert flag.read_text() == "closed"  # started, asked for a move, told to quit
