"""A tiny residual network saved as a training checkpoint (English, 8x8), for the tests
of the commands that read one."""

from __future__ import annotations

from pathlib import Path


def tiny_resnet_checkpoint(folder: Path, fill: float | None = None) -> Path:
    """Save a seeded 1-block residual network under ``folder`` and return the checkpoint;
    with ``fill``, every weight is set to that value (e.g. NaN)."""
    import torch

    from drl.encode import N_CHANNELS, num_actions
    from drl.nn import build, describe
    from drl.nn.checkpoint import save_checkpoint

    torch.manual_seed(0)
    net = build(
        in_channels=N_CHANNELS,
        board_size=8,
        num_actions=num_actions(8),
        channels=4,
        blocks=1,
        policy_channels=1,
        value_channels=1,
        value_hidden=4,
    )
    if fill is not None:
        with torch.no_grad():
            for p in net.parameters():
                p.fill_(fill)
    payload = {"model": net.state_dict(), **describe(net), "counters": {}, "variant": "english"}
    return save_checkpoint(folder, 1, payload)
