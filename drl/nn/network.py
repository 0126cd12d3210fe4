"""Residual convolutional policy-value network.

The network reads the encoder's observation planes (``[B, C, H, W]`` float32, from the
view of the player to move) and returns policy logits over the step actions
(``from * 4 * D + dir * D + dist - 1``), a value in ``[-1, 1]`` for the player to move
and, optionally, two auxiliary predictions used only as extra training signal.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from drl.nn.config import NetConfig
from drl.nn.model import NetOutput

__all__ = ["NetConfig", "NetOutput", "PolicyValueNet"]


class _ResidualBlock(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(x + y)


class PolicyValueNet(nn.Module):
    """AlphaZero-style residual tower with policy, value and optional auxiliary heads.

    Args:
        config: sizes, see :class:`NetConfig`.

    The policy head is a 1x1 convolution followed by a linear layer to A logits, so it
    makes no assumption about how step indices map to board coordinates.
    """

    arch: str  # the registered architecture name, set by drl.nn.build

    def __init__(self, config: NetConfig) -> None:
        super().__init__()
        self.config = config
        c, n = config.channels, config.board_size
        self.stem = nn.Sequential(
            nn.Conv2d(config.in_channels, c, 3, padding=1, bias=False),
            nn.BatchNorm2d(c),
            nn.ReLU(inplace=True),
        )
        self.tower = nn.Sequential(*[_ResidualBlock(c) for _ in range(config.blocks)])
        pc, vc = config.policy_channels, config.value_channels
        self.policy_conv = nn.Sequential(
            nn.Conv2d(c, pc, 1, bias=False), nn.BatchNorm2d(pc), nn.ReLU(inplace=True)
        )
        self.policy_fc = nn.Linear(pc * n * n, config.num_actions)
        self.value_conv = nn.Sequential(
            nn.Conv2d(c, vc, 1, bias=False), nn.BatchNorm2d(vc), nn.ReLU(inplace=True)
        )
        self.value_fc = nn.Sequential(
            nn.Linear(vc * n * n, config.value_hidden), nn.ReLU(inplace=True)
        )
        self.value_out = nn.Linear(config.value_hidden, 1)
        self.aux_out = nn.Linear(config.value_hidden, 3) if config.aux_heads else None

    def forward(self, obs: torch.Tensor) -> NetOutput:
        """Evaluate a batch.

        Args:
            obs: ``[B, C, H, W]`` float32 observation planes.

        Returns:
            A :class:`NetOutput`.

        Raises:
            ValueError: if ``obs`` does not have the configured ``[C, H, W]``.
        """
        cfg = self.config
        if obs.dim() != 4 or tuple(obs.shape[1:]) != (
            cfg.in_channels,
            cfg.board_size,
            cfg.board_size,
        ):
            raise ValueError(
                f"expected observations of shape [B, {cfg.in_channels}, {cfg.board_size}, "
                f"{cfg.board_size}], got {list(obs.shape)}"
            )
        x = self.tower(self.stem(obs))
        logits = self.policy_fc(self.policy_conv(x).flatten(1))
        h = self.value_fc(self.value_conv(x).flatten(1))
        value = torch.tanh(self.value_out(h)).squeeze(1)
        if self.aux_out is None:
            return NetOutput(logits, value)
        aux = self.aux_out(h)
        return NetOutput(logits, value, torch.sigmoid(aux[:, :2]), F.softplus(aux[:, 2]))

    def num_parameters(self) -> int:
        """Number of trainable parameters."""
        return sum(p.numel() for p in self.parameters() if p.requires_grad)
