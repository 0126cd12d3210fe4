"""Compiled UCT with random rollouts (the kernel behind ``mcts:...``).

The tree lives in preallocated arrays, one row per node; each simulation selects down
the tree with UCB1, adds one child (moves of a node are expanded in a random order),
plays a uniformly random game from it (at most ``rollout_limit`` plies, then a draw),
and backs the result up. A node's value is counted for the player who made the move
into it (the side to move at its parent), so backup never assumes that turns alternate.
Terminal positions come from the kernel ``status()``; a position repeated on the
selection path (game history included) counts as a draw when repetition draws are on.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from drl.agents._kernels import generate, generate_into
from drl.rules.core import ST_HASH, ST_NOPROG, ST_TURN, STATE_SIZE, apply_move_into, status
from drl.rules.variant import P_REPETITION

MAX_DEPTH = 512  # longest selection path


@njit(cache=True, _nrt=False)
def _set_seed(seed):
    np.random.seed(seed)


@njit(cache=True, _nrt=False)
def _score(code, mover):
    """Points of ``mover`` (1 win, 0.5 draw, 0 loss) for a ``status()`` code."""
    winner = code % 4
    if winner == 2:
        return 0.5
    return 1.0 if winner == mover else 0.0


@njit(cache=True, _nrt=False)
def _rollout(state, params, limit, moves, scratch, ctx):
    """Random playout from ``state``; returns the winner (0, 1) or 2 for a draw.

    ``scratch``: int64 [2, STATE_SIZE]; ``moves``: int64 [2, MAX_MOVES, MOVE_WIDTH].
    """
    for i in range(STATE_SIZE):
        scratch[0, i] = state[i]
    cur = 0
    for _ in range(limit):
        n = generate(scratch, cur, params, moves, ctx)
        code = status(scratch[cur], params, n)
        if code >= 0:
            return code % 4
        k = np.random.randint(n)
        apply_move_into(scratch[cur], params, moves[cur, k], scratch[1 - cur])
        cur = 1 - cur
    return 2


@njit(cache=True, _nrt=False)
def uct_search(root, params, sims, c, rollout_limit, seed, history, node_state, parent,
               first_child, next_sibling, move_index, n_moves, n_expanded, expand_start,
               code, visits, value, moves, scratch, path, ctx):
    """Run ``sims`` simulations from ``root``.

    Args:
        root: int64 [STATE_SIZE].
        params: int64 [PARAMS_SIZE].
        sims: number of simulations (>= 1).
        c: UCB1 exploration constant.
        rollout_limit: plies per random playout before it counts as a draw.
        seed: seed of the playouts and expansion orders.
        history: int64 [k], hashes of the game positions before the root that can repeat.
        node_state: int64 [sims + 1, STATE_SIZE]; parent, first_child, next_sibling,
            move_index, n_moves, n_expanded, expand_start, code: int64 [sims + 1];
            visits: int64 [sims + 1]; value: float64 [sims + 1] -- the tree.
        moves: int64 [2, MAX_MOVES, MOVE_WIDTH], scratch: int64 [2, STATE_SIZE],
        path: int64 [len(history) + MAX_DEPTH + 1], ctx: int64 [CTX_SIZE] -- work space.

    Returns:
        The number of nodes in the tree. Children of the root are linked from
        ``first_child[0]`` through ``next_sibling``; ``move_index`` is the child's move
        in kernel order of the root's moves.
    """
    _set_seed(seed)
    base = history.shape[0]
    for i in range(base):
        path[i] = history[i]
    for i in range(STATE_SIZE):
        node_state[0, i] = root[i]
    parent[0] = -1
    first_child[0] = -1
    next_sibling[0] = -1
    move_index[0] = -1
    n = generate_into(node_state, 0, params, moves, 0, ctx)
    n_moves[0] = n
    n_expanded[0] = 0
    expand_start[0] = np.random.randint(n) if n > 0 else 0
    code[0] = status(root, params, n)
    visits[0] = 0
    value[0] = 0.0
    count = 1
    rep = params[P_REPETITION] > 0
    for _ in range(sims):
        node = 0
        depth = 0
        winner = -1
        while True:
            st = node_state[node]
            h = st[ST_HASH]
            path[base + depth] = h
            if code[node] >= 0:
                winner = code[node] % 4
                break
            if rep and depth > 0:
                k = 2
                repeated = False
                while k <= st[ST_NOPROG] and base + depth - k >= 0:
                    if path[base + depth - k] == h:
                        repeated = True
                        break
                    k += 2
                if repeated:
                    winner = 2
                    break
            if n_expanded[node] < n_moves[node]:
                # Expand the next untried move.
                generate_into(node_state, node, params, moves, 0, ctx)
                mi = (expand_start[node] + n_expanded[node]) % n_moves[node]
                n_expanded[node] += 1
                ch = count
                count += 1
                apply_move_into(st, params, moves[0, mi], node_state[ch])
                parent[ch] = node
                first_child[ch] = -1
                next_sibling[ch] = first_child[node]
                first_child[node] = ch
                move_index[ch] = mi
                cn = generate_into(node_state, ch, params, moves, 0, ctx)
                n_moves[ch] = cn
                n_expanded[ch] = 0
                expand_start[ch] = np.random.randint(cn) if cn > 0 else 0
                code[ch] = status(node_state[ch], params, cn)
                visits[ch] = 0
                value[ch] = 0.0
                node = ch
                depth += 1
                path[base + depth] = node_state[ch, ST_HASH]
                if code[ch] >= 0:
                    winner = code[ch] % 4
                else:
                    winner = _rollout(node_state[ch], params, rollout_limit, moves, scratch,
                                      ctx)
                break
            # All children expanded: UCB1.
            log_n = np.log(max(visits[node], 1))
            best = -1.0
            best_ch = -1
            ch = first_child[node]
            while ch >= 0:
                v = visits[ch]
                u = value[ch] / v + c * np.sqrt(log_n / v)
                if u > best:
                    best = u
                    best_ch = ch
                ch = next_sibling[ch]
            node = best_ch
            depth += 1
            if depth >= MAX_DEPTH:
                winner = 2
                break
        # Backup: each node's value is for the player who moved into it.
        while node >= 0:
            visits[node] += 1
            p = parent[node]
            if p >= 0:
                mover = node_state[p, ST_TURN]
                if winner == 2:
                    value[node] += 0.5
                elif winner == mover:
                    value[node] += 1.0
            node = p
    return count
