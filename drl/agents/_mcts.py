"""Compiled UCT with random rollouts (the kernel behind ``mcts:...``).

The tree lives in preallocated arrays, one row per node; each simulation selects down
the tree with UCB1, adds one child (moves of a node are expanded in a random order),
plays a uniformly random game from it (at most ``rollout_limit`` plies, then a draw),
and backs the result up. A node's value is counted for the player who made the move
into it (the side to move at its parent), so backup never assumes that turns alternate.
Terminal positions come from the rules' one end-of-game rule (``end_code``: win/loss,
no-progress and endgame rules, and the variant's repetition draw counted over the game
history and the path, in the hash-by-ply representation of ``count_repetitions``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from drl.agents._kernels import generate, generate_into
from drl.rules.core import (
    DRAW,
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


@njit(cache=True, _nrt=False)
def uct_search(
    root,
    params,
    sims,
    c,
    rollout_limit,
    seed,
    node_state,
    parent,
    first_child,
    next_sibling,
    move_index,
    n_moves,
    n_expanded,
    expand_start,
    code,
    visits,
    value,
    moves,
    scratch,
    path,
    ctx,
):
    """Run ``sims`` simulations from ``root``.

    Args:
        root: int64 [STATE_SIZE].
        params: int64 [PARAMS_SIZE].
        sims: number of simulations (>= 1).
        c: UCB1 exploration constant.
        rollout_limit: plies per random playout before it counts as a draw.
        seed: seed of the playouts and expansion orders.
        node_state: int64 [sims + 1, STATE_SIZE]; parent, first_child, next_sibling,
            move_index, n_moves, n_expanded, expand_start, code: int64 [sims + 1];
            visits: int64 [sims + 1]; value: float64 [sims + 1] -- the tree.
        moves: int64 [2, MAX_MOVES, MOVE_WIDTH], scratch: int64 [2, STATE_SIZE],
        path: int64 [root ply + MAX_DEPTH + rollout_limit + 2], the game's hash-by-ply
            history (``Board.history``); the search writes its path and playouts at the
            plies after the root. ctx: int64 [CTX_SIZE] -- work space.

    Returns:
        The number of nodes in the tree. Children of the root are linked from
        ``first_child[0]`` through ``next_sibling``; ``move_index`` is the child's move
        in kernel order of the root's moves.
    """
    _set_seed(seed)
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
    code[0] = _code(node_state[0], params, n, path)
    visits[0] = 0
    value[0] = 0.0
    count = 1
    for _ in range(sims):
        node = 0
        depth = 0
        winner = -1
        while True:
            st = node_state[node]
            path[st[ST_PLY]] = st[ST_HASH]
            if code[node] >= 0:  # a node's code holds for its one path from the root
                winner = code_winner(code[node])
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
                code[ch] = _code(node_state[ch], params, cn, path)
                visits[ch] = 0
                value[ch] = 0.0
                node = ch
                depth += 1
                if code[ch] >= 0:
                    winner = code_winner(code[ch])
                else:
                    winner = _rollout(
                        node_state[ch], params, rollout_limit, moves, scratch, path, ctx
                    )
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
                winner = DRAW
                break
        # Backup: each node's value is for the player who moved into it.
        while node >= 0:
            visits[node] += 1
            p = parent[node]
            if p >= 0:
                mover = node_state[p, ST_TURN]
                if winner == DRAW:
                    value[node] += 0.5
                elif winner == mover:
                    value[node] += 1.0
            node = p
    return count
