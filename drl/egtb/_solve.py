"""Compiled retrograde solving of one group of slices (a slice and its partner).

A group is solved once every slice its positions can leave it for (by a capture, a
promotion, or a man removed on the far row) is solved. Three kernels:

1. :func:`scan` generates every position's moves with the rules engine's compiled move
   generator (``drl.rules._movegen.generate_at``) and plays them with its move
   application (``drl.rules.core._apply_at``), so that every rule flag of the variant
   applies as in play. A position without moves gets the rules' result
   (``drl.rules.core.status``, with the counters off) at 0 plies. A child outside the
   group has its final value already: a lost child gives a win candidate, a won child
   the longest loss so far, a drawn child rules out a loss. Children inside the group
   are counted.
2. :func:`link` lists, for each position, the positions of the group that move to it
   (compressed rows: ``ptr``, ``preds``).
3. :func:`retrograde` resolves the group in rounds ``d = 0, 1, 2, ...``: a position is
   resolved in round ``d`` when its value is a win or a loss in ``d`` plies; then each
   predecessor of a lost position gets a win candidate in ``d + 1``, and each predecessor
   of a won position one child fewer to wait for (it is lost, in ``1 +`` the longest of
   its children's wins, once every child is a win for the opponent). Wins take the
   shortest way, losses the longest, so ``d`` is the number of plies to the end of the
   game under best play. What is unresolved at the end is a draw: neither side can
   force a result; with repetition a draw, such play is drawn (a cycle of the
   fixed-point that never resolves).

Value codes (``uint16``, the side to move's view): 0 draw, 1 no position (invalid
entry), ``2 + 2 d`` win in ``d`` plies, ``3 + 2 d`` loss in ``d`` plies.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from drl.egtb._index import S_OFFSET, rank, unrank
from drl.rules._movegen import generate_at
from drl.rules.core import _apply_at, status

__all__ = ["DRAW", "INVALID", "INF", "scan", "link", "retrograde", "new_buffers"]

DRAW = 0
INVALID = 1
INF = np.int32(2**30)

# flags
RESOLVED = 1
HAS_DRAW = 2


def new_buffers(nsq: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scratch arrays of the kernels: states ``int64[2, 12]``, moves, move-generator context."""
    from drl.rules._movegen import CTX_SIZE, MAX_MOVES, MOVE_WIDTH
    from drl.rules.core import STATE_SIZE

    del nsq
    return (
        np.zeros((2, STATE_SIZE), dtype=np.int64),
        np.zeros((1, MAX_MOVES, MOVE_WIDTH), dtype=np.int64),
        np.zeros(CTX_SIZE, dtype=np.int64),
    )


@njit(cache=True, inline="always")
def _load(states, bm, bk, wm, wk, turn):
    states[0, :] = 0
    states[0, 0] = bm
    states[0, 1] = bk
    states[0, 2] = wm
    states[0, 3] = wk
    states[0, 4] = turn


