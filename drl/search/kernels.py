"""Compiled kernels of the batched step-level MCTS.

The trees of B games live in preallocated arrays (see :class:`drl.search.tree.Tree`).
A node is a position in step space: a game state plus the steps already played in the
move in progress (``drl.encode.mask``). A multi-jump is several nodes in a row with the
same player to move, so values are backed up by each node's own player to move, never
by flipping the sign every ply (rule case 031).

Node fields (``[B, N]`` unless noted; N = most simulations + 1):
    state ``[B, N, STATE_SIZE]`` int64, prefix ``[B, N, MAX_STEPS]`` int64, plen (steps of
    the move in progress), player (colour to move), reps (earlier occurrences of the
    position), terminal (0 no, 1 yes), tvalue (float64, terminal value for the player to
    move), visits (int64), value (float64 sum, for the node's player to move), parent,
    pedge (edge from the parent), estart / ecount (the node's edges; ecount 0 = leaf).

Edge fields (``[B, E]``): action (int64 step index), prior (float64), child (node or -1),
visits (int64), value (float64 sum, for the player to move at the edge's parent node).

Terminal detection inside the tree: the rules kernel ``status`` (no pieces, blocked,
Giver eliminated, no-progress and endgame rules), threefold repetition over the game
history plus the path in the tree, and the training ``max_plies`` truncation (valued 0).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from drl.encode.mask import apply_step, mask_from_moves
from drl.encode.planes import encode_planes
from drl.rules.core import (
    MAX_MOVES,
    MOVE_WIDTH,
    ST_HASH,
    ST_NOPROG,
    ST_PLY,
    ST_TURN,
    generate_moves,
    status,
)
from drl.rules.variant import P_REPETITION

NO_NODE = -1


@njit(cache=True)
def _terminal_code_value(code: int, turn: int) -> float:
    winner = code % 4
    if winner == 2:
        return 0.0
    return 1.0 if winner == turn else -1.0


@njit(cache=True)
def _earlier_occurrences(b, node, hist, hist_len, n_state, n_plen, n_parent):
    """Earlier occurrences of a move-boundary node's position: game history + tree path."""
    h = n_state[b, node, ST_HASH]
    ply = n_state[b, node, ST_PLY]
    lo = ply - n_state[b, node, ST_NOPROG]  # an irreversible move cuts repetition off
    count = 0
    p = n_parent[b, node]
    while p > 0:  # tree ancestors except the root (its position is in the history)
        if n_plen[b, p] == 0 and n_state[b, p, ST_PLY] >= lo and n_state[b, p, ST_HASH] == h:
            count += 1
        p = n_parent[b, p]
    top = min(hist_len[b], ply)
    for i in range(max(0, lo), top):
        if hist[b, i] == h:
            count += 1
    return count


@njit(cache=True)
def _backup(b, leaf, v, n_player, n_visits, n_value, n_parent, n_pedge, e_visits, e_value):
    """Add value ``v`` (for the leaf's player to move) to every node and edge above it."""
    who = n_player[b, leaf]
    n_visits[b, leaf] += 1
    n_value[b, leaf] += v
    c = leaf
    while c != 0:
        u = n_parent[b, c]
        e = n_pedge[b, c]
        vu = v if n_player[b, u] == who else -v
        e_visits[b, e] += 1
        e_value[b, e] += vu
        n_visits[b, u] += 1
        n_value[b, u] += vu
        c = u


@njit(cache=True)
def _puct_edge(b, u, c_puct, fpu_reduction, n_visits, n_value, n_estart, n_ecount,
               e_prior, e_visits, e_value):
    nv = n_visits[b, u]
    sqrt_n = math.sqrt(max(nv, 1))
    fpu = (n_value[b, u] / nv if nv > 0 else 0.0) - fpu_reduction
    best = -1
    best_score = -1e300
    for e in range(n_estart[b, u], n_estart[b, u] + n_ecount[b, u]):
        ev = e_visits[b, e]
        q = e_value[b, e] / ev if ev > 0 else fpu
        score = q + c_puct * e_prior[b, e] * sqrt_n / (1.0 + ev)
        if score > best_score:
            best_score = score
            best = e
    return best


