"""Sparse features of a position: the inputs of the sparse network, compiled.

The features are the observation planes (:mod:`drl.encode.planes`) without their
redundancy: one feature per (piece plane, dark square) and one per constant plane, so a
position has a few dozen active features out of ``F = 6 * NSQ + 16`` (208 on 8x8, 316
on 10x10). Everything is seen from the player to move, as the planes are:

=====================================  ===============================================
``ch * NSQ + v`` for ``ch`` in 0..5     piece plane ``ch`` (own men, own kings, opponent
                                        men, opponent kings, captured in the move in
                                        progress, the jumping piece) on the square ``v``
                                        of the mover's frame (``orient_square``)
``6 * NSQ + k`` for ``k`` in 0..15      constant plane ``6 + k``: objectives (the role
                                        in Give and Take), player to move, rule flags,
                                        role-swap, no-progress, repetition and endgame
                                        counters scaled to ``[0, 1]``
=====================================  ===============================================

Piece features are 0 or 1; the counters are fractions. :func:`active_features` lists
the non-zero ones from the bitboards directly (no planes are built), and
:func:`plane_index` gives, for each feature, its entry in the flattened planes, so a
network trained on stored planes reads exactly the same numbers
(``planes.reshape(-1)[plane_index(n)]``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from drl.encode.actions import orient_square
from drl.encode.planes import (
    N_CHANNELS,
    N_CONSTANTS,
    N_PIECE_PLANES,
    constant_values,
    view_pieces,
)
from drl.rules._bits import lowest_square
from drl.rules.core import ST_TURN
from drl.rules.geometry import COL, ROW, size_index

__all__ = ["MAX_ACTIVE", "active_features", "num_features", "plane_index"]

_P_NSQ = 2

MAX_ACTIVE = 2 * 50 + 2 + N_CONSTANTS
"""Most non-zero features of a position (pieces, captured and jumper, constants)."""


def num_features(board_size: int) -> int:
    """``F = 6 * NSQ + 16``: 208 on 8x8, 316 on 10x10.

    Raises:
        ValueError: if the board size is not 8 or 10.
    """
    size_index(board_size)
    return N_PIECE_PLANES * board_size * board_size // 2 + N_CONSTANTS


def plane_index(board_size: int) -> np.ndarray:
    """``int64[F]``: the index of each feature in the flattened planes.

    The planes are ``float32[N_CHANNELS * n * n]``; a constant plane is read on its first
    dark square.

    Raises:
        ValueError: if the board size is not 8 or 10.
    """
    z = size_index(board_size)
    n = board_size
    nsq = n * n // 2
    out = np.empty(num_features(board_size), np.int64)
    for ch in range(N_PIECE_PLANES):
        for v in range(nsq):
            out[ch * nsq + v] = (ch * n + ROW[z, v]) * n + COL[z, v]
    for k in range(N_CONSTANTS):
        out[N_PIECE_PLANES * nsq + k] = ((N_PIECE_PLANES + k) * n + ROW[z, 0]) * n + COL[z, 0]
    assert out.max() < N_CHANNELS * n * n
    return out


@njit(cache=True, inline="always")
def _add_squares(bb, base, viewer, nsq, idx, val, n):
    while bb != 0:
        s = lowest_square(bb)
        bb &= bb - 1
        idx[n] = base + orient_square(s, viewer, nsq)
        val[n] = 1.0
        n += 1
    return n


@njit(cache=True)
def active_features(state, params, prefix, prefix_len, repetitions, idx, val):
    """The non-zero features of a position, from the player to move's view.

    Args:
        state: ``int64[STATE_SIZE]``.
        params: ``int64[PARAMS_SIZE]`` variant parameters.
        prefix: ``int64[>= prefix_len]`` steps of the move in progress (mover's frame).
        prefix_len: steps played in it (0 = none).
        repetitions: earlier occurrences of the position.
        idx: ``int64[>= MAX_ACTIVE]``, receives the feature indices.
        val: ``float32[>= MAX_ACTIVE]``, receives their values.

    Returns:
        The number of features written (``idx[:k]``, ``val[:k]``; piece features first,
        in plane order, then the non-zero constants).
    """
    viewer = state[ST_TURN]
    nsq = params[_P_NSQ]
    own_men, own_kings, opp_men, opp_kings, captured, jumper = view_pieces(
        state, params, prefix, prefix_len, viewer
    )
    n = 0
    n = _add_squares(own_men, 0, viewer, nsq, idx, val, n)
    n = _add_squares(own_kings, nsq, viewer, nsq, idx, val, n)
    n = _add_squares(opp_men, 2 * nsq, viewer, nsq, idx, val, n)
    n = _add_squares(opp_kings, 3 * nsq, viewer, nsq, idx, val, n)
    n = _add_squares(captured, 4 * nsq, viewer, nsq, idx, val, n)
    if jumper >= 0:
        idx[n] = 5 * nsq + orient_square(jumper, viewer, nsq)
        val[n] = 1.0
        n += 1
    constant_values(state, params, repetitions, viewer, val, n)  # then keep the non-zero
    base = N_PIECE_PLANES * nsq
    first = n
    for k in range(N_CONSTANTS):
        x = val[first + k]
        if x != 0.0:
            idx[n] = base + k
            val[n] = x
            n += 1
    return n
