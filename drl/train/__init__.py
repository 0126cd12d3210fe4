"""Self-play training: actors, replay buffer, learner, checkpoints, the training loop.

The trained network plays as the agent ``az:ckpt=PATH,sims=N`` (:mod:`drl.agents.az`).
The package can be called: ``drl.train(["train=tiny"], run_dir="runs/x")`` trains as
``drl-train train=tiny run_dir=runs/x`` does (:func:`drl.train.api.train`).
"""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Sequence
from typing import TYPE_CHECKING

from drl.nn.checkpoint import CheckpointError, load_checkpoint, load_latest, save_checkpoint
from drl.train.buffer import GameBatch, ReplayBuffer, SampleBatch, ShardError
from drl.train.config import Config
from drl.train.learner import LossConfig, TrainingDiverged, check_network, train_step
from drl.train.loop import TrainResult, train
from drl.train.selfplay import SelfPlayActor, SelfPlayConfig, SelfPlayStats

if TYPE_CHECKING:
    from drl.train.api import TrainRun

__all__ = [
    "CheckpointError",
    "Config",
    "GameBatch",
    "LossConfig",
    "ReplayBuffer",
    "SampleBatch",
    "SelfPlayActor",
    "SelfPlayConfig",
    "SelfPlayStats",
    "ShardError",
    "TrainResult",
    "TrainingDiverged",
    "check_network",
    "load_checkpoint",
    "load_latest",
    "save_checkpoint",
    "train",
    "train_step",
]


class _TrainModule(types.ModuleType):
    """The ``drl.train`` package, which can be called as :func:`drl.train.api.train`."""

    def __call__(
        self,
        overrides: Sequence[str] = (),
        run_dir: str | os.PathLike | None = None,
        *,
        progress: bool | None = None,
    ) -> TrainRun:
        """``drl.train(overrides, run_dir=None)``: train as ``drl-train`` does (drl.train.api)."""
        from drl.train.api import train as train_api

        return train_api(overrides, run_dir, progress=progress)


sys.modules[__name__].__class__ = _TrainModule
