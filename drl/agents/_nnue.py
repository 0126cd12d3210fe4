"""The learned evaluation of alpha-beta with its first layer updated along the search path.

The sparse network's first layer (:mod:`drl.encode.sparse_net`) is a sum of rows of
``w1``, one per active feature. Most features are pieces (:mod:`drl.encode.features`:
own men, own kings, opponent men, opponent kings, each on a square of the mover's frame),
and a move changes only a few of them: the moving piece leaves one square and lands on
another, the pieces it captures leave, a crowning man becomes a king. So the search keeps,
for every ply of its stack, the piece part of the first layer from both players' chairs
(an *accumulator*, ``b1`` plus the rows of the pieces), and a child's accumulator is its
parent's plus the rows of the pieces the move added and minus those it removed, found by
comparing the two positions' bitboards (so captures, promotions and every variant's
rules are covered alike). Unmaking a move costs nothing: the parent's row is still there.

At a leaf, the accumulator of the player to move gets the rows of the non-zero constant
features (role, rule flags, counters: they depend on the game's history and are cheap),
then the second layer and the value, as in :func:`drl.encode.sparse_net.hidden`.
The sums are float32 in another order than the full recomputation's, so values agree to
float32 rounding (about ``1e-6`` of the first layer's size), not bit for bit.

``NetStack.ctl[N_INCREMENTAL] = 0`` makes the search recompute the first layer at every
leaf instead. That is the agent's default (``AlphaBetaAgent.set_incremental``): with the
256/32 networks the second layer (8,192 multiply-adds) dominates a leaf, and updating both
chairs' accumulators costs about what it saves; ``benchmarks/search_speed.py`` measured
the updated search at 0.94-0.96 of the recomputing one's nodes per second.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from drl.encode.planes import N_CONSTANTS, N_PIECE_PLANES, constant_values
from drl.encode.sparse_net import SparseWeights, second_layer, value_of
from drl.rules._bits import lowest_square
from drl.rules.core import ST_BK, ST_BM, ST_TURN, ST_WK, ST_WM

__all__ = [
    "N_INCREMENTAL",
    "NetStack",
    "bring_up",
    "invalidate",
    "leaf_value",
    "make_net_stack",
    "refresh",
    "update",
]

_P_NSQ = 2
_FAST = {"nsz", "arcp", "contract", "afn", "reassoc"}  # as in drl.encode.sparse_net
N_INCREMENTAL = 0
"""``NetStack.ctl`` entry: 1 to update the first layer along the path, 0 to recompute it."""


class NetStack(NamedTuple):
    """The first-layer accumulators of one search, one row per ply.

    Attributes:
        acc: ``float32[plies, 2, H1]``: at each ply, ``b1`` plus the ``w1`` rows of the
            pieces seen from Black's chair (``[ply, 0]``) and White's (``[ply, 1]``).
        ctl: ``int64[2]``; ``ctl[N_INCREMENTAL]`` selects the incremental update (1) or
            the full recomputation at every leaf (0).
        valid: ``int64[plies]``, 1 where ``acc`` holds the position now at that ply
            (:func:`invalidate`, :func:`bring_up`).
    """

    acc: np.ndarray
    ctl: np.ndarray
    valid: np.ndarray


def make_net_stack(net: SparseWeights, plies: int, incremental: bool = True) -> NetStack:
    """Accumulators for ``plies`` plies of a search with ``net``."""
    ctl = np.zeros(2, np.int64)
    ctl[N_INCREMENTAL] = 1 if incremental else 0
    return NetStack(
        acc=np.zeros((plies, 2, net.w1.shape[1]), np.float32),
        ctl=ctl,
        valid=np.zeros(plies, np.int64),
    )


@njit(cache=True, _nrt=False, inline="always")
def invalidate(nstack, ply):
    """A new position was played into ``ply``: its accumulators are out of date."""
    nstack.valid[ply] = 0


@njit(cache=True, _nrt=False, fastmath=_FAST)
def bring_up(states, params, net, nstack, ply):
    """Make ``nstack.acc[ply]`` hold ``states[ply]``.

    The plies on the path are updated from the deepest one still valid (the root's
    always is, :func:`refresh`).

    Done only when a leaf needs it, so a node cut off by the transposition table, a
    repetition or the end of the game costs nothing.
    """
    q = ply
    while q > 0 and nstack.valid[q] == 0:
        q -= 1
    for r in range(q, ply):
        update(states[r], states[r + 1], params, net, nstack.acc[r], nstack.acc[r + 1])
        nstack.valid[r + 1] = 1


@njit(cache=True, _nrt=False, inline="always")
def _add_rows(bb, base, viewer, nsq, sign, w1, out):
    width = out.shape[0]
    while bb != 0:
        s = lowest_square(bb)
        bb &= bb - 1
        f = base + (nsq - 1 - s if viewer == 0 else s)  # orient_square
        if sign > 0:
            for i in range(width):
                out[i] += w1[f, i]
        else:
            for i in range(width):
                out[i] -= w1[f, i]


@njit(cache=True, _nrt=False, inline="always")
def _channel(piece, viewer, nsq):
    """First feature of bitboard ``piece`` (``ST_BM .. ST_WK``) from ``viewer``'s chair."""
    own = (piece >= ST_WM) == (viewer == 1)
    king = piece == ST_BK or piece == ST_WK
    return ((0 if own else 2) + (1 if king else 0)) * nsq


