"""Gumbel root selection: Gumbel top-m sampling and sequential halving at the root.

The improved policy is the training target. ``docs/internals.md``, "Gumbel root selection",
describes the method step by step.

Each root edge gets a score ``g + log prior`` (``g`` a Gumbel sample when exploring, 0
otherwise). With m actions considered and n simulations, the simulations are split into
about ``log2(m)`` phases; in each phase every action still considered gets the same
number of extra visits, then the better half (by ``g + log prior + sigma(Q)``) stays.
The search follows the schedule by visiting, at simulation i, the best root edge whose
visit count equals ``schedule[i]`` (:func:`halving_schedule`). Q is completed (unvisited
edges get a mixed value estimate) and min-max normalised; ``sigma(q) = (c_visit +
max visits) * c_scale * q``. The action played is the most visited edge with the best
``g + log prior + sigma(Q)``; the policy target is ``softmax(log prior + sigma(Q))``.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from numba import njit

from drl.search.config import SearchConfig
from drl.search.tree import GUMBEL, Tree

__all__ = [
    "GumbelRoot",
    "completed_q",
    "draw_root_scores",
    "gumbel_outputs",
    "gumbel_root_edge",
    "halving_schedule",
]


@lru_cache(maxsize=1024)
def _schedule(num_considered: int, num_simulations: int) -> tuple[int, ...]:
    if num_considered <= 1:
        return tuple(range(num_simulations))
    phases = math.ceil(math.log2(num_considered))
    visits = [0] * num_considered
    out: list[int] = []
    width = num_considered
    while len(out) < num_simulations:
        extra = max(1, num_simulations // (phases * width))
        for _ in range(extra):
            out.extend(visits[:width])
            for i in range(width):
                visits[i] += 1
        width = max(2, width // 2)
    return tuple(out[:num_simulations])


def _schedule_past(num_considered: int, num_simulations: int, length: int) -> np.ndarray:
    """The schedule of ``num_simulations`` continued to ``length`` entries.

    The entries past ``num_simulations`` go on with the last phase (its two actions
    visited in turn). The first ``num_simulations`` are those of :func:`_schedule`.
    """
    if num_considered <= 1:
        return np.arange(length, dtype=np.int64)
    phases = math.ceil(math.log2(num_considered))
    parts, total, visits, width = [], 0, 0, num_considered
    while total < length:
        extra = max(1, num_simulations // (phases * width))
        if width == 2 and total >= num_simulations:
            extra = max(extra, -(-(length - total) // 2))  # the rest in one go
        parts.append(np.repeat(visits + np.arange(extra, dtype=np.int64), width))
        total += extra * width
        visits += extra
        width = max(2, width // 2)
    return np.concatenate(parts)[:length]


def halving_schedule(
    num_considered: int, num_simulations: int, length: int | None = None
) -> np.ndarray:
    """Visit count that the action chosen at each simulation must have beforehand.

    Args:
        num_considered: m >= 1, actions sampled for consideration at the root.
        num_simulations: n >= 0, the simulations the halving is planned for.
        length: entries wanted (default n); past n the last phase goes on, its two
            actions visited in turn (a search that runs past its plan, e.g. on a clock).

    Returns:
        ``int64[length]``; its first n entries do not depend on ``length``.

    Raises:
        ValueError: if m < 1, n < 0 or ``length`` < n.
    """
    if num_considered < 1 or num_simulations < 0:
        raise ValueError(
            f"need num_considered >= 1 and num_simulations >= 0, got "
            f"{num_considered}, {num_simulations}"
        )
    if length is not None and length != num_simulations:
        if length < num_simulations:
            raise ValueError(f"length {length} is below num_simulations {num_simulations}")
        return _schedule_past(int(num_considered), int(num_simulations), int(length))
    return np.asarray(_schedule(int(num_considered), int(num_simulations)), dtype=np.int64)


@njit(cache=True)
def completed_q(tree, b, out):
    """Completed, min-max normalised Q of tree ``b``'s root edges, for the root's player.

    ``docs/internals.md``, "Gumbel root selection", "Completed Q".

    Unvisited edges get the mixed value ``v_mix`` of the root's network value and the
    prior-weighted mean Q of the visited edges. Writes ``out[i]`` in ``[0, 1]`` for root
    edge i (0.5 for all when every Q is equal) and returns the most visits of a root edge.
    """
    start = tree.edge_start[b, 0]
    k = tree.edge_count[b, 0]
    total = 0
    pw = 0.0
    pq = 0.0
    for e in range(start, start + k):
        ev = tree.edge_visits[b, e]
        if ev > 0:
            total += ev
            pw += tree.prior[b, e]
            pq += tree.prior[b, e] * tree.edge_value_sum[b, e] / ev
    if total > 0 and pw > 0.0:
        v_mix = (tree.root_value[b] + total * pq / pw) / (1.0 + total)
    else:
        v_mix = tree.root_value[b]
    lo = 1e300
    hi = -1e300
    max_visits = 0
    for i in range(k):
        ev = tree.edge_visits[b, start + i]
        q = tree.edge_value_sum[b, start + i] / ev if ev > 0 else v_mix
        out[i] = q
        lo = min(lo, q)
        hi = max(hi, q)
        max_visits = max(max_visits, ev)
    span = hi - lo
    for i in range(k):
        out[i] = (out[i] - lo) / span if span > 1e-12 else 0.5
    return max_visits


@njit(cache=True)
def draw_root_scores(tree, b):
    """Score every root edge of tree ``b``: ``root_score[b, i] = g + log prior``.

    ``g = gumbel_scale[b] * Gumbel(0, 1)``, drawn from numba's generator (seeded by the
    caller).
    """
    start = tree.edge_start[b, 0]
    scale = tree.gumbel_scale[b]
    for i in range(tree.edge_count[b, 0]):
        g = 0.0
        if scale > 0.0:
            g = scale * np.random.gumbel(0.0, 1.0)
        tree.root_score[b, i] = g + math.log(max(tree.prior[b, start + i], 1e-30))


@njit(cache=True)
def gumbel_root_edge(tree, b, sim, c_visit, c_scale):
    """The root edge of tree ``b`` to visit at simulation ``sim``.

    Among the edges with ``schedule[b, sim]`` visits, the best
    ``g + log prior + sigma(completed Q)``; -1 if no edge has that many visits.
    """
    q = tree.root_work[b]
    max_visits = completed_q(tree, b, q)
    target = tree.schedule[b, sim]
    sigma = (c_visit + max_visits) * c_scale
    start = tree.edge_start[b, 0]
    best = -1
    best_score = -1e300
    for i in range(tree.edge_count[b, 0]):
        if tree.edge_visits[b, start + i] == target:
            score = tree.root_score[b, i] + sigma * q[i]
            if score > best_score:
                best_score = score
                best = start + i
    return best


@njit(cache=True)
def gumbel_outputs(tree, c_visit, c_scale, policy_out, action_out):
    """Improved policy and action of every searched root.

    Writes ``policy_out[b, a]`` = ``softmax(log prior + sigma(completed Q))`` over the
    root's steps (0 elsewhere) and ``action_out[b]`` = the step of the most visited edge
    with the best ``g + log prior + sigma(completed Q)``; rows with ``budget`` 0 get
    zeros and -1. ``policy_out`` is ``float32[B', A]``, ``action_out`` ``int64[B']``,
    ``B' <= B``.
    """
    for b in range(action_out.shape[0]):
        policy_out[b, :] = 0.0
        action_out[b] = -1
        if tree.budget[b] == 0:
            continue
        q = tree.root_work[b]
        max_visits = completed_q(tree, b, q)
        sigma = (c_visit + max_visits) * c_scale
        start = tree.edge_start[b, 0]
        k = tree.edge_count[b, 0]
        mx = -1e300
        for i in range(k):
            mx = max(mx, math.log(max(tree.prior[b, start + i], 1e-30)) + sigma * q[i])
        total = 0.0
        for i in range(k):
            w = math.exp(math.log(max(tree.prior[b, start + i], 1e-30)) + sigma * q[i] - mx)
            policy_out[b, tree.action[b, start + i]] = w
            total += w
        best = -1e300
        for i in range(k):
            e = start + i
            policy_out[b, tree.action[b, e]] /= total
            if tree.edge_visits[b, e] == max_visits:
                score = tree.root_score[b, i] + sigma * q[i]
                if score > best:
                    best = score
                    action_out[b] = tree.action[b, e]


class GumbelRoot:
    """Gumbel root selection: sequential halving, improved-policy target.

    Args:
        config: the search settings (``gumbel_*``).
    """

    code = GUMBEL

    def __init__(self, config: SearchConfig) -> None:
        self.config = config

    def start(
        self, tree: Tree, explore: np.ndarray, root_legal: np.ndarray, past_budget: bool = False
    ) -> None:
        """Gumbel scales and halving schedules for a new search.

        Args:
            tree: ``budget`` already set (the simulations the halving is planned for).
            explore: ``bool[B]``: Gumbel samples in the root scores.
            root_legal: ``int64[B]`` legal steps of each root.
            past_budget: continue each schedule past its budget to the whole width of
                ``tree.schedule`` (:func:`halving_schedule`'s ``length``), for a search
                that may run more simulations than planned.
        """
        tree.noise[:] = 0.0
        tree.gumbel_scale[:] = np.where(explore, 1.0, 0.0)
        width = tree.schedule.shape[1]
        for b in np.flatnonzero(tree.budget > 0):
            m = min(self.config.gumbel_max_considered, int(root_legal[b]))
            n = int(tree.budget[b])
            length = width if past_budget else n
            tree.schedule[b, :length] = halving_schedule(m, n, length)

    def finish(
        self, tree: Tree, visits: np.ndarray, explore: np.ndarray, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(action int64[B], policy float32[B, A])``: the halving winner and improved policy.

        The winner is sampled through the Gumbel noise when exploring; -1 and zeros where
        not searched.
        """
        policy = np.zeros(visits.shape, np.float32)
        action = np.zeros(len(visits), np.int64)
        gumbel_outputs(tree, self.config.gumbel_c_visit, self.config.gumbel_c_scale, policy, action)
        return action, policy
