"""Learner: one gradient step on a replay minibatch.

Losses (per position, averaged over the batch):

- policy: cross-entropy between the search policy and the network's policy, both over
  the stored legal steps only (the logits are masked before the softmax), weighted by
  ``policy_weight`` (0 for forced steps and fast playout-cap searches);
- value: squared error between the value head and its target for the player to move,
  ``(1 - search_value_weight) * z + search_value_weight * q``: ``z`` the game's result
  (played out, or adjudicated at the ply cap) and ``q`` the root value of the search run
  at the position (a lower-variance, search-based target);
- auxiliary (when the network has the heads): squared error of the pieces left per
  side at the end, and Huber loss of the plies left (scaled by ``plies_scale``).

A step whose loss terms or gradient norm are not finite, or whose loss has exploded while
staying finite, raises :class:`~drl.nn.TrainingDiverged` (naming the term) before the
optimiser steps, so a NaN never reaches the weights; :func:`check_network` checks the
outputs of the network in eval mode (and, given the batch, its loss), as the training
loop does before each checkpoint.

An exploded loss: more than :data:`DIVERGED_LOSS_FACTOR` (1000) times the loss an
uninformed network has on the same batch (:func:`loss_reference`). The value and
pieces-left heads are bounded (tanh, sigmoid), so a sane network's loss is of the order of
that reference: its policy cross-entropy is about the log of the legal steps (a uniform
policy has exactly that) and its value error at most the value range squared. A network
whose weights blew up (a huge learning rate) has logits in the millions and a loss far
above it, finite or not: ``lr=1e6`` under sgd gave a mean loss of 1.7e10 in its first
iteration, a healthy run stays within 10 times the reference.

No board symmetries are used: the left-right mirror of a draughts board does not keep
the rules (the double corner moves to the other side), and swapping colours would swap
roles, which the observation already encodes from the mover's view.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import cast

import numpy as np
import torch
from torch.nn import functional as F

from drl._checks import check_range
from drl.nn import PolicyValueModel, TrainingDiverged, masked_log_softmax
from drl.train.buffer import SampleBatch

__all__ = [
    "DIVERGED_LOSS_FACTOR",
    "LossConfig",
    "TrainingDiverged",
    "check_network",
    "loss_reference",
    "train_step",
    "value_target",
]

DIVERGED_LOSS_FACTOR = 1000.0
"""A loss above this many times :func:`loss_reference` is divergence (see the module)."""


@dataclass(frozen=True)
class LossConfig:
    """Loss weights.

    The field names are the ``train`` config keys (``train.value_loss_weight=2``).

    Attributes:
        value_loss_weight: weight of the value loss (finite, >= 0).
        aux_loss_weight: weight of each auxiliary loss (finite, >= 0; ignored without aux
            heads).
        plies_scale: plies-left targets are divided by this (finite, > 0).
        grad_clip: clip the global gradient norm to this (finite, >= 0; 0 = off).
        search_value_weight: share of the search's root value in the value target, in
            [0, 1] (0: the game result alone, as AlphaZero).

    Raises:
        ValueError: for a value out of its range, as ``name=value: must be ...`` (a
            negative weight would maximise its loss, a zero scale divides by zero).
    """

    value_loss_weight: float = 1.0
    aux_loss_weight: float = 0.1
    plies_scale: float = 100.0
    grad_clip: float = 5.0
    search_value_weight: float = 0.5

    def __post_init__(self) -> None:
        weight = " (a negative weight maximises its loss)"
        check_range("value_loss_weight", self.value_loss_weight, 0, why=weight)
        check_range("aux_loss_weight", self.aux_loss_weight, 0, why=weight)
        check_range(
            "plies_scale",
            self.plies_scale,
            0,
            open_low=True,
            why=" (the plies-left targets are divided by it)",
        )
        check_range("grad_clip", self.grad_clip, 0, why=" (0 = no clipping)")
        check_range(
            "search_value_weight",
            self.search_value_weight,
            0,
            1,
            why=" (the share of the search's root value in the value target)",
        )


def _tensor(x: np.ndarray, device: torch.device) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(x)).to(device)


def _lr(optimizer: torch.optim.Optimizer) -> float:
    return float(optimizer.param_groups[0]["lr"])


def _where(step: int | None, lr: float) -> str:
    at = f" at learner step {step}" if step is not None else ""
    return f"training diverged{at} (lr {lr:g})"


_HINT = (
    "Hint: lower train.lr, raise train.batch_size or lower the loss weights, or check "
    "the replay data"
)


def value_target(batch: SampleBatch, search_value_weight: float) -> np.ndarray:
    """The value head's target: ``(1 - w) * value + w * search_value``.

    Args:
        batch: the minibatch (``value``: the game result for the player to move, or the
            adjudicated one; ``search_value``: the search's root value).
        search_value_weight: ``w`` in [0, 1].

    Returns:
        ``[B]`` float32 in [-1, 1].
    """
    w = float(search_value_weight)
    z = np.asarray(batch.value, np.float32)
    if w == 0.0:
        return z
    q = np.asarray(batch.search_value, np.float32)
    return ((1.0 - w) * z + w * q).astype(np.float32)


def loss_reference(batch: SampleBatch, loss: LossConfig) -> float:
    """The loss of an uninformed network on ``batch``, the scale divergence is judged by.

    Its terms, weighted as in :func:`train_step`: the policy cross-entropy of a uniform
    policy over the legal steps (the log of their number per position, averaged with the
    positions' policy weights), the largest squared error of a value in [-1, 1] against a
    target in [-1, 1] (4), and for the auxiliary heads the largest squared error of pieces
    left in [0, 1] (1) plus the Huber loss of predicting 0 plies left. At least 1.

    Returns:
        The reference loss (finite, >= 1).
    """
    legal = np.maximum(np.asarray(batch.mask).sum(axis=-1), 1)
    weight = np.asarray(batch.policy_weight, np.float64)
    policy = float((np.log(legal) * weight).sum() / max(weight.sum(), 1.0))
    t = np.abs(np.asarray(batch.plies_left, np.float64) / loss.plies_scale)
    plies = float(np.where(t < 1.0, 0.5 * t * t, t - 0.5).mean()) if len(t) else 0.0
    ref = policy + 4.0 * loss.value_loss_weight + loss.aux_loss_weight * (1.0 + plies)
    return max(ref, 1.0) if math.isfinite(ref) else 1.0


def _exploded(total: float, batch: SampleBatch, loss: LossConfig) -> str | None:
    """Why a finite ``total`` loss on ``batch`` is divergence, or None when it is not."""
    ref = loss_reference(batch, loss)
    if total <= DIVERGED_LOSS_FACTOR * ref:
        return None
    return (
        f"the loss {total:.4g} is more than {DIVERGED_LOSS_FACTOR:g} times {ref:.3g}, the "
        "loss of an uninformed network on this batch (log of the legal steps for the "
        "policy, the value's range for the value)"
    )


def _losses(
    out: object, batch: SampleBatch, loss: LossConfig, device: torch.device
) -> tuple[torch.Tensor, ...]:
    """The losses of the network's output ``out`` on ``batch``.

    ``(policy_loss, value_loss, pieces_loss, plies_loss, total, logp, mask)``.
    """
    mask = _tensor(batch.mask, device)
    target = _tensor(batch.policy, device)
    weight = _tensor(batch.policy_weight, device)
    z = _tensor(value_target(batch, loss.search_value_weight), device)
    logp = masked_log_softmax(out.policy_logits, mask)  # type: ignore[attr-defined]
    ce = -(target * logp).sum(dim=-1)
    policy_loss = (ce * weight).sum() / weight.sum().clamp(min=1.0)
    value_loss = F.mse_loss(out.value, z)  # type: ignore[attr-defined]
    total = policy_loss + loss.value_loss_weight * value_loss
    pieces_loss = plies_loss = torch.zeros((), device=device)
    pieces, plies = out.pieces_left, out.plies_left  # type: ignore[attr-defined]
    if pieces is not None and plies is not None:  # aux heads come together
        pieces_loss = F.mse_loss(pieces, _tensor(batch.pieces_left, device))
        plies_loss = F.huber_loss(plies, _tensor(batch.plies_left, device) / loss.plies_scale)
        total = total + loss.aux_loss_weight * (pieces_loss + plies_loss)
    return policy_loss, value_loss, pieces_loss, plies_loss, total, logp, mask


def _diverged(
    scalars: dict[str, float], bad: str | None, exploded: str | None, step: int | None, lr: float
) -> TrainingDiverged:
    """The error of a step not taken, naming what went wrong.

    A loss term ``bad`` not finite, the loss ``exploded`` (its message), or else the
    gradient norm not finite.
    """
    if bad is not None:
        what = f"loss term {bad}"
        detail = f"{what} is {scalars[bad]}"
    elif exploded is not None:
        what = "loss"
        detail = exploded
    else:
        what = "gradient norm"
        detail = f"the gradient norm is {scalars['grad_norm']} (loss {scalars['loss']:.4g})"
    return TrainingDiverged(
        f"{_where(step, lr)}: {detail}; the weights were not updated. {_HINT}",
        what=what,
        step=step,
        lr=lr,
    )


def train_step(
    net: PolicyValueModel,
    optimizer: torch.optim.Optimizer,
    batch: SampleBatch,
    loss: LossConfig,
    device: torch.device | str = "cpu",
    step: int | None = None,
) -> dict[str, float]:
    """One optimiser step on ``batch``; the network is left in train mode.

    Before the optimiser steps, every loss term and the gradient norm are checked to be
    finite (one host transfer for all of them), and the loss to be at most
    :data:`DIVERGED_LOSS_FACTOR` times :func:`loss_reference`; if one is not, nothing is
    stepped: the weights, the optimiser state and the network's buffers (batch-norm
    statistics, which the forward pass updates) are as they were before the call.

    Args:
        net: the network (any registered architecture, see :class:`~drl.nn.PolicyValueModel`).
        optimizer: its optimiser.
        batch: a dense minibatch (see :class:`~drl.train.buffer.SampleBatch`).
        loss: loss weights.
        device: where to compute.
        step: the learner step this is (1-based, over the run), for error messages.

    Returns:
        Scalars: ``loss``, ``policy_loss``, ``value_loss``, ``aux_pieces_loss``,
        ``aux_plies_loss``, ``policy_entropy`` (the network's, nats),
        ``grad_norm`` (before clipping).

    Raises:
        TrainingDiverged: a loss term (named: ``policy_loss``, ``value_loss``,
            ``aux_pieces_loss``, ``aux_plies_loss``, or their weighted sum ``loss``) or
            the gradient norm is NaN or infinite, or the loss exploded (``what`` is
            ``"loss"``); the message gives ``step`` and the learning rate.
    """
    device = torch.device(device)
    net.train()
    module = cast(torch.nn.Module, net)
    buffers = [b.detach().clone() for b in module.buffers()]
    obs = _tensor(batch.obs, device)
    out = net(obs)
    policy_loss, value_loss, pieces_loss, plies_loss, total, logp, mask = _losses(
        out, batch, loss, device
    )
    optimizer.zero_grad(set_to_none=True)
    total.backward()
    grads = [p.grad for p in net.parameters() if p.grad is not None]
    grad_norm = torch.linalg.vector_norm(
        torch.stack([torch.linalg.vector_norm(g) for g in grads])
        if grads
        else torch.zeros(1, device=device)
    )
    with torch.no_grad():
        p = logp.exp() * mask
        entropy = -(p * logp).sum(dim=-1).mean()
    names = ("policy_loss", "value_loss", "aux_pieces_loss", "aux_plies_loss", "loss")
    values = torch.stack(
        [policy_loss, value_loss, pieces_loss, plies_loss, total, entropy, grad_norm]
    ).tolist()  # the one host transfer of the step
    scalars = dict(zip((*names, "policy_entropy", "grad_norm"), values, strict=True))
    bad = next((n for n in names if not math.isfinite(scalars[n])), None)
    exploded = None if bad is not None else _exploded(scalars["loss"], batch, loss)
    if bad is not None or exploded is not None or not math.isfinite(scalars["grad_norm"]):
        optimizer.zero_grad(set_to_none=True)
        with torch.no_grad():
            for b, saved in zip(module.buffers(), buffers, strict=True):
                b.copy_(saved)
        raise _diverged(scalars, bad, exploded, step, _lr(optimizer))
    if loss.grad_clip > 0:  # as torch.nn.utils.clip_grad_norm_, with the norm computed above
        coef = (loss.grad_clip / (grad_norm + 1e-6)).clamp(max=1.0)
        with torch.no_grad():
            for g in grads:
                g.mul_(coef)
    optimizer.step()
    return scalars


def check_network(
    net: PolicyValueModel,
    obs: np.ndarray,
    device: torch.device | str = "cpu",
    step: int | None = None,
    lr: float | None = None,
    batch: SampleBatch | None = None,
    loss: LossConfig | None = None,
) -> None:
    """Check that the network's outputs, in eval mode, are finite and its loss has not exploded.

    Eval mode is how self-play and checkpoints use it. The outputs are those on ``obs``;
    given ``batch`` and ``loss``, the loss on ``batch`` is checked too, as
    :func:`train_step` judges it (the last step of an iteration may blow the weights up, and
    the next step would see it only after the checkpoint).

    A learner step with finite losses can still leave weights that overflow in eval mode
    (batch norm then uses its running statistics, not the batch's); the training loop
    calls this before writing a checkpoint, so that such a network is never saved.

    Args:
        net: the network; it is left in eval mode.
        obs: ``[B, C, H, W]`` float observations (e.g. the last minibatch's).
        device: where to compute.
        step: the learner steps done so far, for the message.
        lr: the learning rate, for the message.
        batch: the minibatch ``obs`` is from, to check the loss on (optional).
        loss: the loss weights (with ``batch``).

    Raises:
        TrainingDiverged: naming the first output (``policy_logits``, ``value``,
            ``pieces_left``, ``plies_left``) that is NaN or infinite, or the loss
            (``what`` ``"loss"``) when it exploded.
    """
    net.eval()
    with torch.inference_mode():
        out = net(_tensor(np.asarray(obs, np.float32), torch.device(device)))
    for name in ("policy_logits", "value", "pieces_left", "plies_left"):
        x = getattr(out, name)
        if x is not None and not bool(torch.isfinite(x).all()):
            at = f"after learner step {step}" if step is not None else "after training"
            rate = f" (lr {lr:g})" if lr is not None else ""
            raise TrainingDiverged(
                f"training diverged {at}{rate}: network output {name} is not finite on "
                f"{int((~torch.isfinite(x.reshape(len(x), -1)).all(dim=1)).sum())} of "
                f"{len(x)} positions checked in eval mode. {_HINT}",
                what=f"network output {name}",
                step=step,
                lr=lr,
            )
    if batch is None or loss is None:
        return
    with torch.inference_mode():
        total = float(_losses(out, batch, loss, torch.device(device))[4])
    why = _exploded(total, batch, loss) if math.isfinite(total) else f"the loss is {total}"
    if why is not None:
        at = f"after learner step {step}" if step is not None else "after training"
        rate = f" (lr {lr:g})" if lr is not None else ""
        raise TrainingDiverged(
            f"training diverged {at}{rate}: in eval mode, {why}. {_HINT}",
            what="loss",
            step=step,
            lr=lr,
        )
