"""The tiny training configuration shared by the training and analysis tests (seconds
per run)."""

from __future__ import annotations

from dataclasses import replace

from drl.train.config import Config, ModelCfg, SearchCfg, TrainCfg, TrainEvalCfg, VariantCfg


def tiny_config(iterations: int = 2, variant: str = "give_and_take", **train) -> Config:
    """Config small enough to train in seconds: 4 games per iteration, 2 learner steps."""
    ev = TrainEvalCfg(
        every=0, baselines=["random"], games=4, simulations=4, max_plies=40, openings=0
    )
    t = TrainCfg(
        name="tiny",
        iterations=iterations,
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
    for k, v in train.items():
        setattr(t, k, v)
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


def tiny_sparse_net(seed: int = 0, hidden: int = 32, hidden2: int = 8):
    """An untrained 8x8 sparse network (``hidden`` / ``hidden2`` units), seeded by ``seed``."""
    import torch

    from drl import nn as drl_nn
    from drl.encode.actions import num_actions
    from drl.encode.planes import N_CHANNELS

    torch.manual_seed(seed)
    return drl_nn.build(
        "sparse",
        in_channels=N_CHANNELS,
        board_size=8,
        num_actions=num_actions(8),
        hidden=hidden,
        hidden2=hidden2,
    )
