"""Legal-step masks and step bookkeeping for moves split into one action per hop.

A position in step space is ``(state, prefix)``: the game state (``int64[STATE_SIZE]``) and
the step actions already played in the move in progress (``prefix[:prefix_len]``,
``int64`` action indices in the mover's frame, see :mod:`drl.encode.actions`). The state
does not change until the last step of a move; the same player keeps acting until then.

The legal steps at ``(state, prefix)`` are the next steps of the full legal moves (from
``drl.rules.core.generate_moves``) whose first ``prefix_len`` steps equal the prefix, so
compulsory capture, maximum capture, continuation and landing-square rules carry over
unchanged. A legal move is never a proper prefix of another one (a capturing piece must
go on jumping while it can), so a prefix either completes exactly one move, extends to
longer ones, or is illegal.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from drl.encode.actions import path_step_index
from drl.rules.core import M_NSTEPS, MOVE_WIDTH

# Longest move: the path columns of a move row.
MAX_STEPS = MOVE_WIDTH - 5

IN_PROGRESS = -1
"""Return code of :func:`step_outcome`: the prefix is a proper prefix of a legal move."""
ILLEGAL = -2
"""Return code of :func:`step_outcome`: no legal move starts with the prefix."""


@njit(cache=True)
def _matches(move_row, turn, params, prefix, prefix_len) -> bool:
    if move_row[M_NSTEPS] < prefix_len:
        return False
    for j in range(prefix_len):
        if path_step_index(move_row, j, turn, params) != prefix[j]:
            return False
    return True


@njit(cache=True)
def mask_from_moves(
    moves: np.ndarray,
    n_moves: int,
    turn: int,
    params: np.ndarray,
    prefix: np.ndarray,
    prefix_len: int,
    out_mask: np.ndarray,
) -> int:
    """Legal-step mask from an already generated move list.

    Args:
        moves: ``int64[>=n_moves, MOVE_WIDTH]`` legal move rows of the position.
        n_moves: number of valid rows.
        turn: colour to move (0 black, 1 white), ``state[ST_TURN]``.
        params: ``int64[PARAMS_SIZE]`` variant parameters.
        prefix: ``int64[>=prefix_len]`` step actions played so far in this move.
        prefix_len: number of steps played (0 at the start of a move).
        out_mask: ``bool[A]`` (or ``int8[A]``), overwritten; 1 marks a legal step.

    Returns:
        The number of legal steps (0 when the game is over or the prefix is illegal).
    """
    out_mask[:] = 0
    count = 0
    for i in range(n_moves):
        row = moves[i]
        if row[M_NSTEPS] > prefix_len and _matches(row, turn, params, prefix, prefix_len):
            a = path_step_index(row, prefix_len, turn, params)
            if out_mask[a] == 0:
                out_mask[a] = 1
                count += 1
    return count


@njit(cache=True)
def legal_steps(
    moves: np.ndarray,
    n_moves: int,
    turn: int,
    params: np.ndarray,
    prefix: np.ndarray,
    prefix_len: int,
    out: np.ndarray,
) -> int:
    """The legal steps as a sorted list: :func:`mask_from_moves` without a dense mask.

    This is what the compiled search uses, where a leaf has a few dozen steps out of ``A``.

    Args:
        moves: ``int64[>=n_moves, MOVE_WIDTH]`` legal move rows of the position.
        n_moves: number of valid rows.
        turn: colour to move (0 black, 1 white), ``state[ST_TURN]``.
        params: ``int64[PARAMS_SIZE]`` variant parameters.
        prefix: ``int64[>=prefix_len]`` step actions played so far in this move.
        prefix_len: number of steps played (0 at the start of a move).
        out: ``int64[>= number of legal steps]`` (at most ``n_moves``), receives the
            distinct legal step actions in increasing order.

    Returns:
        The number of legal steps written.
    """
    count = 0
    for i in range(n_moves):
        row = moves[i]
        if row[M_NSTEPS] > prefix_len and _matches(row, turn, params, prefix, prefix_len):
            a = path_step_index(row, prefix_len, turn, params)
            j = count
            while j > 0 and out[j - 1] > a:
                j -= 1
            if j > 0 and out[j - 1] == a:
                continue
            for t in range(count, j, -1):
                out[t] = out[t - 1]
            out[j] = a
            count += 1
    return count


@njit(cache=True)
def step_outcome(
    moves: np.ndarray,
    n_moves: int,
    turn: int,
    params: np.ndarray,
    prefix: np.ndarray,
    prefix_len: int,
) -> int:
    """Where a step prefix stands among the legal moves.

    Args:
        moves: ``int64[>=n_moves, MOVE_WIDTH]`` legal move rows of the position.
        n_moves: number of valid rows.
        turn: colour to move (0 black, 1 white), ``state[ST_TURN]``.
        params: ``int64[PARAMS_SIZE]`` variant parameters.
        prefix: ``int64[>=prefix_len]`` step actions played so far in this move.
        prefix_len: number of steps played, the last one included.

    Returns:
        The row index (``>= 0``) of the move that the prefix completes, ``IN_PROGRESS`` (-1)
        if it is a proper prefix of at least one legal move, ``ILLEGAL`` (-2) otherwise.
    """
    result = ILLEGAL
    for i in range(n_moves):
        row = moves[i]
        if _matches(row, turn, params, prefix, prefix_len):
            if row[M_NSTEPS] == prefix_len:
                return i
            result = IN_PROGRESS
    return result