@njit(cache=True)
def completed_q(b, k, root_value, e_prior, e_visits, e_value, out):
    """Completed, min-max normalised Q of the root's k edges (Gumbel MuZero, eq. 10/33).

    Unvisited edges get the mixed value estimate ``v_mix`` of the root network value and
    the prior-weighted mean Q of the visited edges. Writes ``out[:k]`` in ``[0, 1]``.
    """
    total = 0
    pw = 0.0
    pq = 0.0
    for e in range(k):
        ev = e_visits[b, e]
        if ev > 0:
            total += ev
            pw += e_prior[b, e]
            pq += e_prior[b, e] * e_value[b, e] / ev
    if total > 0 and pw > 0.0:
        v_mix = (root_value + total * pq / pw) / (1.0 + total)
    else:
        v_mix = root_value
    lo = 1e300
    hi = -1e300
    for e in range(k):
        ev = e_visits[b, e]
        q = e_value[b, e] / ev if ev > 0 else v_mix
        out[e] = q
        lo = min(lo, q)
        hi = max(hi, q)
    span = hi - lo
    for e in range(k):
        out[e] = (out[e] - lo) / span if span > 1e-12 else 0.5
    max_visits = 0
    for e in range(k):
        max_visits = max(max_visits, e_visits[b, e])
    return max_visits


@njit(cache=True)
def _gumbel_root_edge(b, sim, visit_seq, g_score, root_value, c_visit, c_scale, k, e_prior,
                      e_visits, e_value, scratch):
    max_visits = completed_q(b, k, root_value[b], e_prior, e_visits, e_value, scratch)
    target = visit_seq[b, sim]
    sigma = (c_visit + max_visits) * c_scale
    best = -1
    best_score = -1e300
    for e in range(k):
        if e_visits[b, e] == target:
            score = g_score[b, e] + sigma * scratch[e]
            if score > best_score:
                best_score = score
                best = e
    return best


@njit(cache=True)
def _make_child(b, u, e, params, n_state, n_prefix, n_plen, n_player, n_reps, n_term,
                n_parent, n_pedge, n_estart, n_ecount, n_visits, n_value, n_used,
                e_action, e_child):
    c = n_used[b]
    n_used[b] += 1
    n_prefix[b, c, :] = n_prefix[b, u, :]
    plen = apply_step(n_state[b, u], params[b], n_prefix[b, c], n_plen[b, u], e_action[b, e],
                      n_state[b, c])
    if plen < 0:
        raise ValueError("search tried an illegal step (edge list out of sync with the mask)")
    n_plen[b, c] = plen
    n_player[b, c] = n_state[b, c, ST_TURN]
    n_parent[b, c] = u
    n_pedge[b, c] = e
    n_estart[b, c] = 0
    n_ecount[b, c] = 0
    n_visits[b, c] = 0
    n_value[b, c] = 0.0
    n_term[b, c] = 0
    n_reps[b, c] = n_reps[b, u]
    e_child[b, e] = c
    return c


@njit(cache=True)
def prepare_leaf(b, c, slot, params, max_plies, hist, hist_len, n_state, n_prefix, n_plen,
                 n_player, n_reps, n_term, n_tvalue, n_parent, moves, obs_out, mask_out):
    """Classify a fresh node: terminal (returns -1) or a leaf for the network.

    For a network leaf, writes its observation into ``obs_out[slot]`` and its legal-step
    mask into ``mask_out[slot]`` and returns the number of legal steps.
    """
    st = n_state[b, c]
    p = params[b]
    n_moves = generate_moves(st, p, moves)
    if n_plen[b, c] == 0:
        code = status(st, p, n_moves)
        terminal = False
        value = 0.0
        if code >= 0:
            terminal = True
            value = _terminal_code_value(code, st[ST_TURN])
        else:
            reps = _earlier_occurrences(b, c, hist, hist_len, n_state, n_plen, n_parent)
            n_reps[b, c] = reps
            limit = p[P_REPETITION]
            if limit > 0 and reps >= limit - 1:
                terminal = True
            elif max_plies > 0 and st[ST_PLY] >= max_plies:
                terminal = True
        if terminal:
            n_term[b, c] = 1
            n_tvalue[b, c] = value
            return -1
    k = mask_from_moves(moves, n_moves, st[ST_TURN], p, n_prefix[b, c], n_plen[b, c],
                        mask_out[slot])
    encode_planes(st, p, n_prefix[b, c], n_plen[b, c], n_reps[b, c], obs_out[slot])
    return k


