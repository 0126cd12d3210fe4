"""Masking of policy logits to the legal step actions."""

from __future__ import annotations

import torch

__all__ = ["masked_log_softmax", "masked_softmax", "policy_entropy"]

_NEG = -1e9


def masked_log_softmax(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Log-softmax over the legal actions only.

    Args:
        logits: ``[B, A]`` float policy logits.
        mask: ``[B, A]`` bool, True = legal. Every row needs at least one legal action.

    Returns:
        ``[B, A]`` float log-probabilities; illegal entries hold a large negative number
        (never -inf, so that ``0 * logp`` stays finite in a cross-entropy).

    Raises:
        ValueError: if the shapes differ or a row has no legal action.
    """
    if logits.shape != mask.shape:
        raise ValueError(f"logits {list(logits.shape)} and mask {list(mask.shape)} differ")
    if not bool(mask.any(dim=-1).all()):
        raise ValueError("a row of the legal mask has no legal action")
    return torch.log_softmax(logits.masked_fill(~mask, _NEG), dim=-1)


def masked_softmax(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Softmax over the legal actions; illegal actions get exactly 0.

    Args:
        logits: ``[B, A]`` float.
        mask: ``[B, A]`` bool, True = legal.

    Returns:
        ``[B, A]`` float probabilities, each row sums to 1.
    """
    return masked_log_softmax(logits, mask).exp() * mask


def policy_entropy(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Entropy (nats) of the masked policy, per row: ``[B]`` float."""
    logp = masked_log_softmax(logits, mask)
    return -(logp.exp() * logp * mask).sum(dim=-1)
