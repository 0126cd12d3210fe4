"""The search's contract with the network: small frozen dataclasses.

Values are always from the point of view of the player to move at the evaluated
position (a multi-jump keeps the same player to move for all its steps).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from drl.encode.sparse_net import SparseWeights

__all__ = ["Evaluation", "Evaluator", "SearchResult", "compiled_weights"]


@dataclass(frozen=True)
class Evaluation:
    """Network output for a batch of L leaves.

    Attributes:
        logits: ``[L, A]`` float32 policy logits over step actions; entries of illegal
            actions are ignored by the search (it masks them before the softmax).
        value: ``[L]`` float32 in ``[-1, 1]``, for the player to move at the leaf.
    """

    logits: np.ndarray
    value: np.ndarray


class Evaluator(Protocol):
    """Anything that maps observations and legal masks to an :class:`Evaluation`."""

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> Evaluation:
        """Evaluate L positions.

        Args:
            obs: ``[L, C, H, W]`` float32 observation planes.
            mask: ``[L, A]`` bool, True = legal step.
        """
        ...


def compiled_weights(evaluate: object) -> SparseWeights | None:
    """The weights of an evaluator whose network runs inside the compiled search.

    The result of its ``compiled_weights()`` method (a
    :class:`~drl.encode.sparse_net.SparseWeights`), or None for an evaluator without one
    (it is called with batches of observation planes).
    """
    method = getattr(evaluate, "compiled_weights", None)
    return None if method is None else method()


@dataclass(frozen=True)
class SearchResult:
    """What one batched search returns for B roots.

    Attributes:
        action: ``[B]`` int64 step action to play per root, -1 for roots not searched.
            Gumbel: the halving winner (sampled through the Gumbel noise when
            exploring). PUCT: the most visited step, or while exploring in the game's
            first ``temperature_plies`` plies a step sampled from
            ``visits ** (1 / temperature)``.
        visits: ``[B, A]`` float32 visit count of each root step.
        q: ``[B, A]`` float32 mean backed-up value of each root step for the root's
            player to move (0 where unvisited).
        policy: ``[B, A]`` float32 training target over steps (visit distribution for
            PUCT, improved policy for Gumbel); 0 on illegal steps, rows sum to 1.
        root_value: ``[B]`` float32 search value of the root for its player to move.
        legal: ``[B, A]`` bool legal steps at the root (all False where not searched).
        simulations: total simulations run (summed over roots).
        leaf_evals: leaves sent to the network (summed over rounds).
        net_batches: network calls made.
    """

    action: np.ndarray
    visits: np.ndarray
    q: np.ndarray
    policy: np.ndarray
    root_value: np.ndarray
    legal: np.ndarray
    simulations: int
    leaf_evals: int
    net_batches: int
