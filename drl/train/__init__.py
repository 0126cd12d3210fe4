"""Self-play training: actors, replay buffer, learner, checkpoints, the training loop.

The trained network plays as the agent ``az:ckpt=PATH,sims=N`` (:mod:`drl.agents.az`).
"""

from drl.nn.checkpoint import CheckpointError, load_checkpoint, load_latest, save_checkpoint
from drl.train.buffer import GameBatch, ReplayBuffer, SampleBatch, ShardError
from drl.train.config import Config
from drl.train.learner import LossConfig, TrainingDiverged, check_network, train_step
from drl.train.loop import TrainResult, train
from drl.train.selfplay import SelfPlayActor, SelfPlayConfig, SelfPlayStats

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
