"""Batched inference adapter: numpy observations in, :class:`Evaluation` out."""

from __future__ import annotations

import time

import numpy as np
import torch

from drl.nn.model import PolicyValueModel
from drl.search.types import Evaluation

__all__ = ["NetworkEvaluator", "UniformEvaluator"]


class NetworkEvaluator:
    """Runs a network (a :class:`~drl.nn.PolicyValueModel`) under ``torch.inference_mode``.

    Args:
        net: the network; it is put in eval mode.
        device: torch device for inference (``"cpu"``, ``"cuda"``); default: the
            network's device.

    Attributes:
        seconds: wall time spent inside the forward pass (incl. host/device copies).
        positions: positions evaluated so far.
        calls: forward calls so far.
    """

    def __init__(self, net: PolicyValueModel, device: str | torch.device | None = None) -> None:
        self.net = net.eval()
        self.device = torch.device(device) if device is not None else next(net.parameters()).device
        self.net.to(self.device)
        self.seconds = 0.0
        self.positions = 0
        self.calls = 0

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> Evaluation:
        """Evaluate ``[L, C, H, W]`` float32 observations; see :class:`Evaluator`."""
        t0 = time.perf_counter()
        with torch.inference_mode():
            x = torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32)).to(self.device)
            out = self.net(x)
            logits = out.policy_logits.float().cpu().numpy()
            value = out.value.float().cpu().numpy()
        self.seconds += time.perf_counter() - t0
        self.positions += len(obs)
        self.calls += 1
        return Evaluation(logits=logits, value=value)


class UniformEvaluator:
    """A stand-in network: uniform policy over legal steps and value 0 everywhere.

    With it the search is driven by terminal values alone (useful in tests and as a
    network-free baseline).
    """

    def __init__(self) -> None:
        self.seconds = 0.0
        self.positions = 0
        self.calls = 0

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> Evaluation:
        """Return zero logits ``[L, A]`` and zero values ``[L]``."""
        self.positions += len(obs)
        self.calls += 1
        return Evaluation(
            logits=np.zeros(mask.shape, np.float32), value=np.zeros(len(mask), np.float32)
        )
