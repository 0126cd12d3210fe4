"""Output paths are checked before anything is played, with a one-line error naming the
key and the path; a game that still cannot be written at the end is printed instead."""

import subprocess
import sys

import pytest

from drl.eval.settings import MatchSettings


@pytest.fixture
def a_file(tmp_path):
    f = tmp_path / "a_file"
    f.write_text("not a folder\n")
    return f


def test_drl_eval_refuses_an_unwritable_output_folder(a_file):
    cmd = [
        sys.executable,
        "-m",
        "drl.cli.eval",
        "agents=[greedy,random]",
        "games=2",
        f"hydra.run.dir={a_file}/out",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    assert proc.stderr.strip() == (
        f"drl-eval: hydra.run.dir={a_file}/out: cannot write in this folder ({a_file} is a "
        "file, not a folder)"
    )


def test_run_refuses_unwritable_outputs_before_any_game(tmp_path, a_file):
    from drl._configs import VariantCfg
    from drl.cli.eval import EvalConfig, run

    played = []
    cfg = EvalConfig(
        variant=VariantCfg(), agents=["greedy", "random"], games=2, workers=1, progress=False
    )
    with pytest.raises(ValueError, match=rf"{a_file}/out: cannot write in this folder"):
        run(cfg, a_file / "out", on_record=played.append)
    (tmp_path / "out" / "elo.png").mkdir(parents=True)  # a folder where a file goes
    with pytest.raises(ValueError, match=r"elo.png: cannot write this file \(it is a folder\)"):
        run(cfg, tmp_path / "out", on_record=played.append)
    assert played == []
    assert not (tmp_path / "out" / "results.json").exists()


def test_library_pdn_paths_fail_before_the_first_game(a_file):
    from drl.eval.arena import play_match

    played = []
    with pytest.raises(OSError):
        play_match(
            "greedy",
            "random",
            "english",
            2,
            on_record=played.append,
            settings=MatchSettings(workers=1, progress=False, pdn_path=a_file / "games.pdn"),
        )
    assert played == []


def test_the_writability_checks():
    from drl.cli._output import check_writable_dir, check_writable_file

    with pytest.raises(ValueError, match=r"^pdn=/proc/x\.pdn: cannot write this file"):
        check_writable_file("/proc/x.pdn", "pdn")
    with pytest.raises(ValueError, match=r"^/proc/sub: cannot write in this folder"):
        check_writable_dir("/proc/sub")


def test_the_run_of_an_agent_spec_is_found_from_its_checkpoint(tmp_path):
    from drl.cli.eval import checkpoint_run

    run = tmp_path / "runs" / "gt-1"
    (run / "checkpoints").mkdir(parents=True)
    (run / "checkpoints" / "ckpt-00000008.pt").write_bytes(b"")
    (tmp_path / "exp").mkdir()
    (tmp_path / "exp" / "agent.pt").write_bytes(b"")
    assert checkpoint_run(f"az:ckpt={run}") == run
    assert checkpoint_run(f"az:sims=8,ckpt={run}/checkpoints/ckpt-00000008.pt") == run
    assert checkpoint_run(f"alphabeta:time=0.05,ckpt={tmp_path}/exp/agent.pt") == tmp_path / "exp"
    assert checkpoint_run(f"az:ckpt='{run}'") == run
    assert checkpoint_run(f"az:ckpt={tmp_path}/missing/agent.pt") is None
    assert checkpoint_run("alphabeta:depth=4") is None
    assert checkpoint_run("random") is None