@njit(cache=True, _nrt=False, fastmath=_FAST)
def refresh(st, params, net, acc):
    """Set ``acc`` (``float32[2, H1]``) to the accumulators of position ``st``."""
    nsq = params[_P_NSQ]
    for viewer in range(2):
        out = acc[viewer]
        for i in range(out.shape[0]):
            out[i] = net.b1[i]
        for piece in (ST_BM, ST_BK, ST_WM, ST_WK):
            _add_rows(st[piece], _channel(piece, viewer, nsq), viewer, nsq, 1, net.w1, out)


@njit(cache=True, _nrt=False, fastmath=_FAST)
def update(parent, child, params, net, acc_parent, acc_child):
    """``acc_child`` from ``acc_parent`` and the pieces that differ in ``child``.

    Args:
        parent: ``int64[STATE_SIZE]`` a position.
        child: ``int64[STATE_SIZE]`` the position after one of its moves.
        params: ``int64[PARAMS_SIZE]``.
        net: :class:`~drl.encode.sparse_net.SparseWeights`.
        acc_parent: ``float32[2, H1]`` the parent's accumulators.
        acc_child: ``float32[2, H1]`` receives the child's.
    """
    nsq = params[_P_NSQ]
    width = acc_child.shape[1]
    for viewer in range(2):
        for i in range(width):
            acc_child[viewer, i] = acc_parent[viewer, i]
    for piece in (ST_BM, ST_BK, ST_WM, ST_WK):
        gone = parent[piece] & ~child[piece]
        new = child[piece] & ~parent[piece]
        if gone == 0 and new == 0:
            continue
        for viewer in range(2):
            base = _channel(piece, viewer, nsq)
            _add_rows(gone, base, viewer, nsq, -1, net.w1, acc_child[viewer])
            _add_rows(new, base, viewer, nsq, 1, net.w1, acc_child[viewer])


@njit(cache=True, _nrt=False, fastmath=_FAST)
def leaf_value(st, params, earlier, net, scratch, acc):
    """The network's value of the quiet position ``st`` (``[-1, 1]``, player to move).

    The first layer is the mover's accumulator in ``acc`` (``float32[2, H1]``, kept by
    :func:`refresh` and :func:`update`) plus the rows of the non-zero constant features;
    the rest is :func:`~drl.encode.sparse_net.second_layer` (dense: skipping the zero
    units costs a mispredicted branch per unit, more than it saves). ``earlier`` counts
    the position's earlier occurrences (the repetition feature).
    """
    h1 = scratch.h1
    mine = acc[st[ST_TURN]]
    for i in range(h1.shape[0]):
        h1[i] = mine[i]
    val = scratch.val
    constant_values(st, params, earlier, st[ST_TURN], val, 0)
    base = N_PIECE_PLANES * params[_P_NSQ]
    for k in range(N_CONSTANTS):
        x = val[k]
        if x != 0.0:
            for i in range(h1.shape[0]):
                h1[i] += x * net.w1[base + k, i]
    second_layer(net, scratch)
    return value_of(net, scratch)
