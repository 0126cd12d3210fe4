"""The search with the sparse network evaluated inside compiled code, on every core.

With a network that has a compiled forward pass (:mod:`drl.encode.sparse_net`), a whole
search of B trees is one call: every tree's simulations run in turn, each new leaf is
evaluated where the descent reaches it (features read from the bitboards, logits of its
legal steps only), expanded and backed up at once. No observation planes are built and
there is no Python round trip per leaf batch.

The B trees are shared out over numba's threads (``numba.set_num_threads`` caps them):
thread ``t`` of ``T`` searches trees ``t, t + T, t + 2T, ...``, each tree's simulations in
order with the thread's own work space. A tree's simulations depend only on that tree
and draw no random numbers, so the result is the same, bit for bit, whatever the number
of threads. The roots are evaluated in parallel too, then expanded in tree order on one
thread, since their expansion draws the root selection's noise from one seeded stream.

The trees are the same as those of the batched path (:func:`drl.search.kernels.
select_leaves` / :func:`~drl.search.kernels.expand_and_backup`) with the same network.

Errors inside the threads are turned into a status per tree (an exception cannot cross
a parallel region) and raised once all threads have stopped.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

from drl.encode.features import MAX_ACTIVE, active_features
from drl.encode.sparse_net import SparseScratch, hidden, logit, value_of
from drl.game import kernels as G
from drl.game.kernels import G_PLEN, G_PREFIX, G_REPS, MAX_STEPS
from drl.rules.core import MAX_MOVES, MOVE_WIDTH, STATE_SIZE
from drl.search.kernels import descend, expand, solve_leaf
from drl.search.tree import NO_NODE

__all__ = ["search_with_net", "set_search_threads"]

# Status of a tree after a parallel call.
_OK = 0
_NO_ROOM = 1  # its next node's edges do not fit the edge arrays: grow them and go on
_BAD_VALUE = 2  # the network's value is not finite
_BAD_LOGIT = 3  # a policy logit is not finite
_FAILED = 4  # anything else raised inside the tree's search (a broken invariant)


@njit(cache=True)
def _work_space(net):
    """One thread's buffers: moves, the step played, legal steps, logits, the net's."""
    moves = np.empty((MAX_MOVES, MOVE_WIDTH), dtype=np.int64)
    played = np.empty(MOVE_WIDTH, dtype=np.int64)
    steps = np.empty(MAX_MOVES, dtype=np.int64)
    lg = np.empty(MAX_MOVES, dtype=np.float64)
    scratch = SparseScratch(
        np.empty(MAX_ACTIVE, np.int64),
        np.empty(MAX_ACTIVE, np.float32),
        np.empty(net.b1.shape[0], np.float32),
        np.empty(net.b2.shape[0], np.float32),
    )
    return moves, played, steps, lg, scratch


@njit(cache=True)
def _forward(tree, b, u, net, scratch, moves, steps, lg):
    """The network's value and legal-step logits at node ``u`` (``moves``: its moves).

    Returns ``(status, k, value)`` with the ``k`` legal steps in ``steps`` and their
    logits in ``lg``; the status is ``_NO_ROOM`` (nothing evaluated) when the node's
    edges would not fit, ``_BAD_VALUE`` / ``_BAD_LOGIT`` for a non-finite output.
    """
    pos = tree.pos[b, u]
    prm = tree.params[b]
    k = G.legal_step_list(pos, prm, moves, steps)
    if tree.num_edges[b] + k > tree.action.shape[1]:
        return _NO_ROOM, k, 0.0
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
        return _BAD_VALUE, k, 0.0
    for i in range(k):
        lg[i] = logit(net, scratch, steps[i])
        if not np.isfinite(lg[i]):
            return _BAD_LOGIT, k, 0.0
    return _OK, k, value


@njit(cache=True)
def _run_tree(tree, b, params, net, done, space, db, egtb):
    """Simulations ``done[b] .. budget[b] - 1`` of tree ``b``; returns (status, evaluations).

    A tree that runs out of edge room has the node just created removed and ``done[b]``
    left at the simulation to run again.
    """
    moves, played, steps, lg, scratch = space
    evals = 0
    for sim in range(done[b], tree.budget[b]):
        c = descend(tree, b, params, sim, moves, played)
        if c != NO_NODE and egtb[b] >= 0 and solve_leaf(tree, b, c, db, egtb[b]):
            c = NO_NODE
        if c != NO_NODE:
            st, k, value = _forward(tree, b, c, net, scratch, moves, steps, lg)
            if st != _OK:
                if st == _NO_ROOM:
                    _undo_child(tree, b, c)
                return st, evals
            expand(tree, b, c, steps, lg, k, value, params)
            evals += 1
        done[b] = sim + 1
    return _OK, evals


@njit(cache=True)
def _run_tree_guarded(tree, b, params, net, done, space, db, egtb):
    """:func:`_run_tree`, with any exception turned into ``_FAILED``."""
    try:
        return _run_tree(tree, b, params, net, done, space, db, egtb)
    except Exception:  # noqa: BLE001 - reported as a status, raised by the caller
        return _FAILED, 0


@njit(cache=True, parallel=True)
def _run_trees(tree, params, net, done, status, evals, nt, db, egtb):
    """:func:`_run_tree` of every tree with simulations left, shared over ``nt`` threads."""
    nb = tree.budget.shape[0]
    for t in prange(nt):
        space = _work_space(net)
        for b in range(t, nb, nt):
            if tree.budget[b] == 0 or done[b] >= tree.budget[b]:
                continue
            st, n = _run_tree_guarded(tree, b, params, net, done, space, db, egtb)
            status[b] = st
            evals[b] += n


@njit(cache=True)
def _root_forward(tree, b, net, space, root_steps, root_lg):
    moves, _played, steps, lg, scratch = space
    G.generate(tree.pos[b, 0], tree.params[b], moves)
    st, k, value = _forward(tree, b, 0, net, scratch, moves, steps, lg)
    if st == _OK:
        root_steps[b, :k] = steps[:k]
        root_lg[b, :k] = lg[:k]
    return st, k, value


@njit(cache=True, parallel=True)
def _evaluate_roots(tree, net, done, status, ks, values, root_steps, root_lg, nt):
    """The network at every root not expanded yet (``done[b] == -1``), over ``nt`` threads."""
    nb = tree.budget.shape[0]
    for t in prange(nt):
        space = _work_space(net)
        for b in range(t, nb, nt):
            if tree.budget[b] == 0 or done[b] >= 0:
                continue
            st, k, value = _root_forward(tree, b, net, space, root_steps, root_lg)
            status[b] = st
            ks[b] = k
            values[b] = value


@njit(cache=True)
def _expand_roots(tree, params, done, ks, values, root_steps, root_lg, seed):
    """Expand the evaluated roots in tree order; the first draws from ``seed``.

    Returns the roots expanded.
    """
    seeded = False
    n = 0
    for b in range(tree.budget.shape[0]):
        if tree.budget[b] == 0 or done[b] >= 0:
            continue
        if not seeded:
            np.random.seed(seed)
            seeded = True
        expand(tree, b, 0, root_steps[b], root_lg[b], ks[b], values[b], params)
        done[b] = 0
        n += 1
    return n


def set_search_threads(n: int) -> int:
    """Let the compiled search of this thread use ``n`` threads (at most numba's pool).

    Args:
        n: threads wanted (>= 1).

    Returns:
        The number set: ``n`` capped by the threads numba started (``NUMBA_NUM_THREADS``).
    """
    n = max(1, min(int(n), numba.config.NUMBA_NUM_THREADS))  # type: ignore[attr-defined]
    numba.set_num_threads(n)
    return n


def _raise_for(status: np.ndarray) -> None:
    """Raise the error of the first tree with a failed status (none: return)."""
    bad = status[(status != _OK) & (status != _NO_ROOM)]
    if not len(bad):
        return
    code = int(bad[0])
    if code == _BAD_VALUE:
        raise FloatingPointError("value")
    if code == _BAD_LOGIT:
        raise FloatingPointError("policy_logits")
    raise ValueError(
        "search_with_net: a tree's search failed (the search tried an illegal step: "
        "edges out of step with the mask)"
    )


def search_with_net(tree, params, net, done, seed, db, egtb) -> tuple[bool, int]:
    """Run the searches of all B trees with the network inside, over numba's threads.

    The caller has loaded the roots (:func:`drl.search.kernels.init_roots`) and started
    the root selection. Tree ``b`` runs simulations ``done[b] .. budget[b] - 1``; a root
    not expanded yet (``done[b] == -1``) is evaluated first, all roots before any
    simulation, so the roots' edges must fit the edge arrays (the root selection draws
    its noise from one seeded stream while they are expanded, in tree order).

    Args:
        tree: the trees.
        params: :class:`~drl.search.tree.SearchParams`.
        net: :class:`~drl.encode.sparse_net.SparseWeights`.
        done: ``int64[B]`` simulations each tree has run, -1 = root not expanded;
            updated.
        seed: seeds numba's generator for the root selection's draws (on the call that
            expands the roots; a call that resumes draws nothing).
        db: the endgame database's kernel tuple, probed at the new nodes of the games
            whose ``egtb`` is not -1 (:func:`drl.search.kernels.solve_leaf`).
        egtb: ``int64[B]`` each game's lookup in ``db``: -1 none, else the ``flip``.

    Returns:
        ``(complete, evaluations)``: ``complete`` is False when a tree ran out of edge
        room (grow the edge arrays and call again: ``done`` says where each tree
        stopped; the other trees have run all their simulations); ``evaluations``
        counts the network evaluations of this call.

    Raises:
        ValueError: if a root's edges do not fit the edge arrays, or a tree's search
            broke an invariant (an illegal step).
        FloatingPointError: if the network's value or a logit is not finite (the message
            names which: ``value`` or ``policy_logits``); the trees are then unusable.
    """
    nb = tree.budget.shape[0]
    # (numba.get_num_threads inside a compiled function would keep it from being cached)
    nt = max(1, min(numba.get_num_threads(), nb))
    status = np.zeros(nb, np.int64)
    evals = np.zeros(nb, np.int64)
    roots = 0
    if np.any((tree.budget > 0) & (done < 0)):
        width = tree.action.shape[1]
        ks = np.zeros(nb, np.int64)
        values = np.zeros(nb, np.float64)
        root_steps = np.zeros((nb, width), np.int64)
        root_lg = np.zeros((nb, width), np.float64)
        _evaluate_roots(tree, net, done, status, ks, values, root_steps, root_lg, nt)
        if np.any(status == _NO_ROOM):
            raise ValueError("search_with_net: the root's edges do not fit the edge arrays")
        _raise_for(status)
        roots = int(_expand_roots(tree, params, done, ks, values, root_steps, root_lg, seed))
    _run_trees(tree, params, net, done, status, evals, nt, db, egtb)
    _raise_for(status)
    return not bool(np.any(status == _NO_ROOM)), roots + int(evals.sum())


@njit(cache=True)
def _undo_child(tree, b, c):
    """Remove the node ``c`` just created by a descent.

    It is the last node, not expanded, with no visits backed up; the simulation can then
    be run again once the edges have grown.
    """
    tree.child[b, tree.parent_edge[b, c]] = NO_NODE
    tree.num_nodes[b] = c
