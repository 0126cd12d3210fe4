"""A tiny trained run (seconds)."""

from __future__ import annotations

import pytest

from drl.train.config import Config
from tests.tiny_configs import tiny_config


def tiny_run_config(variant: str = "give_and_take") -> Config:
    """The tiny training settings, one iteration, no evaluation."""
    cfg = tiny_config(iterations=1, variant=variant)
    cfg.train.eval.baselines = []
    cfg.train.final_eval.baselines = []
    return cfg


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory):
    """A Give and Take run folder trained for one tiny iteration."""
    import torch

    from drl.train.loop import train

    torch.set_num_threads(1)
    run = tmp_path_factory.mktemp("analysis") / "run"
    result = train(tiny_run_config(), run)
    return run, result.checkpoint
