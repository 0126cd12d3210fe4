"""Batched inference adapter: numpy observations in, :class:`Evaluation` out."""

from __future__ import annotations

import time

import numpy as np
import torch

from drl.encode.sparse_net import SparseWeights
from drl.nn.errors import TrainingDiverged
from drl.nn.model import PolicyValueModel
from drl.search.types import Evaluation

__all__ = ["NetworkEvaluator", "UniformEvaluator", "check_weights"]


class NetworkEvaluator:
    """Runs a network (a :class:`~drl.nn.PolicyValueModel`) under ``torch.inference_mode``.

    Args:
        net: the network; it is put in eval mode.
        device: torch device for inference (``"cpu"``, ``"cuda"``); default: the
            network's device.

    Attributes:
        seconds: wall time spent inside the forward pass (incl. host/device copies),
            not counting evaluations inside the compiled search.
        positions: positions evaluated so far (batched calls only).
        calls: forward calls so far (batched calls only).

    Every batch's logits and values are checked to be finite (one reduction each, on the
    host copy), so a diverged network stops here, naming its output, instead of handing
    the search NaN priors.
    """

    def __init__(self, net: PolicyValueModel, device: str | torch.device | None = None) -> None:
        self.net = net.eval()
        self.device = torch.device(device) if device is not None else next(net.parameters()).device
        self.net.to(self.device)
        self.seconds = 0.0
        self.positions = 0
        self.calls = 0

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> Evaluation:
        """Evaluate ``[L, C, H, W]`` float32 observations; see :class:`Evaluator`.

        Returns:
            ``Evaluation(logits [L, A] float32, value [L] float32)``.

        Raises:
            TrainingDiverged: if the network's logits (all of them, legal steps or not)
                or values are NaN or infinite; the message names the output and how many
                positions have it.
        """
        t0 = time.perf_counter()
        with torch.inference_mode():
            x = torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32)).to(self.device)
            out = self.net(x)
            logits = out.policy_logits.float().cpu().numpy()
            value = out.value.float().cpu().numpy()
        self.seconds += time.perf_counter() - t0
        self.positions += len(obs)
        self.calls += 1
        for name, y in (("policy_logits", logits), ("value", value)):
            if not np.isfinite(y).all():
                _diverged(name, y)
        return Evaluation(logits=logits, value=value)

    def compiled_weights(self) -> SparseWeights | None:
        """The network's weights for the compiled search, or None without a compiled forward pass.

        A network without one is called with batches of planes.

        A network with ``compiled_weights()`` (the ``sparse`` architecture) is evaluated
        inside the search (:mod:`drl.search.inline`); its weights are exported and checked
        at every call.

        Raises:
            TrainingDiverged: if a weight is NaN or infinite.
        """
        method = getattr(self.net, "compiled_weights", None)
        if method is None:
            return None
        return check_weights(method())


def check_weights(weights: SparseWeights, source: str = "the network") -> SparseWeights:
    """``weights`` if every entry is finite.

    Raises:
        TrainingDiverged: naming the first weight array that holds a NaN or an infinity,
            and ``source`` (a checkpoint path, say).
    """
    for name, w in zip(weights._fields, weights, strict=True):
        if not np.isfinite(w).all():
            kinds = _non_finite_kinds(w)
            raise TrainingDiverged(
                f"weight {name} of {source} is not finite ({kinds} in "
                f"{int((~np.isfinite(w)).sum())} of {w.size} entries): the network's weights "
                "have diverged (a learning rate too high, or a damaged checkpoint); go back "
                "to an earlier checkpoint",
                what=f"weight {name}",
            )
    return weights


def _non_finite_kinds(x: np.ndarray) -> str:
    """``"nan"``, ``"inf"`` or ``"nan/inf"``: what is not finite in ``x``."""
    return "/".join(k for k, hit in (("nan", np.isnan(x).any()), ("inf", np.isinf(x).any())) if hit)


def _diverged(name: str, x: np.ndarray) -> None:
    bad = ~np.isfinite(x.reshape(len(x), -1)).all(axis=1)
    kinds = _non_finite_kinds(x)
    raise TrainingDiverged(
        f"network output {name} is not finite ({kinds}) for {int(bad.sum())} of {len(x)} "
        "positions: the network's weights have diverged (a learning rate too high, or "
        "a damaged checkpoint); go back to an earlier checkpoint",
        what=f"network output {name}",
    )


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