@njit(cache=True)
def init_roots(active, states, prefixes, plens, reps, params, n_state, n_prefix, n_plen,
               n_player, n_reps, n_term, n_parent, n_pedge, n_estart, n_ecount, n_visits,
               n_value, n_used, e_used, leaf, slot_of, obs_out, mask_out, counts):
    """Reset the trees and write the roots' observations/masks for the network.

    Args:
        active: ``[B]`` bool, games to search (their roots must not be terminal).
        states: ``[B, STATE_SIZE]`` int64; prefixes ``[B, MAX_STEPS]`` int64; plens,
            reps ``[B]`` int64: the roots in step space.

    Returns:
        L, the number of roots written (slots ``0..L-1``; ``slot_of[b]`` = slot or -1).
    """
    moves = np.empty((MAX_MOVES, MOVE_WIDTH), dtype=np.int64)
    slot = 0
    for b in range(active.shape[0]):
        n_used[b] = 1
        e_used[b] = 0
        slot_of[b] = -1
        leaf[b] = NO_NODE
        if not active[b]:
            continue
        n_state[b, 0, :] = states[b]
        n_prefix[b, 0, :] = prefixes[b]
        n_plen[b, 0] = plens[b]
        n_player[b, 0] = states[b, ST_TURN]
        n_reps[b, 0] = reps[b]
        n_term[b, 0] = 0
        n_parent[b, 0] = -1
        n_pedge[b, 0] = -1
        n_estart[b, 0] = 0
        n_ecount[b, 0] = 0
        n_visits[b, 0] = 0
        n_value[b, 0] = 0.0
        n_moves = generate_moves(states[b], params[b], moves)
        k = mask_from_moves(moves, n_moves, states[b, ST_TURN], params[b], prefixes[b],
                            plens[b], mask_out[slot])
        if k == 0:
            raise ValueError("a search root has no legal step (the game is over)")
        encode_planes(states[b], params[b], prefixes[b], plens[b], reps[b], obs_out[slot])
        counts[slot] = k
        slot_of[b] = slot
        leaf[b] = 0
        slot += 1
    return slot


@njit(cache=True)
def select_leaves(sim, active, budget, params, max_plies, hist, hist_len, c_puct,
                  fpu_reduction, gumbel, visit_seq, g_score, root_value, c_visit, c_scale,
                  n_state, n_prefix, n_plen, n_player, n_reps, n_term, n_tvalue, n_parent,
                  n_pedge, n_estart, n_ecount, n_visits, n_value, n_used, e_action, e_prior,
                  e_child, e_visits, e_value, leaf, slot_of, obs_out, mask_out, counts):
    """One simulation for every active game whose budget is not spent.

    Descends from the root (PUCT; Gumbel sequential halving at the root when ``gumbel``),
    adds the first unvisited node, and either backs up its terminal value at once or
    queues it for the network in the next free slot.

    Returns:
        L, the number of leaves queued (``slot_of[b]`` = slot or -1, ``leaf[b]`` = node).
    """
    moves = np.empty((MAX_MOVES, MOVE_WIDTH), dtype=np.int64)
    scratch = np.empty(e_action.shape[1], dtype=np.float64)
    slot = 0
    for b in range(active.shape[0]):
        slot_of[b] = -1
        leaf[b] = NO_NODE
        if not active[b] or sim >= budget[b]:
            continue
        u = 0
        while True:
            if n_term[b, u] == 1:
                _backup(b, u, n_tvalue[b, u], n_player, n_visits, n_value, n_parent, n_pedge,
                        e_visits, e_value)
                break
            if u == 0 and gumbel:
                e = _gumbel_root_edge(b, sim, visit_seq, g_score, root_value, c_visit, c_scale,
                                      n_ecount[b, 0], e_prior, e_visits, e_value, scratch)
                if e < 0:
                    e = _puct_edge(b, u, c_puct, fpu_reduction, n_visits, n_value, n_estart,
                                   n_ecount, e_prior, e_visits, e_value)
            else:
                e = _puct_edge(b, u, c_puct, fpu_reduction, n_visits, n_value, n_estart,
                               n_ecount, e_prior, e_visits, e_value)
            c = e_child[b, e]
            if c != NO_NODE:
                u = c
                continue
            c = _make_child(b, u, e, params, n_state, n_prefix, n_plen, n_player, n_reps,
                            n_term, n_parent, n_pedge, n_estart, n_ecount, n_visits, n_value,
                            n_used, e_action, e_child)
            k = prepare_leaf(b, c, slot, params, max_plies, hist, hist_len, n_state, n_prefix,
                             n_plen, n_player, n_reps, n_term, n_tvalue, n_parent, moves,
                             obs_out, mask_out)
            if k < 0:
                _backup(b, c, n_tvalue[b, c], n_player, n_visits, n_value, n_parent, n_pedge,
                        e_visits, e_value)
            else:
                counts[slot] = k
                slot_of[b] = slot
                leaf[b] = c
                slot += 1
            break
    return slot