@njit(cache=True)
def scan(sid, lo, hi, grp, ix, params, vals, work, buf):
    """First pass over entries ``lo..hi-1`` of slice ``sid`` of the group ``grp``.

    Args:
        sid: the slice row.
        lo: the first entry of the slice to scan.
        hi: one past the last.
        grp: ``(g0, g1)`` the group's global entry range (``n = g1 - g0`` entries).
        ix: ``(geo, table, slice_of, binom)`` of :class:`~drl.egtb._index.Layout`.
        params: the solving parameters (counters and repetition off).
        vals: ``uint16[total]`` value codes; read outside the group, written for entries
            decided here (invalid entries, finished games).
        work: ``(cnt, indeg, wcand, lmax, flags)``, per group entry: ``int32[n]``
            children inside the group; ``int64[n + 1]`` moves into the entry (counted
            up); ``int32[n]`` shortest win found so far (``INF`` none); ``int32[n]``
            longest loss so far; ``uint8[n]`` ``RESOLVED`` / ``HAS_DRAW`` bits.
        buf: :func:`new_buffers`.

    Returns:
        The number of moves inside the group found (edges).
    """
    geo, table, slice_of, binom = ix
    states, moves, ctx = buf
    cnt, indeg, wcand, lmax, flags = work
    g0, g1 = grp
    base = table[sid, S_OFFSET]
    edges = 0
    for idx in range(lo, hi):
        p = base + idx
        q = p - g0
        bm, bk, wm, wk, turn, ok = unrank(sid, idx, geo, table, binom)
        if not ok:
            vals[p] = INVALID
            flags[q] = RESOLVED
            continue
        _load(states, bm, bk, wm, wk, turn)
        n = generate_at(states, 0, params, moves, 0, ctx)
        code = status(states[0], params, n)
        if code >= 0:
            winner = code % 4
            if winner == 2:
                vals[p] = DRAW
                flags[q] = RESOLVED
            elif winner == turn:
                wcand[q] = 0
            else:
                lmax[q] = 0
                cnt[q] = -1  # a loss at once: scheduled below
            continue
        c = 0
        for i in range(n):
            _apply_at(states, 0, params, moves, 0, i, states, 1)
            r = rank(
                states[1, 0], states[1, 1], states[1, 2], states[1, 3], states[1, 4],
                geo, table, slice_of, binom,
            )  # fmt: skip
            if g0 <= r < g1:
                c += 1
                indeg[r - g0] += 1
                continue
            v = vals[r]
            if v == DRAW:
                flags[q] |= HAS_DRAW
            elif v & 1:
                wcand[q] = min(wcand[q], (v - 3) // 2 + 1)
            else:
                lmax[q] = max(lmax[q], (v - 2) // 2 + 1)
        cnt[q] = c
        edges += c
        if c == 0 and wcand[q] == INF and flags[q] & HAS_DRAW:
            vals[p] = DRAW
            flags[q] |= RESOLVED
    return edges


@njit(cache=True)
def link(sid, lo, hi, grp, ix, params, cnt, csr, buf):
    """Second pass: write each group entry's predecessors (entries moving to it).

    ``csr`` is ``(ptr, fill, preds)``: ``preds[ptr[c]:ptr[c + 1]]`` are the group
    entries (``int32``, relative to ``g0``) with a move to group entry ``c``, one per
    move; ``fill`` is a copy of ``ptr[:-1]`` that the pass advances. The other arguments
    are those of :func:`scan`.
    """
    geo, table, slice_of, binom = ix
    states, moves, ctx = buf
    _, fill, preds = csr
    g0, g1 = grp
    base = table[sid, S_OFFSET]
    for idx in range(lo, hi):
        q = base + idx - g0
        if cnt[q] <= 0:
            continue
        bm, bk, wm, wk, turn, ok = unrank(sid, idx, geo, table, binom)
        _load(states, bm, bk, wm, wk, turn)
        n = generate_at(states, 0, params, moves, 0, ctx)
        for i in range(n):
            _apply_at(states, 0, params, moves, 0, i, states, 1)
            r = rank(
                states[1, 0], states[1, 1], states[1, 2], states[1, 3], states[1, 4],
                geo, table, slice_of, binom,
            )  # fmt: skip
            if g0 <= r < g1:
                c = r - g0
                preds[fill[c]] = q
                fill[c] += 1


#: Longest win or loss a group may hold, in plies (codes stay below 2**16).
MAX_PLIES = 32766


@njit(cache=True, inline="always")
def _push(q, d, heads, node_q, node_next, top):
    """Put entry ``q`` in the bucket of round ``d``; returns the new pool top."""
    if d > MAX_PLIES:
        raise ValueError("a win or loss is longer than the 32766 plies a value code holds")
    node_q[top] = q
    node_next[top] = heads[d]
    heads[d] = top
    return top + 1


@njit(cache=True)
def retrograde(g0, n, vals, cnt, wcand, lmax, flags, ptr, preds):
    """Resolve the group's entries in order of plies to the end (see the module text).

    Each round ``d`` takes the entries scheduled for it from a bucket (a linked list in a
    node pool; an entry is scheduled at most three times: a win found outside the group,
    a shorter one inside it, or its loss). Writes ``vals[g0:g0 + n]``; entries left
    unresolved are draws (code 0).

    Returns:
        The number of rounds run (the longest win or loss in the group, plus one).
    """
    lsched = np.full(n, INF, dtype=np.int32)
    heads = np.full(MAX_PLIES + 2, -1, dtype=np.int32)
    node_q = np.empty(3 * n + 1, dtype=np.int32)
    node_next = np.empty(3 * n + 1, dtype=np.int32)
    top = 0
    last = 0
    for q in range(n):
        if flags[q] & RESOLVED:
            continue
        if wcand[q] < INF:
            top = _push(q, wcand[q], heads, node_q, node_next, top)
            last = max(last, wcand[q])
        elif cnt[q] == -1 or (cnt[q] == 0 and not flags[q] & HAS_DRAW):
            cnt[q] = 0
            lsched[q] = lmax[q]
            top = _push(q, lmax[q], heads, node_q, node_next, top)
            last = max(last, lmax[q])
    frontier = np.empty(n, dtype=np.int32)
    d = 0
    while d <= last:
        k = 0
        node = heads[d]
        while node >= 0:
            q = node_q[node]
            node = node_next[node]
            if flags[q] & RESOLVED or (wcand[q] != d and (wcand[q] < INF or lsched[q] != d)):
                continue
            flags[q] |= RESOLVED
            vals[g0 + q] = 2 + 2 * d if wcand[q] == d else 3 + 2 * d
            frontier[k] = q
            k += 1
        for j in range(k):
            q = frontier[j]
            win = wcand[q] == d
            for e in range(ptr[q], ptr[q + 1]):
                r = preds[e]
                if flags[r] & RESOLVED:
                    continue
                if not win:
                    if d + 1 < wcand[r]:
                        wcand[r] = d + 1
                        top = _push(r, d + 1, heads, node_q, node_next, top)
                        last = max(last, d + 1)
                    continue
                cnt[r] -= 1
                lmax[r] = max(lmax[r], d + 1)
                if cnt[r] == 0 and wcand[r] == INF and not flags[r] & HAS_DRAW:
                    lsched[r] = lmax[r]
                    top = _push(r, lmax[r], heads, node_q, node_next, top)
                    last = max(last, lmax[r])
        d += 1
    for q in range(n):
        if not flags[q] & RESOLVED:
            vals[g0 + q] = DRAW
    return last + 1
