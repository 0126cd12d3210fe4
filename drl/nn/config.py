"""Sizes of the residual and the sparse policy-value networks.

Torch-free, so that configs can be read and checked without importing torch.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

__all__ = ["NetConfig", "SparseConfig"]


@dataclass(frozen=True)
class NetConfig:
    """Shape and size of a :class:`~drl.nn.PolicyValueNet` (architecture ``resnet``).

    ``in_channels``, ``board_size`` and ``num_actions`` follow from the game and the
    encoder; the other fields are the model's size and are what ``configs/model/*.yaml``
    choose (the defaults here are ``model=small``).

    Attributes:
        in_channels: observation planes C.
        board_size: H = W (8 or 10).
        num_actions: A, the number of step actions (896 on 8x8, 1800 on 10x10).
        channels: width of the residual tower.
        blocks: number of residual blocks.
        policy_channels: 1x1-conv channels feeding the policy's linear layer.
        value_channels: 1x1-conv channels feeding the value MLP.
        value_hidden: hidden units of the value MLP.
        aux_heads: also predict pieces left per side at the end and plies to the end.

    Raises:
        ValueError: if a size is below 1 (``blocks`` below 0) or above its limit
            (``channels``, ``policy_channels``, ``value_channels`` 1024, ``blocks`` 256,
            ``value_hidden`` 65536), naming the field.
    """

    in_channels: int
    board_size: int
    num_actions: int
    channels: int = 32
    blocks: int = 3
    policy_channels: int = 4
    value_channels: int = 2
    value_hidden: int = 64
    aux_heads: bool = True

    def __post_init__(self) -> None:
        # The tops keep a network that the machine can build: ``blocks=100000`` would
        # take minutes and gigabytes before anything checks the memory it needs.
        for name, low, top in (
            ("in_channels", 1, 1024),
            ("board_size", 1, 10),
            ("num_actions", 1, 1_000_000),
            ("channels", 1, 1024),
            ("blocks", 0, 256),
            ("policy_channels", 1, 1024),
            ("value_channels", 1, 1024),
            ("value_hidden", 1, 65536),
        ):
            value = int(getattr(self, name))
            if not low <= value <= top:
                raise ValueError(f"NetConfig.{name} must lie in [{low}, {top}], got {value}")

    def to_dict(self) -> dict:
        """Plain-dict form, stored in checkpoints."""
        return asdict(self)


@dataclass(frozen=True)
class SparseConfig:
    """Shape and size of a :class:`~drl.nn.sparse.SparseNet` (architecture ``sparse``).

    The network reads the sparse features of :mod:`drl.encode.features` (gathered from
    the observation planes when it trains, read from the bitboards inside the search)
    through two hidden layers; the policy has one weight row per step action, so the
    search computes the logits of the legal steps only.

    Attributes:
        in_channels: observation planes C (the features are gathered from them).
        board_size: 8 or 10.
        num_actions: A, the number of step actions (896 on 8x8, 1800 on 10x10).
        hidden: H1, units of the first layer (summed from the active features).
        hidden2: H2, units of the second layer (the value and the logits read it).
        aux_heads: also predict pieces left per side and plies to the end (training
            signal only; the search does not compute them).

    Raises:
        ValueError: if a size is below 1 or above its limit (``hidden`` 4096,
            ``hidden2`` 1024), naming the field.
    """

    in_channels: int
    board_size: int
    num_actions: int
    hidden: int = 256
    hidden2: int = 32
    aux_heads: bool = True

    def __post_init__(self) -> None:
        for name, top in (
            ("in_channels", 1024),
            ("board_size", 10),
            ("num_actions", 1_000_000),
            ("hidden", 4096),
            ("hidden2", 1024),
        ):
            value = int(getattr(self, name))
            if not 1 <= value <= top:
                raise ValueError(f"SparseConfig.{name} must lie in [1, {top}], got {value}")

    def to_dict(self) -> dict:
        """Plain-dict form, stored in checkpoints."""
        return asdict(self)