@njit(cache=True)
def expand_and_backup(logits, values, leaf, slot_of, mask, noise_eps, dirichlet_alpha,
                      gumbel_scale, seed, n_player, n_estart, n_ecount, n_visits, n_value,
                      n_parent, n_pedge, e_used, e_action, e_prior, e_child, e_visits,
                      e_value, g_score, root_value):
    """Create the edges of the queued leaves from the network output and back up its value.

    Args:
        logits: ``[L, A]`` float32 policy logits; values: ``[L]`` float32 for the leaf's
            player to move. ``mask[slot]`` holds each leaf's legal steps.
        noise_eps: ``[B]`` float64 Dirichlet weight at the root (0 = no noise).
        dirichlet_alpha: Dirichlet concentration.
        gumbel_scale: ``[B]`` float64; root edges get ``g_score = scale * Gumbel + log p``.
        seed: seeds the kernel's random generator (reproducible noise).

    The root (node 0) records its network value in ``root_value[b]``.
    """
    np.random.seed(seed)
    num_actions = mask.shape[1]
    for b in range(leaf.shape[0]):
        s = slot_of[b]
        if s < 0:
            continue
        u = leaf[b]
        start = e_used[b]
        k = 0
        mx = -1e300
        for a in range(num_actions):
            if mask[s, a]:
                mx = max(mx, logits[s, a])
        total = 0.0
        for a in range(num_actions):
            if mask[s, a]:
                e = start + k
                p = math.exp(logits[s, a] - mx)
                e_action[b, e] = a
                e_prior[b, e] = p
                e_child[b, e] = NO_NODE
                e_visits[b, e] = 0
                e_value[b, e] = 0.0
                total += p
                k += 1
        for e in range(start, start + k):
            e_prior[b, e] /= total
        if u == 0:
            root_value[b] = values[s]
            if noise_eps[b] > 0.0 and k > 1:
                ns = 0.0
                for e in range(start, start + k):
                    g = np.random.gamma(dirichlet_alpha, 1.0)
                    g_score[b, e - start] = g
                    ns += g
                for e in range(start, start + k):
                    e_prior[b, e] = ((1.0 - noise_eps[b]) * e_prior[b, e]
                                     + noise_eps[b] * g_score[b, e - start] / max(ns, 1e-300))
            for e in range(start, start + k):
                g = 0.0
                if gumbel_scale[b] > 0.0:
                    g = gumbel_scale[b] * np.random.gumbel(0.0, 1.0)
                g_score[b, e - start] = g + math.log(max(e_prior[b, e], 1e-30))
        n_estart[b, u] = start
        n_ecount[b, u] = k
        e_used[b] = start + k
        _backup(b, u, np.float64(values[s]), n_player, n_visits, n_value, n_parent, n_pedge,
                e_visits, e_value)


@njit(cache=True)
def root_outputs(active, gumbel, g_score, root_value, c_visit, c_scale, n_ecount, n_visits,
                 n_value, e_action, e_prior, e_visits, e_value, visits_out, q_out,
                 improved_out, gumbel_action, value_out):
    """Dense per-root statistics after the search.

    Writes ``visits_out[b, a]`` (edge visits), ``q_out[b, a]`` (mean value for the root's
    player, 0 unvisited), ``improved_out[b, a]`` (Gumbel improved policy
    ``softmax(log p + sigma(completed Q))``, 0 off the legal steps), ``gumbel_action[b]``
    (the most visited edge with the best ``g + log p + sigma``) and ``value_out[b]``
    (the root's mean value). Inactive roots get zeros and action -1.
    """
    scratch = np.empty(e_action.shape[1], dtype=np.float64)
    for b in range(active.shape[0]):
        visits_out[b, :] = 0.0
        q_out[b, :] = 0.0
        improved_out[b, :] = 0.0
        gumbel_action[b] = -1
        value_out[b] = 0.0
        if not active[b]:
            continue
        k = n_ecount[b, 0]
        value_out[b] = n_value[b, 0] / max(n_visits[b, 0], 1)
        max_visits = completed_q(b, k, root_value[b], e_prior, e_visits, e_value, scratch)
        sigma = (c_visit + max_visits) * c_scale
        mx = -1e300
        for e in range(k):
            a = e_action[b, e]
            visits_out[b, a] = e_visits[b, e]
            if e_visits[b, e] > 0:
                q_out[b, a] = e_value[b, e] / e_visits[b, e]
            mx = max(mx, math.log(max(e_prior[b, e], 1e-30)) + sigma * scratch[e])
        total = 0.0
        for e in range(k):
            a = e_action[b, e]
            w = math.exp(math.log(max(e_prior[b, e], 1e-30)) + sigma * scratch[e] - mx)
            improved_out[b, a] = w
            total += w
        best = -1e300
        for e in range(k):
            a = e_action[b, e]
            improved_out[b, a] /= total
            if e_visits[b, e] == max_visits:
                score = (g_score[b, e] if gumbel else 0.0) + sigma * scratch[e]
                if not gumbel:
                    score += math.log(max(e_prior[b, e], 1e-30))
                if score > best:
                    best = score
                    gumbel_action[b] = a
