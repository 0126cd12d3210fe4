"""The step game over B games at once: one compiled call per step of all games.

Self-play and the network agent keep their games in ``[B, ...]`` arrays (positions
``int64[B, POS_SIZE]``, histories ``int64[B, H]``, variant parameters
``int64[B, PARAMS_SIZE]``) and call these kernels once per step instead of the
single-game kernels of :mod:`drl.game.kernels` once per game. Each kernel does for every
game with ``active[i]`` what the single-game kernel of the same name does; the others
are left as they are.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from drl.game import kernels as G
from drl.rules.core import MAX_MOVES, MOVE_WIDTH

__all__ = ["legal_counts", "observe_all", "step_all"]


@njit(cache=True)
def legal_counts(pos, params, active, count_out, single_out):
    """Write the number of legal steps of each game, and the step where there is only one.

    ``count_out[i]`` (``int64[B]``) receives game i's number of legal steps and
    ``single_out[i]`` its one legal step, -1 where there is not exactly one.
    """
    moves = np.empty((MAX_MOVES, MOVE_WIDTH), np.int64)
    steps = np.empty(MAX_MOVES, np.int64)
    for i in range(pos.shape[0]):
        single_out[i] = -1
        if not active[i]:
            continue
        G.generate(pos[i], params[i], moves)
        k = G.legal_step_list(pos[i], params[i], moves, steps)
        count_out[i] = k
        if k == 1:
            single_out[i] = steps[0]


@njit(cache=True)
def step_all(pos, params, hist, actions, active, played, result):
    """Play step ``actions[i]`` in every active game (:func:`drl.game.kernels.step`).

    Args:
        pos: ``int64[B, POS_SIZE]`` the games' positions.
        params: ``int64[B, PARAMS_SIZE]`` their variant parameters.
        hist: ``int64[B, H]``: ``hist[i]`` is game i's history by ply.
        actions: ``int64[B]`` step actions.
        active: ``bool[B]``.
        played: ``int64[B, MOVE_WIDTH]``, row i receives the move game i completed.
        result: ``int64[B]``, receives ``STEP_ILLEGAL`` (nothing changed),
            ``STEP_IN_PROGRESS`` or ``STEP_MOVE_DONE`` per game.
    """
    moves = np.empty((MAX_MOVES, MOVE_WIDTH), np.int64)
    for i in range(pos.shape[0]):
        if not active[i]:
            continue
        G.generate(pos[i], params[i], moves)
        result[i] = G.step(pos[i], params[i], moves, hist[i], actions[i], played[i])


@njit(cache=True)
def observe_all(pos, params, active, out):
    """Write the observation planes of every active game, from its player to move.

    ``out`` is ``float32[B, C, n, n]``; the rows of the other games are untouched.
    """
    for i in range(pos.shape[0]):
        if active[i]:
            G.observe(pos[i], params[i], -1, out[i])
