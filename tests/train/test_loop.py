"""The training loop in-process: train -> checkpoint -> resume -> evaluate, fallback past
a damaged checkpoint, config checks."""

import json
import logging

import pytest

from drl.nn.checkpoint import list_checkpoints, load_checkpoint
from drl.train.loop import train


def _metrics(run_dir):
    return [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]


def test_train_checkpoint_resume_evaluate(tmp_path, tiny):
    run = tmp_path / "run"
    first = train(tiny(iterations=2), run)
    assert (first.iterations, first.learner_steps, first.games) == (2, 4, 8)
    assert first.checkpoint == list_checkpoints(run / "checkpoints")[-1]
    assert load_checkpoint(first.checkpoint)["counters"]["games"] == 8
    assert len(first.final_eval) == 1 and first.final_eval[0].summary["all"].games == 4
    # both roles against the baseline, as both colours
    assert {"taker", "giver", "black", "white"} <= set(first.final_eval[0].summary)
    assert (run / "eval" / "final.json").exists() and (run / "eval" / "final-random.pdn").exists()
    assert (run / "config.yaml").exists() and list((run / "tb").iterdir())
    pdn_files = list((run / "games").glob("selfplay-*.pdn"))
    assert len(pdn_files) == len(list((run / "replay").glob("*.npz")))

    second = train(tiny(iterations=3), run)
    assert second.resumed_from == first.checkpoint
    assert (second.iterations, second.learner_steps, second.games) == (3, 6, 12)
    its = [m["iteration"] for m in _metrics(run) if "learner/steps" in m]
    assert its == [1, 2, 3]
    steps = [m["learner/steps"] for m in _metrics(run) if "learner/steps" in m]
    assert steps == [2, 4, 6]


def test_damaged_checkpoint_falls_back_to_the_previous_one(tmp_path, tiny, caplog):
    run = tmp_path / "run"
    train(tiny(iterations=2), run)
    good, bad = list_checkpoints(run / "checkpoints")
    good_steps = load_checkpoint(good)["counters"]["learner_steps"]
    data = bad.read_bytes()
    bad.write_bytes(data[: len(data) // 3])
    with caplog.at_level(logging.WARNING):
        again = train(tiny(iterations=3), run)
    assert "truncated or corrupt" in caplog.text and bad.name in caplog.text
    assert again.resumed_from == good
    assert (bad.parent / (bad.name + ".corrupt")).exists()
    # learner steps continue from the good checkpoint (2 steps), not from zero
    assert good_steps == 2
    assert again.learner_steps == good_steps + 2 * 2
    # no finished game was lost: the games of iteration 2 were on disk already
    assert again.games == 12


def test_resume_with_another_network_is_refused(tmp_path, tiny):
    run = tmp_path / "run"
    train(tiny(iterations=1), run)
    cfg = tiny(iterations=2)
    cfg.model.channels = 16
    with pytest.raises(ValueError, match="network"):
        train(cfg, run)


def test_bad_values_are_named(tmp_path, tiny):
    cfg = tiny()
    cfg.search.root_selection = "ucb"
    with pytest.raises(ValueError, match="search.root_selection"):
        train(cfg, tmp_path / "a")
    cfg = tiny()
    cfg.variant.spec = "give_and_take:taker=green"
    with pytest.raises(ValueError, match="variant.spec"):
        train(cfg, tmp_path / "b")
    cfg = tiny()
    cfg.train.final_eval.baselines = ["alphabeta:dept=2"]
    with pytest.raises(ValueError, match="final_eval.baselines"):
        train(cfg, tmp_path / "c")


def test_ray_runtime_without_ray_is_a_clear_error(tmp_path, tiny):
    pytest.importorskip("pytest")
    try:
        import ray  # noqa: F401

        pytest.skip("ray is installed")
    except ImportError:
        pass
    cfg = tiny()
    cfg.runtime.name = "ray"
    with pytest.raises(RuntimeError, match="pip install"):
        train(cfg, tmp_path / "r")
