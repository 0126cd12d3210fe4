"""A tiny trained run (seconds) and a hand-made value function of known material values."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from drl.rules.core import ST_BK, ST_BM, ST_TURN, ST_WK, ST_WM
from drl.train.config import Config, EvalCfg, ModelCfg, SearchCfg, TrainCfg, VariantCfg


def tiny_config(variant: str = "give_and_take") -> Config:
    """The tiny training settings (``train=tiny model=tiny``), one iteration, no evaluation."""
    ev = EvalCfg(every=0, baselines=[], games=4, simulations=4, max_plies=40, openings=0)
    t = TrainCfg(
        name="tiny",
        iterations=1,
        games_per_iteration=4,
        games_in_flight=4,
        shard_games=2,
        steps_per_iteration=2,
        batch_size=16,
        replay_window=2000,
        min_replay=1,
        keep_checkpoints=2,
        eval=ev,
        final_eval=replace(ev),
    )
    return Config(
        variant=VariantCfg(name=variant, spec=variant, max_plies=60),
        model=ModelCfg(
            name="tiny", channels=8, blocks=1, policy_channels=2, value_channels=1, value_hidden=16
        ),
        search=SearchCfg(num_simulations=4),
        train=t,
        progress=False,
        threads=1,
    )


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory):
    """A Give and Take run folder trained for one tiny iteration."""
    import torch

    from drl.train.loop import train

    torch.set_num_threads(1)
    run = tmp_path_factory.mktemp("analysis") / "run"
    result = train(tiny_config(), run)
    return run, result.checkpoint


def material_evaluator(man: float = 0.1, king: float = 0.3, sign_of=None):
    """``evaluate(boards)``: ``tanh(sign * (man * men + king * kings) difference)``, the
    mover's material minus the opponent's; ``sign_of(board)`` (default +1) flips it."""

    def evaluate(boards):
        out = []
        for b in boards:
            s = b.state
            mine = (
                (int(s[ST_BM]), int(s[ST_BK]))
                if int(s[ST_TURN]) == 0
                else (int(s[ST_WM]), int(s[ST_WK]))
            )
            theirs = (
                (int(s[ST_WM]), int(s[ST_WK]))
                if int(s[ST_TURN]) == 0
                else (int(s[ST_BM]), int(s[ST_BK]))
            )
            worth = [man * bin(m).count("1") + king * bin(k).count("1") for m, k in (mine, theirs)]
            sign = 1.0 if sign_of is None else sign_of(b)
            out.append(np.tanh(sign * (worth[0] - worth[1])))
        return np.array(out)

    return evaluate
