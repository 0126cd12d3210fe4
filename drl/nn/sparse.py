"""The sparse policy-value network (architecture ``sparse``) and its compiled weights.

The torch twin the learner trains, and its weights in the layout of the compiled forward
pass.

The network reads the sparse features of :mod:`drl.encode.features`. Here they are
gathered from the observation planes the replay buffer stores (``planes.reshape(B, -1)
[:, plane_index(n)]``), so training needs nothing new; inside the search the same
numbers are read from the bitboards and the network runs compiled
(:mod:`drl.encode.sparse_net`), on the weights :meth:`SparseNet.compiled_weights`
exports. Both compute::

    h1 = relu(W1 x + b1)          # [H1], x the F features (F = 208 on 8x8, 316 on 10x10)
    h2 = relu(W2 h1 + b2)         # [H2]
    value = tanh(wv . h2 + bv)    # [-1, 1], for the player to move
    logits = Wp h2 + bp           # [A], one row per step action

and the optional auxiliary heads (pieces left, plies left) read ``h2`` too.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from drl.encode.features import num_features, plane_index
from drl.encode.sparse_net import SparseWeights
from drl.nn.config import SparseConfig
from drl.nn.model import NetOutput

__all__ = ["SparseConfig", "SparseNet"]


class SparseNet(nn.Module):
    """Two-hidden-layer network over sparse position features.

    Args:
        config: sizes, see :class:`~drl.nn.config.SparseConfig`.

    Raises:
        ValueError: if ``num_actions`` does not match the board size.
    """

    arch: str  # the registered architecture name, set by drl.nn.build

    def __init__(self, config: SparseConfig) -> None:
        super().__init__()
        from drl.encode.actions import num_actions

        if config.num_actions != num_actions(config.board_size):
            raise ValueError(
                f"SparseConfig.num_actions is {config.num_actions}; a {config.board_size}x"
                f"{config.board_size} board has {num_actions(config.board_size)} step actions"
            )
        self.config = config
        self.register_buffer(
            "gather", torch.from_numpy(plane_index(config.board_size)), persistent=False
        )
        self.fc1 = nn.Linear(num_features(config.board_size), config.hidden)
        self.fc2 = nn.Linear(config.hidden, config.hidden2)
        self.value_out = nn.Linear(config.hidden2, 1)
        self.policy_out = nn.Linear(config.hidden2, config.num_actions)
        self.aux_out = nn.Linear(config.hidden2, 3) if config.aux_heads else None

    gather: torch.Tensor  # int64[F]: the plane cell of each feature (a buffer)

    def features(self, obs: torch.Tensor) -> torch.Tensor:
        """``float32[B, F]`` features gathered from ``float32[B, C, n, n]`` planes."""
        return obs.reshape(obs.shape[0], -1).index_select(1, self.gather)

    def forward(self, obs: torch.Tensor) -> NetOutput:
        """Evaluate ``[B, C, n, n]`` observation planes (player to move's view)."""
        h = F.relu(self.fc2(F.relu(self.fc1(self.features(obs.float())))))
        logits = self.policy_out(h)
        value = torch.tanh(self.value_out(h)).squeeze(1)
        if self.aux_out is None:
            return NetOutput(logits, value)
        aux = self.aux_out(h)
        return NetOutput(logits, value, torch.sigmoid(aux[:, :2]), F.softplus(aux[:, 2]))

    def num_parameters(self) -> int:
        """Number of trainable parameters."""
        return sum(p.numel() for p in self.parameters())

    def compiled_weights(self) -> SparseWeights:
        """The current weights as :class:`~drl.encode.sparse_net.SparseWeights` for the search.

        They are float32, C-contiguous copies on the CPU, in the layout of the compiled forward
        pass.

        Exported afresh at every call (about 0.1 ms for 256 / 32 units), so every way of
        changing the parameters is seen and no two callers share arrays.
        """

        def arr(t: torch.Tensor) -> np.ndarray:  # a copy: never the parameter's memory
            return np.array(t.detach().float().cpu().numpy(), np.float32, order="C", copy=True)

        with torch.no_grad():
            weights = SparseWeights(
                w1=arr(self.fc1.weight.t()),
                b1=arr(self.fc1.bias),
                w2=arr(self.fc2.weight),
                b2=arr(self.fc2.bias),
                wv=arr(self.value_out.weight[0]),
                bv=arr(self.value_out.bias),
                wp=arr(self.policy_out.weight),
                bp=arr(self.policy_out.bias),
            )
        return weights
