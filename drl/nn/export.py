"""A trained network as a file other programs can run without drl: ``drl-export``.

The exported model takes the observation planes drl's encoder makes
(:func:`drl.encode.encode_planes`: ``float32[B, C, n, n]``, from the view of the player to
move) and returns two tensors: ``policy_logits`` (``float32[B, A]``, unmasked: mask the
illegal steps before any softmax; step ``from * 4 * D + dir * D + dist - 1``) and
``value`` (``float32[B]`` in ``[-1, 1]`` for the player to move). The batch size B is
free (1 to :data:`MAX_BATCH`). The auxiliary heads, a training signal only, are left out.

Formats (:data:`FORMATS`):

- ``torch-export`` (``.pt2``, the default): ``torch.export``'s program; load it with
  ``torch.export.load(path).module()``, no drl needed, nothing beyond torch.
- ``torchscript`` (``.ts``): ``torch.jit.trace``; load it with ``torch.jit.load`` (also
  from C++ libtorch). Newer torch versions warn that TorchScript is deprecated.
- ``onnx`` (``.onnx``): ``torch.onnx.export``; needs the ``onnx`` and ``onnxscript``
  packages, which drl does not install (``pip install onnx onnxscript``).
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any

import torch

__all__ = ["FORMATS", "MAX_BATCH", "ExportedNet", "export_network", "load_exported"]

FORMATS = {"torch-export": ".pt2", "torchscript": ".ts", "onnx": ".onnx"}
"""Export format -> the usual file suffix."""

MAX_BATCH = 65536
"""Largest batch the exported model is declared for."""


class ExportedNet(torch.nn.Module):
    """The network's forward pass with plain tensors out: ``(policy_logits, value)``.

    Args:
        net: a :class:`~drl.nn.PolicyValueModel` (put in eval mode).
    """

    def __init__(self, net: Any) -> None:
        super().__init__()
        self.net = net.eval()

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``float32[B, C, n, n]`` planes -> ``(float32[B, A] logits, float32[B] value)``."""
        out = self.net(obs)
        return out.policy_logits, out.value


def _example(net: Any, batch: int = 2) -> torch.Tensor:
    cfg = net.config
    gen = torch.Generator().manual_seed(0)
    shape = (batch, cfg.in_channels, cfg.board_size, cfg.board_size)
    return (torch.rand(shape, generator=gen) < 0.2).float()


def export_network(net: Any, path: str | os.PathLike, fmt: str = "torch-export") -> Path:
    """Write ``net`` (on the CPU, in eval mode) to ``path`` in format ``fmt``.

    Args:
        net: a network, e.g. from :func:`drl.agents.az.load_network`.
        path: the file to write (its folder is created).
        fmt: one of :data:`FORMATS`.

    Returns:
        ``path``.

    Raises:
        ValueError: an unknown format, or ``onnx`` without the ``onnx`` / ``onnxscript``
            packages (the message says what to install).
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; formats: {', '.join(FORMATS)}")
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    model = ExportedNet(net.to("cpu")).eval()
    example = _example(net)
    batch = torch.export.Dim("batch", min=1, max=MAX_BATCH)
    with torch.no_grad():
        if fmt == "torch-export":
            program = torch.export.export(model, (example,), dynamic_shapes=({0: batch},))
            torch.export.save(program, str(out))
        elif fmt == "torchscript":
            with warnings.catch_warnings():  # the input-shape check is fixed at trace time
                warnings.simplefilter("ignore", torch.jit.TracerWarning)
                torch.jit.trace(model, example).save(str(out))
        else:
            try:
                import onnx  # type: ignore[import-not-found]  # noqa: F401
                import onnxscript  # type: ignore[import-not-found]  # noqa: F401
            except ImportError as err:
                raise ValueError(
                    f"format onnx needs the {err.name} package: pip install onnx onnxscript"
                ) from None
            torch.onnx.export(
                model,
                (example,),
                str(out),
                input_names=["obs"],
                output_names=["policy_logits", "value"],
                dynamic_shapes=({0: batch},),
                dynamo=True,
            )
    return out


def load_exported(path: str | os.PathLike, fmt: str = "torch-export") -> Any:
    """The callable model of an exported file (``torch-export`` or ``torchscript``).

    Raises:
        ValueError: a format this function does not load (``onnx``: use onnxruntime).
    """
    if fmt == "torch-export":
        return torch.export.load(str(path)).module()
    if fmt == "torchscript":
        return torch.jit.load(str(path))
    raise ValueError(f"load_exported reads torch-export and torchscript files, not {fmt!r}")
