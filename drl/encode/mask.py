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
from drl.rules.core import (
    M_NSTEPS,
    MAX_MOVES,
    MOVE_WIDTH,
    ST_TURN,
    apply_move_into,
    generate_moves,
)

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
def mask_from_moves(moves: np.ndarray, n_moves: int, turn: int, params: np.ndarray,
                    prefix: np.ndarray, prefix_len: int, out_mask: np.ndarray) -> int:
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
def step_outcome(moves: np.ndarray, n_moves: int, turn: int, params: np.ndarray,
                 prefix: np.ndarray, prefix_len: int) -> int:
    """Where a step prefix stands among the legal moves.

    Args:
        moves, n_moves, turn, params, prefix, prefix_len: as in :func:`mask_from_moves`.

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


@njit(cache=True)
def legal_step_mask(state: np.ndarray, params: np.ndarray, prefix: np.ndarray,
                    prefix_len: int, out_mask: np.ndarray) -> int:
    """Legal-step mask of ``(state, prefix)``; generates the moves itself.

    Args:
        state: ``int64[STATE_SIZE]`` game state.
        params: ``int64[PARAMS_SIZE]`` variant parameters.
        prefix: ``int64[>=prefix_len]`` step actions played so far in the move in progress.
        prefix_len: number of those steps.
        out_mask: ``bool[A]`` or ``int8[A]``, overwritten.

    Returns:
        The number of legal steps.
    """
    moves = np.empty((MAX_MOVES, MOVE_WIDTH), dtype=np.int64)
    n = generate_moves(state, params, moves)
    return mask_from_moves(moves, n, state[ST_TURN], params, prefix, prefix_len, out_mask)


@njit(cache=True)
def legal_step_mask_batch(states: np.ndarray, params: np.ndarray, prefixes: np.ndarray,
                          prefix_lens: np.ndarray, out_masks: np.ndarray) -> np.ndarray:
    """Legal-step masks of many positions of one variant.

    Args:
        states: ``int64[B, STATE_SIZE]``.
        params: ``int64[PARAMS_SIZE]``.
        prefixes: ``int64[B, L]`` (L >= the longest prefix, e.g. ``MAX_STEPS``).
        prefix_lens: ``int64[B]``.
        out_masks: ``bool[B, A]`` or ``int8[B, A]``, overwritten.

    Returns:
        ``int64[B]``: the number of legal steps of each position.
    """
    b = states.shape[0]
    counts = np.zeros(b, dtype=np.int64)
    moves = np.empty((MAX_MOVES, MOVE_WIDTH), dtype=np.int64)
    for i in range(b):
        n = generate_moves(states[i], params, moves)
        counts[i] = mask_from_moves(moves, n, states[i, ST_TURN], params, prefixes[i],
                                    prefix_lens[i], out_masks[i])
    return counts


@njit(cache=True)
def apply_step(state: np.ndarray, params: np.ndarray, prefix: np.ndarray, prefix_len: int,
               action: int, out_state: np.ndarray) -> int:
    """Play one step action at ``(state, prefix[:prefix_len])``.

    Writes ``prefix[prefix_len] = action``. If the step completes a legal move, that move is
    applied (``apply_move_into``) and ``out_state`` holds the position after it; otherwise
    ``out_state`` is a copy of ``state`` (the same player keeps moving).

    Args:
        state: ``int64[STATE_SIZE]``.
        params: ``int64[PARAMS_SIZE]``.
        prefix: ``int64[>= prefix_len + 1]``, written at ``prefix_len``.
        prefix_len: steps already played in this move.
        action: the step action index.
        out_state: ``int64[STATE_SIZE]``, overwritten.

    Returns:
        The new prefix length: 0 after a completed move, ``prefix_len + 1`` while the move
        goes on, -1 if the step is illegal (``out_state`` is then a copy of ``state``).
    """
    moves = np.empty((MAX_MOVES, MOVE_WIDTH), dtype=np.int64)
    n = generate_moves(state, params, moves)
    prefix[prefix_len] = action
    k = step_outcome(moves, n, state[ST_TURN], params, prefix, prefix_len + 1)
    if k >= 0:
        apply_move_into(state, params, moves[k], out_state)
        return 0
    out_state[:] = state
    if k == IN_PROGRESS:
        return prefix_len + 1
    return -1
