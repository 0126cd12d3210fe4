"""What the learner, the evaluator and the agents need from a network: a small protocol.

Any architecture registered with :func:`drl.nn.register_arch` builds an object that
satisfies :class:`PolicyValueModel` (a ``torch.nn.Module`` whose forward pass maps
observation planes to a :class:`NetOutput`). This module does not import torch.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:  # pragma: no cover
    import torch

__all__ = ["NetOutput", "PolicyValueModel"]


@dataclass(frozen=True)
class NetOutput:
    """What a network returns for a batch of B positions: logits, value and aux heads.

    Attributes:
        policy_logits: ``[B, A]`` float32, unmasked; mask illegal steps before any softmax.
        value: ``[B]`` float32 in ``[-1, 1]``, expected result for the player to move.
        pieces_left: ``[B, 2]`` float32 in ``[0, 1]`` or None (no auxiliary heads):
            predicted fraction of the starting men left at the end of the game for
            (player to move, opponent).
        plies_left: ``[B]`` float32 >= 0 or None (no auxiliary heads): predicted plies to
            the end of the game, divided by the configured scale.
    """

    policy_logits: torch.Tensor
    value: torch.Tensor
    pieces_left: torch.Tensor | None = None
    plies_left: torch.Tensor | None = None


@runtime_checkable
class PolicyValueModel(Protocol):
    """A policy-value network as the rest of drl uses it (``torch.nn.Module`` methods).

    Attributes:
        arch: the registered architecture name (set by :func:`drl.nn.build`).
        config: the architecture's config dataclass; it has at least ``in_channels``,
            ``board_size`` and ``num_actions``.
    """

    arch: str
    config: Any

    def __call__(self, obs: torch.Tensor) -> NetOutput:
        """Evaluate ``[B, C, H, W]`` float32 observation planes (player to move's view)."""
        ...

    def parameters(self) -> Iterator[torch.nn.Parameter]:
        """The network's weight tensors (``torch.nn.Module.parameters``)."""
        ...

    def state_dict(self) -> dict[str, Any]:
        """The weights and buffers by name, as checkpoints store them."""
        ...

    def load_state_dict(self, state_dict: Mapping[str, Any], strict: bool = True) -> Any:
        """Load weights saved by :meth:`state_dict` (all names must match when ``strict``)."""
        ...

    def train(self, mode: bool = True) -> PolicyValueModel:
        """Switch to training mode (``mode=False``: eval mode); returns the network."""
        ...

    def eval(self) -> PolicyValueModel:
        """Switch to eval mode (batch norm uses its running statistics); returns the network."""
        ...

    def to(self, *args: Any, **kwargs: Any) -> PolicyValueModel:
        """Move the weights to a device or dtype (``torch.nn.Module.to``); returns the network."""
        ...
