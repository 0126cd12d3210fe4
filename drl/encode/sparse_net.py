"""The sparse network's forward pass, compiled: what the search calls at every leaf.

The network (architecture ``sparse``, trained as :class:`drl.nn.sparse.SparseNet`) maps
the sparse features of :mod:`drl.encode.features` through two hidden layers::

    h1 = relu(b1 + sum over active features f of x_f * W1[f])    # [H1], no matmul
    h2 = relu(b2 + W2 @ h1)                                       # [H2]
    value = tanh(bv + wv . h2)                                    # player to move's view
    logit[a] = bp[a] + Wp[a] . h2        for the legal steps a only

The first layer costs one row addition per active feature (a few dozen), the second
``H1 * H2`` multiply-adds, each logit ``H2``: about 1 microsecond a position on one
core at 256 / 32, with no batching, so the search evaluates each leaf as it reaches it.
All arithmetic is float32, as in the torch twin.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from drl.encode.features import MAX_ACTIVE, active_features

__all__ = [
    "SparseScratch",
    "SparseWeights",
    "evaluate_position",
    "hidden",
    "logit",
    "make_scratch",
    "second_layer",
    "value_of",
]


_FAST = {"nsz", "arcp", "contract", "afn", "reassoc"}
"""Fast-math flags of the forward pass: sums may be reordered (vectorised), but NaN and
infinity are kept (no ``nnan``/``ninf``), so an overflowing network shows as a non-finite
value or logit, as it does in the torch twin, and the search can refuse it."""


class SparseWeights(NamedTuple):
    """The weights of a sparse network in the layout of the compiled forward pass.

    C-contiguous float32; F features, A step actions.

    Attributes:
        w1: ``float32[F, H1]``, one row per feature (the transpose of torch's weight).
        b1: ``float32[H1]``.
        w2: ``float32[H2, H1]``.
        b2: ``float32[H2]``.
        wv: ``float32[H2]`` value output row.
        bv: ``float32[1]`` value output bias.
        wp: ``float32[A, H2]``, one row per step action.
        bp: ``float32[A]``.
    """

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    wv: np.ndarray
    bv: np.ndarray
    wp: np.ndarray
    bp: np.ndarray


class SparseScratch(NamedTuple):
    """Work space of one forward pass at a time (:func:`make_scratch`).

    Attributes:
        idx: ``int64[MAX_ACTIVE]`` active feature indices.
        val: ``float32[MAX_ACTIVE]`` their values.
        h1: ``float32[H1]`` first hidden layer.
        h2: ``float32[H2]`` second hidden layer.
    """

    idx: np.ndarray
    val: np.ndarray
    h1: np.ndarray
    h2: np.ndarray


def make_scratch(net: SparseWeights) -> SparseScratch:
    """Work space sized for ``net``."""
    return SparseScratch(
        idx=np.zeros(MAX_ACTIVE, np.int64),
        val=np.zeros(MAX_ACTIVE, np.float32),
        h1=np.zeros(net.w1.shape[1], np.float32),
        h2=np.zeros(net.w2.shape[0], np.float32),
    )


@njit(cache=True, fastmath=_FAST)
def hidden(net, scratch, n):
    """Both hidden layers of the features ``scratch.idx[:n]``, ``scratch.val[:n]``.

    The second is left in ``scratch.h2`` (:func:`second_layer`).
    """
    h1 = scratch.h1
    w1 = net.w1
    width = h1.shape[0]
    for i in range(width):
        h1[i] = net.b1[i]
    for j in range(n):
        f = scratch.idx[j]
        x = scratch.val[j]
        if x == 1.0:
            for i in range(width):
                h1[i] += w1[f, i]
        else:
            for i in range(width):
                h1[i] += x * w1[f, i]
    second_layer(net, scratch)


@njit(cache=True, fastmath=_FAST)
def second_layer(net, scratch):
    """``scratch.h2`` from the first layer's sums in ``scratch.h1`` (made non-negative)."""
    h1 = scratch.h1
    width = h1.shape[0]
    for i in range(width):
        if h1[i] < 0.0:
            h1[i] = 0.0
    h2 = scratch.h2
    w2 = net.w2
    for o in range(h2.shape[0]):
        s = np.float32(0.0)
        for i in range(width):
            s += w2[o, i] * h1[i]
        s += net.b2[o]
        h2[o] = np.float32(0.0) if s < 0.0 else s  # NaN passes, as in torch's relu


@njit(cache=True, fastmath=_FAST)
def value_of(net, scratch):
    """The value (``[-1, 1]``, player to move) from the hidden layer in ``scratch``."""
    h2 = scratch.h2
    s = np.float32(0.0)
    for i in range(h2.shape[0]):
        s += net.wv[i] * h2[i]
    return math.tanh(s + net.bv[0])


@njit(cache=True, fastmath=_FAST)
def logit(net, scratch, a):
    """The policy logit of step action ``a`` from the hidden layer in ``scratch``."""
    h2 = scratch.h2
    s = np.float32(0.0)
    for i in range(h2.shape[0]):
        s += net.wp[a, i] * h2[i]
    return s + net.bp[a]


@njit(cache=True)
def evaluate_position(state, params, prefix, prefix_len, repetitions, net, scratch):
    """Features and hidden layers of a position; returns its value.

    The second hidden layer is left in ``scratch`` for :func:`logit`. The position is
    given as in :func:`drl.encode.features.active_features`.

    Args:
        state: ``int64[STATE_SIZE]``.
        params: ``int64[PARAMS_SIZE]`` variant parameters.
        prefix: ``int64[>= prefix_len]`` steps of the move in progress (mover's frame).
        prefix_len: steps played in it (0 = none).
        repetitions: earlier occurrences of the position.
        net: :class:`SparseWeights`.
        scratch: :class:`SparseScratch` sized for ``net``.

    Returns:
        The value for the player to move, in ``[-1, 1]``.
    """
    n = active_features(state, params, prefix, prefix_len, repetitions, scratch.idx, scratch.val)
    hidden(net, scratch, n)
    return value_of(net, scratch)
