"""The search with the sparse network evaluated inside compiled code.

With a network that has a compiled forward pass (:mod:`drl.encode.sparse_net`), a whole
search of B trees is one call: every tree's simulations run in turn, each new leaf is
evaluated where the descent reaches it (features read from the bitboards, logits of its
legal steps only), expanded and backed up at once. No observation planes are built and
there is no Python round trip per leaf batch.

The trees are the same as those of the batched path (:func:`drl.search.kernels.
select_leaves` / :func:`~drl.search.kernels.expand_and_backup`) with the same network:
each tree's simulations depend only on that tree, and the root selection draws its
noise while the roots are expanded, in the same order.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from drl.encode.features import active_features
from drl.encode.sparse_net import hidden, logit, value_of
from drl.game import kernels as G
from drl.game.kernels import G_PLEN, G_PREFIX, G_REPS, MAX_STEPS
from drl.rules.core import MAX_MOVES, MOVE_WIDTH, STATE_SIZE
from drl.search.kernels import descend, expand
from drl.search.tree import NO_NODE

__all__ = ["search_with_net"]


@njit(cache=True)
def _evaluate(tree, b, u, params, net, scratch, moves, steps, lg):
    """Evaluate node ``u`` with the network and expand it.

    ``moves`` holds its legal moves. Returns False, changing nothing, when its edges would
    not fit. Raises FloatingPointError when the value or a logit is not finite (finite
    weights can still overflow), before anything is expanded.
    """
    pos = tree.pos[b, u]
    prm = tree.params[b]
    k = G.legal_step_list(pos, prm, moves, steps)
    if tree.num_edges[b] + k > tree.action.shape[1]:
        return False
    n = active_features(
        pos[:STATE_SIZE],
        prm,
        pos[G_PREFIX : G_PREFIX + MAX_STEPS],
        pos[G_PLEN],
        pos[G_REPS],
        scratch.idx,
        scratch.val,
    )
    hidden(net, scratch, n)
    value = value_of(net, scratch)
    if not np.isfinite(value):
        raise FloatingPointError("value")
    for i in range(k):
        lg[i] = logit(net, scratch, steps[i])
        if not np.isfinite(lg[i]):
            raise FloatingPointError("policy_logits")
    expand(tree, b, u, steps, lg, k, value, params)
    return True


@njit(cache=True)
def search_with_net(tree, params, net, scratch, done, seed):
    """Run the searches of all B trees with the network inside.

    The caller has loaded the roots (:func:`drl.search.kernels.init_roots`) and started
    the root selection. Tree ``b`` runs simulations ``done[b] .. budget[b] - 1``; a root
    not expanded yet (``done[b] == -1``) is evaluated first, all roots before any
    simulation, so the roots' edges must fit the edge arrays (the root selection draws
    its noise from one seeded stream while they are expanded).

    Args:
        tree: the trees.
        params: :class:`~drl.search.tree.SearchParams`.
        net: :class:`~drl.encode.sparse_net.SparseWeights`.
        scratch: :class:`~drl.encode.sparse_net.SparseScratch` sized for ``net``.
        done: ``int64[B]`` simulations each tree has run, -1 = root not expanded;
            updated.
        seed: seeds numba's generator for the root selection's draws (on the call that
            expands the roots; a call that resumes draws nothing).

    Returns:
        ``(complete, evaluations)``: ``complete`` is False when a tree ran out of edge
        room (grow the edge arrays and call again: ``done`` says where each tree
        stopped); ``evaluations`` counts the network evaluations of this call.

    Raises:
        ValueError: if a root's edges do not fit the edge arrays.
        FloatingPointError: if the network's value or a logit is not finite (the message
            names which: ``value`` or ``policy_logits``); the trees are then unusable.
    """
    moves = np.empty((MAX_MOVES, MOVE_WIDTH), dtype=np.int64)
    played = np.empty(MOVE_WIDTH, dtype=np.int64)
    steps = np.empty(MAX_MOVES, dtype=np.int64)
    lg = np.empty(MAX_MOVES, dtype=np.float64)
    evals = 0
    nb = tree.budget.shape[0]
    seeded = False
    for b in range(nb):
        if tree.budget[b] == 0 or done[b] >= 0:
            continue
        if not seeded:
            np.random.seed(seed)
            seeded = True
        G.generate(tree.pos[b, 0], tree.params[b], moves)
        if not _evaluate(tree, b, 0, params, net, scratch, moves, steps, lg):
            raise ValueError("search_with_net: the root's edges do not fit the edge arrays")
        evals += 1
        done[b] = 0
    for b in range(nb):
        if tree.budget[b] == 0:
            continue
        for sim in range(done[b], tree.budget[b]):
            c = descend(tree, b, params, sim, moves, played)
            if c != NO_NODE:
                if not _evaluate(tree, b, c, params, net, scratch, moves, steps, lg):
                    _undo_child(tree, b, c)
                    return False, evals
                evals += 1
            done[b] = sim + 1
    return True, evals


@njit(cache=True)
def _undo_child(tree, b, c):
    """Remove the node ``c`` just created by a descent.

    It is the last node, not expanded, with no visits backed up; the simulation can then
    be run again once the edges have grown.
    """
    tree.child[b, tree.parent_edge[b, c]] = NO_NODE
    tree.num_nodes[b] = c
