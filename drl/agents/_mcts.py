"""Compiled UCT with random rollouts (the kernel behind ``mcts:...``).

The tree lives in preallocated arrays, one row per node (:class:`UctTree`); each
simulation selects down the tree with UCB1 (:func:`_select`), adds one child
(:func:`_expand`: moves of a node are expanded in a random order), plays a uniformly
random game from it (:func:`_rollout`: at most ``rollout_limit`` plies, then a draw),
and backs the result up (:func:`_backup`). A node's value is counted for the player who
made the move into it (the side to move at its parent), so backup never assumes that
turns alternate. Terminal positions come from the rules' one end-of-game rule
(``end_code``: win/loss, no-progress and endgame rules, and the variant's repetition
draw counted over the game history and the path, in the hash-by-ply representation of
``count_repetitions``), and, below the root, from the endgame database where it gives
the game's exact result (:func:`drl.egtb._search.database_code`, counters included): such
a node is solved like a finished game, never expanded nor played out.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from drl.agents._kernels import CTX_SIZE, generate, generate_into
from drl.egtb._search import database_code
from drl.rules.core import (
    DRAW,
    MAX_MOVES,
    MOVE_WIDTH,
    ST_HASH,
    ST_PLY,
    ST_TURN,
    STATE_SIZE,
    apply_move_into,
    code_winner,
    count_repetitions,
    end_code,
)

MAX_DEPTH = 512  # longest selection path


class UctTree(NamedTuple):
    """The tree of one search: N nodes (N = most simulations + 1), node 0 the root.

    Attributes:
        state: ``int64[N, STATE_SIZE]`` the node's position.
        parent: ``int64[N]`` parent node, -1 at the root.
        first_child: ``int64[N]`` the child added last, -1 if none; the children of a
            node are linked from here through ``next_sibling``.
        next_sibling: ``int64[N]`` next child of the same parent, -1 at the end.
        move_index: ``int64[N]`` the move into the node, a row of its parent's moves in
            kernel order (-1 at the root).
        n_moves: ``int64[N]`` legal moves of the node.
        n_expanded: ``int64[N]`` children added so far.
        expand_start: ``int64[N]`` the move expanded first (the others follow in order,
            wrapping around).
        code: ``int64[N]`` the node's result code (``end_code``), -1 while the game goes
            on; it holds for the node's one path from the root.
        visits: ``int64[N]`` simulations through the node.
        value: ``float64[N]`` sum of the results (1 win, 0.5 draw) of those simulations
            for the player who moved into the node.
    """

    state: np.ndarray
    parent: np.ndarray
    first_child: np.ndarray
    next_sibling: np.ndarray
    move_index: np.ndarray
    n_moves: np.ndarray
    n_expanded: np.ndarray
    expand_start: np.ndarray
    code: np.ndarray
    visits: np.ndarray
    value: np.ndarray


class UctWork(NamedTuple):
    """Work space of the search.

    Attributes:
        moves: ``int64[2, MAX_MOVES, MOVE_WIDTH]`` move buffers (row 0 for the tree,
            both for the playouts).
        scratch: ``int64[2, STATE_SIZE]`` the playout's positions.
        ctx: ``int64[CTX_SIZE]`` move-generator scratch space.
    """

    moves: np.ndarray
    scratch: np.ndarray
    ctx: np.ndarray


def allocate(sims: int) -> tuple[UctTree, UctWork]:
    """A zeroed tree with room for ``sims`` simulations, and its work space."""
    n = int(sims) + 1
    links = np.zeros((9, n), np.int64)  # parent .. visits, one row each
    tree = UctTree._make([np.zeros((n, STATE_SIZE), np.int64), *links, np.zeros(n)])
    work = UctWork(
        np.zeros((2, MAX_MOVES, MOVE_WIDTH), np.int64),
        np.zeros((2, STATE_SIZE), np.int64),
        np.zeros(CTX_SIZE, np.int64),
    )
    return tree, work


@njit(cache=True, _nrt=False)
def _set_seed(seed):
    np.random.seed(seed)


@njit(cache=True, _nrt=False, inline="always")
def _code(state, params, n, path):
    """Result code of ``state`` reached on the current path (``path[ST_PLY]`` written)."""
    path[state[ST_PLY]] = state[ST_HASH]
    return end_code(state, params, n, count_repetitions(path, state))


@njit(cache=True, _nrt=False)
def _rollout(state, params, limit, moves, scratch, path, ctx):
    """Random playout from ``state``; returns the winner (0, 1) or 2 for a draw.

    ``scratch``: int64 [2, STATE_SIZE]; ``moves``: int64 [2, MAX_MOVES, MOVE_WIDTH];
    ``path``: the hash-by-ply history, written at the playout's plies.
    """
    for i in range(STATE_SIZE):
        scratch[0, i] = state[i]
    cur = 0
    for _ in range(limit):
        n = generate(scratch, cur, params, moves, ctx)
        code = _code(scratch[cur], params, n, path)
        if code >= 0:
            return code_winner(code)
        k = np.random.randint(n)
        apply_move_into(scratch[cur], params, moves[cur, k], scratch[1 - cur])
        cur = 1 - cur
    return 2


@njit(cache=True, _nrt=False, inline="always")
def _init_node(tree, work, params, path, i, parent, sibling, mi, db):
    """Fill node ``i``, whose ``state`` is already written.

    Sets its links, its legal moves, a random first move to expand and its result code
    (below the root, the endgame database's ``db`` where the rules do not end the game).
    """
    tree.parent[i] = parent
    tree.first_child[i] = -1
    tree.next_sibling[i] = sibling
    tree.move_index[i] = mi
    n = generate_into(tree.state, i, params, work.moves, 0, work.ctx)
    tree.n_moves[i] = n
    tree.n_expanded[i] = 0
    tree.expand_start[i] = np.random.randint(n) if n > 0 else 0
    tree.code[i] = _code(tree.state[i], params, n, path)
    if parent >= 0 and tree.code[i] < 0:
        tree.code[i] = database_code(tree.state[i], params, db)
    tree.visits[i] = 0
    tree.value[i] = 0.0


@njit(cache=True, _nrt=False, inline="always")
def _expand(tree, work, params, path, node, ch, db):
    """Add child ``ch`` of ``node`` by the node's next untried move."""
    generate_into(tree.state, node, params, work.moves, 0, work.ctx)
    mi = (tree.expand_start[node] + tree.n_expanded[node]) % tree.n_moves[node]
    tree.n_expanded[node] += 1
    apply_move_into(tree.state[node], params, work.moves[0, mi], tree.state[ch])
    _init_node(tree, work, params, path, ch, node, tree.first_child[node], mi, db)
    tree.first_child[node] = ch


@njit(cache=True, _nrt=False, inline="always")
def _select(tree, node, c):
    """The child of a fully expanded ``node`` with the highest UCB1 score.

    Of equal scores, the child linked first is taken.
    """
    log_n = np.log(max(tree.visits[node], 1))
    best = -1.0
    best_ch = -1
    ch = tree.first_child[node]
    while ch >= 0:
        v = tree.visits[ch]
        u = tree.value[ch] / v + c * np.sqrt(log_n / v)
        if u > best:
            best = u
            best_ch = ch
        ch = tree.next_sibling[ch]
    return best_ch


@njit(cache=True, _nrt=False, inline="always")
def _backup(tree, node, winner):
    """Count ``winner`` (0, 1, or ``DRAW``) from ``node`` up to the root.

    Each node's value is counted for the player who moved into it.
    """
    while node >= 0:
        tree.visits[node] += 1
        p = tree.parent[node]
        if p >= 0:
            mover = tree.state[p, ST_TURN]
            if winner == DRAW:
                tree.value[node] += 0.5
            elif winner == mover:
                tree.value[node] += 1.0
        node = p


@njit(cache=True, _nrt=False, inline="always")
def _descend(tree, work, params, path, c, rollout_limit, count, db):
    """One simulation's way down: selection, expansion and playout.

    Selects down to a terminal node or one with an untried move, expands it as node
    ``count`` and plays out from there. Returns ``(last node, winner, nodes in the tree)``.
    """
    node = 0
    depth = 0
    while True:
        st = tree.state[node]
        path[st[ST_PLY]] = st[ST_HASH]
        if tree.code[node] >= 0:  # a node's code holds for its one path from the root
            return node, code_winner(tree.code[node]), count
        if tree.n_expanded[node] < tree.n_moves[node]:
            _expand(tree, work, params, path, node, count, db)
            if tree.code[count] >= 0:
                return count, code_winner(tree.code[count]), count + 1
            winner = _rollout(
                tree.state[count], params, rollout_limit, work.moves, work.scratch, path, work.ctx
            )
            return count, winner, count + 1
        node = _select(tree, node, c)
        depth += 1
        if depth >= MAX_DEPTH:
            return node, DRAW, count


@njit(cache=True, _nrt=False, nogil=True)  # a server answers others meanwhile
def uct_search(tree, work, root, params, path, sims, c, rollout_limit, seed, db):
    """Run ``sims`` simulations from ``root``.

    ``tree`` and ``work`` may be passed as plain tuples of their fields
    (``tuple(tree)``), as :class:`~drl.agents.mcts.MCTSAgent` does: numba reads the types
    of a plain tuple of arrays in compiled code but those of a NamedTuple in Python, some
    microseconds per structure on every call.

    Args:
        tree: :class:`UctTree` with room for ``sims + 1`` nodes.
        work: :class:`UctWork`.
        root: ``int64[STATE_SIZE]``.
        params: ``int64[PARAMS_SIZE]``.
        path: ``int64[root ply + MAX_DEPTH + rollout_limit + 2]``, the game's hash-by-ply
            history (``Board.history``); the search writes its path and playouts at the
            plies after the root.
        sims: number of simulations (>= 1).
        c: UCB1 exploration constant.
        rollout_limit: plies per random playout before it counts as a draw.
        seed: seed of the playouts and expansion orders.
        db: the endgame database's kernel tuple (``Database.kernel`` of :mod:`drl.egtb`,
            or :data:`drl.egtb._search.NO_DATABASE`).

    Returns:
        The number of nodes in the tree. Children of the root are linked from
        ``tree.first_child[0]`` through ``tree.next_sibling``; ``tree.move_index`` is the
        child's move in kernel order of the root's moves.
    """
    tree = UctTree(*tree)
    work = UctWork(*work)
    _set_seed(seed)
    for i in range(STATE_SIZE):
        tree.state[0, i] = root[i]
    _init_node(tree, work, params, path, 0, -1, -1, -1, db)
    count = 1
    for _ in range(sims):
        node, winner, count = _descend(tree, work, params, path, c, rollout_limit, count, db)
        _backup(tree, node, winner)
    return count
