"""Learner: one gradient step on a replay minibatch.

Losses (per position, averaged over the batch):

- policy: cross-entropy between the search policy and the network's policy, both over
  the stored legal steps only (the logits are masked before the softmax), weighted by
  ``policy_weight`` (0 for forced steps and fast playout-cap searches);
- value: squared error between the value head and the final result for the player to
  move;
- auxiliary (when the network has the heads): squared error of the pieces left per
  side at the end, and Huber loss of the plies left (scaled by ``plies_scale``).

No board symmetries are used: the left-right mirror of a draughts board does not keep
the rules (the double corner moves to the other side), and swapping colours would swap
roles, which the observation already encodes from the mover's view.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch.nn import functional as F

from drl.nn import PolicyValueModel, masked_log_softmax
from drl.train.buffer import SampleBatch

__all__ = ["LossConfig", "train_step"]


@dataclass(frozen=True)
class LossConfig:
    """Loss weights.

    The field names are the ``train`` config keys (``train.value_loss_weight=2``).

    Attributes:
        value_loss_weight: weight of the value loss.
        aux_loss_weight: weight of each auxiliary loss (ignored without aux heads).
        plies_scale: plies-left targets are divided by this.
        grad_clip: clip the global gradient norm to this (0 = off).
    """

    value_loss_weight: float = 1.0
    aux_loss_weight: float = 0.1
    plies_scale: float = 100.0
    grad_clip: float = 5.0


def _tensor(x: np.ndarray, device: torch.device) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(x)).to(device)


def train_step(
    net: PolicyValueModel,
    optimizer: torch.optim.Optimizer,
    batch: SampleBatch,
    loss: LossConfig,
    device: torch.device | str = "cpu",
) -> dict[str, float]:
    """One optimiser step on ``batch``; the network is left in train mode.

    Args:
        net: the network (any registered architecture, see :class:`~drl.nn.PolicyValueModel`).
        optimizer: its optimiser.
        batch: a dense minibatch (see :class:`~drl.train.buffer.SampleBatch`).
        loss: loss weights.
        device: where to compute.

    Returns:
        Scalars: ``loss``, ``policy_loss``, ``value_loss``, ``aux_pieces_loss``,
        ``aux_plies_loss``, ``policy_entropy`` (the network's, nats),
        ``grad_norm``.
    """
    device = torch.device(device)
    net.train()
    obs = _tensor(batch.obs, device)
    mask = _tensor(batch.mask, device)
    target = _tensor(batch.policy, device)
    weight = _tensor(batch.policy_weight, device)
    z = _tensor(batch.value, device)
    out = net(obs)
    logp = masked_log_softmax(out.policy_logits, mask)
    ce = -(target * logp).sum(dim=-1)
    policy_loss = (ce * weight).sum() / weight.sum().clamp(min=1.0)
    value_loss = F.mse_loss(out.value, z)
    total = policy_loss + loss.value_loss_weight * value_loss
    pieces_loss = plies_loss = torch.zeros((), device=device)
    if out.pieces_left is not None and out.plies_left is not None:  # aux heads come together
        pieces_loss = F.mse_loss(out.pieces_left, _tensor(batch.pieces_left, device))
        plies_loss = F.huber_loss(
            out.plies_left, _tensor(batch.plies_left, device) / loss.plies_scale
        )
        total = total + loss.aux_loss_weight * (pieces_loss + plies_loss)
    optimizer.zero_grad(set_to_none=True)
    total.backward()
    if loss.grad_clip > 0:
        grad_norm = torch.nn.utils.clip_grad_norm_(net.parameters(), loss.grad_clip)
    else:
        grad_norm = torch.sqrt(
            sum(
                ((p.grad**2).sum() for p in net.parameters() if p.grad is not None),
                torch.zeros((), device=device),
            )
        )
    optimizer.step()
    with torch.no_grad():
        p = logp.exp() * mask
        entropy = -(p * logp).sum(dim=-1).mean()
    return {
        "loss": total.item(),
        "policy_loss": policy_loss.item(),
        "value_loss": value_loss.item(),
        "aux_pieces_loss": pieces_loss.item(),
        "aux_plies_loss": plies_loss.item(),
        "policy_entropy": entropy.item(),
        "grad_norm": float(grad_norm),
    }
