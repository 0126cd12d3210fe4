"""Compiled kernels of the batched step-level MCTS: one simulation step over B trees.

Every kernel takes the trees as one :class:`~drl.search.tree.Tree` and the leaf slots as
one :class:`~drl.search.tree.Leaves`. A simulation round is :func:`select_leaves`
(descend every tree once, create one node, back terminal values up at once and queue
the other new nodes for the network), the network call, then :func:`expand_and_backup`
(create the queued nodes' edges from the network's policy and back its value up).

The in-tree game is the game core (``drl.game.kernels``): a child is its parent's
position with one step played (:func:`drl.game.kernels.step`), which also counts the
repetitions of a completed move over the history ``tree.hist[b]`` (the game up to the
root, then the move-boundary nodes of the path, recorded on the way down); a node is
terminal when the game core says the game is over (valued by
:func:`drl.game.kernels.value` for the node's player to move), when the endgame
database gives its exact result (:func:`solve_leaf`: the game's counters included; valued
+1, -1 or 0 the same way, from the result code it writes) or when the training cap
``max_plies`` is reached (:func:`drl.game.kernels.truncated`, valued 0).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from drl.egtb._search import database_code, with_flip
from drl.game import kernels as G
from drl.game.kernels import G_CODE, G_PLEN
from drl.rules.core import MAX_MOVES, MOVE_WIDTH, ONGOING, ST_TURN, STATE_SIZE
from drl.search.puct import puct_edge
from drl.search.root import init_root_edges, select_root_edge
from drl.search.tree import NO_NODE

__all__ = [
    "descend",
    "expand",
    "expand_and_backup",
    "init_roots",
    "root_statistics",
    "select_leaves",
    "solve_leaf",
]


@njit(cache=True, inline="always")
def _is_terminal(pos, max_plies):
    return G.is_over(pos) or G.truncated(pos, max_plies)


@njit(cache=True)
def _backup(tree, b, leaf, v):
    """Add ``v`` (for the leaf's player to move) to the leaf and every node and edge above it.

    ``v`` is negated where the player to move differs from the leaf's.
    """
    who = tree.pos[b, leaf, ST_TURN]
    tree.visits[b, leaf] += 1
    tree.value_sum[b, leaf] += v
    c = leaf
    while c != 0:
        u = tree.parent[b, c]
        e = tree.parent_edge[b, c]
        vu = v if tree.pos[b, u, ST_TURN] == who else -v
        tree.edge_visits[b, e] += 1
        tree.edge_value_sum[b, e] += vu
        tree.visits[b, u] += 1
        tree.value_sum[b, u] += vu
        c = u


@njit(cache=True)
def _add_child(tree, b, u, e, moves, played):
    """Create the node of edge ``e`` of node ``u``: the parent's position, the step played.

    Leaves ``moves`` holding the child's legal moves.
    """
    c = tree.num_nodes[b]
    tree.num_nodes[b] = c + 1
    child = tree.pos[b, c]
    child[:] = tree.pos[b, u]
    params = tree.params[b]
    G.generate(child, params, moves)
    if G.step(child, params, moves, tree.hist[b], tree.action[b, e], played) == G.STEP_ILLEGAL:
        raise ValueError("the search tried an illegal step (edges out of step with the mask)")
    tree.parent[b, c] = u
    tree.parent_edge[b, c] = e
    tree.edge_start[b, c] = 0
    tree.edge_count[b, c] = 0
    tree.visits[b, c] = 0
    tree.value_sum[b, c] = 0.0
    tree.child[b, e] = c
    return c


@njit(cache=True)
def _queue_leaf(tree, leaves, b, node, slot, moves):
    """Write node ``node``'s observation and legal-step mask into leaf slot ``slot``.

    ``moves`` holds its legal moves. Returns its number of legal steps.
    """
    pos = tree.pos[b, node]
    params = tree.params[b]
    n = G.legal_mask(pos, params, moves, leaves.mask[slot])
    G.observe(pos, params, -1, leaves.obs[slot])
    leaves.num_legal[slot] = n
    leaves.slot[b] = slot
    leaves.node[b] = node
    return n


@njit(cache=True)
def init_roots(tree, leaves):
    """Reset the trees to their roots and queue the roots for the network.

    The caller has written, for every game with ``budget`` > 0, the root's state,
    move-in-progress prefix and its length, and earlier occurrences into ``pos[b, 0]``
    (``drl.game.kernels`` layout), and ``params`` and ``hist``.

    Returns:
        L, the number of roots queued (slots ``0 .. L - 1``).

    Raises:
        ValueError: if a root's game is over.
    """
    moves = np.empty((MAX_MOVES, MOVE_WIDTH), dtype=np.int64)
    slot = 0
    for b in range(tree.budget.shape[0]):
        tree.num_nodes[b] = 1
        tree.num_edges[b] = 0
        tree.parent[b, 0] = NO_NODE
        tree.parent_edge[b, 0] = -1
        tree.edge_start[b, 0] = 0
        tree.edge_count[b, 0] = 0
        tree.visits[b, 0] = 0
        tree.value_sum[b, 0] = 0.0
        leaves.node[b] = NO_NODE
        leaves.slot[b] = -1
        if tree.budget[b] == 0:
            continue
        root = tree.pos[b, 0]
        params = tree.params[b]
        G.generate(root, params, moves)
        G.set_repetitions(root, params, root[G.G_REPS])
        if _queue_leaf(tree, leaves, b, 0, slot, moves) == 0:
            raise ValueError("a search root has no legal step (its game is over)")
        slot += 1
    return slot


@njit(cache=True)
def descend(tree, b, params, sim, moves, played):
    """One descent of tree ``b`` at simulation ``sim``, creating one node.

    The descent goes from the root (root selection, then PUCT) to the first edge without a
    node, whose node it creates.

    Every move-boundary node passed is recorded in the game's history so that
    repetitions along the path count. A terminal node reached (or created) has its value
    backed up at once; so has one the endgame database solved (:func:`solve_leaf`).

    Returns:
        The new node, to be evaluated (``moves`` holds its legal moves), or ``NO_NODE``
        when the descent ended at a terminal node.
    """
    hist = tree.hist[b]
    u = 0
    while True:
        pos = tree.pos[b, u]
        if u != 0 and _is_terminal(pos, params.max_plies):
            _backup(tree, b, u, G.value(pos, pos[ST_TURN]))
            return NO_NODE
        if pos[G_PLEN] == 0:
            G.record(pos, hist)
        if u == 0:
            e = select_root_edge(tree, b, sim, params)
        else:
            e = puct_edge(tree, b, u, params.c_puct, params.fpu_reduction)
        c = tree.child[b, e]
        if c != NO_NODE:
            u = c
            continue
        c = _add_child(tree, b, u, e, moves, played)
        child = tree.pos[b, c]
        if _is_terminal(child, params.max_plies):
            _backup(tree, b, c, G.value(child, child[ST_TURN]))
            return NO_NODE
        return c


@njit(cache=True)
def solve_leaf(tree, b, c, db, flip):
    """Solve the new node ``c`` of tree ``b`` where the endgame database decides it.

    Called for a node :func:`descend` has just created, in a game that probes the
    database. A move-boundary position whose game goes on and
    whose exact result the database gives (:func:`drl.egtb._search.database_code`)
    gets that result code as its ``G_CODE``, so that it is a game-over node from then
    on (valued by its result, never expanded), and its value is backed up.

    Args:
        tree: the trees.
        b: the tree.
        c: the node.
        db: the endgame database's kernel tuple (``Database.kernel``,
            :data:`drl.egtb._search.NO_DATABASE`).
        flip: the game's lookup: 1 turned round with the colours swapped, else 0
            (:meth:`drl.egtb._search.GameDatabases.flag`).

    Returns:
        True when the node was solved (nothing is left to evaluate).
    """
    pos = tree.pos[b, c]
    if pos[G_PLEN] != 0 or pos[G_CODE] != ONGOING:
        return False
    code = database_code(pos[:STATE_SIZE], tree.params[b], with_flip(db, flip))
    if code == ONGOING:
        return False
    pos[G_CODE] = code
    _backup(tree, b, c, G.value(pos, pos[ST_TURN]))
    return True


@njit(cache=True)
def select_leaves(tree, leaves, params, sim, db, egtb):
    """Simulation ``sim`` of every tree whose ``budget`` exceeds it.

    Each tree is descended once (:func:`descend`); a new node that is not terminal, nor
    solved by the endgame database (:func:`solve_leaf`), is queued for the network in
    the next free slot.

    Args:
        tree: the trees, expanded by earlier rounds.
        leaves: the slots, overwritten.
        params: :class:`~drl.search.tree.SearchParams`.
        sim: the simulation's index (Gumbel's schedule position).
        db: the endgame database's kernel tuple (see :func:`solve_leaf`).
        egtb: ``int64[B]`` each game's lookup in it: -1 none, else the ``flip``.

    Returns:
        L, the number of leaves queued (slots ``0 .. L - 1``).
    """
    moves = np.empty((MAX_MOVES, MOVE_WIDTH), dtype=np.int64)
    played = np.empty(MOVE_WIDTH, dtype=np.int64)
    slot = 0
    for b in range(tree.budget.shape[0]):
        leaves.node[b] = NO_NODE
        leaves.slot[b] = -1
        if sim >= tree.budget[b]:
            continue
        c = descend(tree, b, params, sim, moves, played)
        if c != NO_NODE and egtb[b] >= 0 and solve_leaf(tree, b, c, db, egtb[b]):
            c = NO_NODE
        if c != NO_NODE:
            _queue_leaf(tree, leaves, b, c, slot, moves)
            slot += 1
    return slot


@njit(cache=True)
def expand(tree, b, u, steps, logits, k, value, params):
    """Create node ``u``'s ``k`` edges and back its value up.

    Args:
        tree: the trees; ``num_edges[b] + k`` must fit the edge arrays.
        b: the tree.
        u: the node (not expanded yet).
        steps: ``int64[>= k]`` the legal step actions, in increasing order.
        logits: ``[>= k]`` their policy logits (softmaxed here into the priors).
        k: number of legal steps (>= 1).
        value: network value of the node, for its player to move.
        params: :class:`~drl.search.tree.SearchParams`.

    A root (node 0) records its value in ``root_value[b]`` and gets its root selection's
    set-up (:func:`~drl.search.root.init_root_edges`).
    """
    start = tree.num_edges[b]
    mx = -1e300
    for i in range(k):
        mx = max(mx, logits[i])
    total = 0.0
    for i in range(k):
        e = start + i
        p = math.exp(logits[i] - mx)
        tree.action[b, e] = steps[i]
        tree.prior[b, e] = p
        tree.child[b, e] = NO_NODE
        tree.edge_visits[b, e] = 0
        tree.edge_value_sum[b, e] = 0.0
        total += p
    for e in range(start, start + k):
        tree.prior[b, e] /= total
    tree.edge_start[b, u] = start
    tree.edge_count[b, u] = k
    tree.num_edges[b] = start + k
    if u == 0:
        tree.root_value[b] = value
        init_root_edges(tree, b, params)
    _backup(tree, b, u, np.float64(value))


@njit(cache=True)
def expand_and_backup(tree, leaves, logits, values, params, seed):
    """Create the queued leaves' edges from the network output and back their values up.

    This is :func:`expand` for each queued leaf.

    Args:
        tree: the trees; ``num_edges`` must leave room for every queued leaf's steps.
        leaves: the queued leaves (``mask[slot]`` holds each one's legal steps).
        logits: ``float32[L, A]`` policy logits by slot (masked to the legal steps and
            softmaxed here).
        values: ``float32[L]`` value by slot, for the leaf's player to move.
        params: :class:`~drl.search.tree.SearchParams`.
        seed: seeds numba's generator for the root selection's draws (reproducible).
    """
    np.random.seed(seed)
    num_actions = leaves.mask.shape[1]
    steps = np.empty(num_actions, np.int64)
    lg = np.empty(num_actions, np.float64)
    for b in range(leaves.slot.shape[0]):
        s = leaves.slot[b]
        if s < 0:
            continue
        mask = leaves.mask[s]
        k = 0
        for a in range(num_actions):
            if mask[a]:
                steps[k] = a
                lg[k] = logits[s, a]
                k += 1
        expand(tree, b, leaves.node[b], steps, lg, k, values[s], params)


@njit(cache=True)
def root_statistics(tree, visits_out, q_out, value_out):
    """Dense statistics of the first B' roots by step action.

    Writes ``visits_out[b, a]`` (``float32[B', A]``, root edge visits), ``q_out[b, a]``
    (``float32[B', A]``, mean value for the root's player to move, 0 where unvisited) and
    ``value_out[b]`` (``float32[B']``, the root's mean value); zeros where ``budget`` is 0.
    """
    for b in range(value_out.shape[0]):
        visits_out[b, :] = 0.0
        q_out[b, :] = 0.0
        value_out[b] = 0.0
        if tree.budget[b] == 0:
            continue
        value_out[b] = tree.value_sum[b, 0] / max(tree.visits[b, 0], 1)
        start = tree.edge_start[b, 0]
        for e in range(start, start + tree.edge_count[b, 0]):
            a = tree.action[b, e]
            n = tree.edge_visits[b, e]
            visits_out[b, a] = n
            if n > 0:
                q_out[b, a] = tree.edge_value_sum[b, e] / n
