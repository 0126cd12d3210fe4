"""PUCT selection (AlphaZero): every interior node, and the root under ``"puct"``.

An edge's score is ``Q + c_puct * prior * sqrt(N) / (1 + n)``, with ``Q`` its mean value
for the player to move at its parent (an unvisited edge: the parent's mean minus
``fpu_reduction``). At the root, when exploring, the priors are mixed with Dirichlet
noise, and the action played is sampled from ``visits ** (1 / temperature)`` during the
first ``temperature_plies`` plies of the game; the training target is the visit
distribution.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from drl.rules.core import ST_PLY
from drl.search.config import SearchConfig
from drl.search.tree import PUCT, Tree

__all__ = ["PuctRoot", "add_dirichlet_noise", "puct_edge"]


@njit(cache=True)
def puct_edge(tree, b, u, c_puct, fpu_reduction):
    """The edge of node ``u`` (expanded) of tree ``b`` with the best PUCT score.

    Ties go to the first edge.
    """
    nv = tree.visits[b, u]
    sqrt_n = math.sqrt(max(nv, 1))
    fpu = (tree.value_sum[b, u] / nv if nv > 0 else 0.0) - fpu_reduction
    best = -1
    best_score = -1e300
    start = tree.edge_start[b, u]
    for e in range(start, start + tree.edge_count[b, u]):
        ev = tree.edge_visits[b, e]
        q = tree.edge_value_sum[b, e] / ev if ev > 0 else fpu
        score = q + c_puct * tree.prior[b, e] * sqrt_n / (1.0 + ev)
        if score > best_score:
            best_score = score
            best = e
    return best


@njit(cache=True)
def add_dirichlet_noise(tree, b, alpha):
    """Mix ``Dirichlet(alpha)`` noise into the priors of tree ``b``'s root edges.

    The weight is ``tree.noise[b]`` (nothing when 0 or a single edge); draws from numba's
    generator, seeded by the caller.
    """
    eps = tree.noise[b]
    start = tree.edge_start[b, 0]
    k = tree.edge_count[b, 0]
    if eps <= 0.0 or k <= 1:
        return
    work = tree.root_work[b]
    total = 0.0
    for i in range(k):
        g = np.random.gamma(alpha, 1.0)
        work[i] = g
        total += g
    total = max(total, 1e-300)
    for i in range(k):
        e = start + i
        tree.prior[b, e] = (1.0 - eps) * tree.prior[b, e] + eps * work[i] / total


class PuctRoot:
    """PUCT at the root: Dirichlet noise, visit-count target, temperature sampling.

    Args:
        config: the search settings (``dirichlet_*``, ``temperature*``).
    """

    code = PUCT

    def __init__(self, config: SearchConfig) -> None:
        self.config = config

    def start(
        self, tree: Tree, explore: np.ndarray, root_legal: np.ndarray, past_budget: bool = False
    ) -> None:
        """Noise weights for a new search (``explore``: ``bool[B]``).

        PUCT has no plan to run past: ``past_budget`` changes nothing.
        """
        tree.noise[:] = np.where(explore, self.config.dirichlet_epsilon, 0.0)
        tree.gumbel_scale[:] = 0.0

    def finish(
        self, tree: Tree, visits: np.ndarray, explore: np.ndarray, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray]:
        """The action to play and the policy target of each root.

        Args:
            tree: the searched trees (``budget`` 0 = not searched).
            visits: ``float32[B, A]`` root visit counts by step action.
            explore: ``bool[B]``.
            rng: draws the sampled actions.

        Returns:
            ``(action int64[B], policy float32[B, A])``: the most visited step (ties: the
            lowest action index), or one sampled from ``visits ** (1 / temperature)``
            while exploring in the game's first ``temperature_plies`` plies; -1 where not
            searched. The policy is the visit distribution.
        """
        cfg = self.config
        searched = tree.budget[: len(visits)] > 0
        tot = visits.sum(axis=1, keepdims=True)
        policy = np.divide(visits, tot, out=np.zeros_like(visits), where=tot > 0)
        action = np.where(searched, np.argmax(visits, axis=1), -1).astype(np.int64)
        if cfg.temperature > 0:
            plies = tree.pos[: len(visits), 0, ST_PLY]
            sample = searched & explore[: len(visits)] & (plies < cfg.temperature_plies)
            for b in np.flatnonzero(sample):
                p = visits[b].astype(np.float64) ** (1.0 / cfg.temperature)
                p /= p.sum()
                action[b] = int(rng.choice(len(p), p=p))
        return action, policy
