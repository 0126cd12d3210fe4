"""Observation planes ``float32[C, H, W]`` (H = W = board size), compiled.

The planes show the position from one player's chair, the *viewer* (by default the player
to move): the board is turned by 180 degrees when the viewer is Black, so the viewer's men
always move up (towards row 0), matching the mover-relative step actions of
:mod:`drl.encode.actions`. Piece planes are 1 on the dark square holding the piece, 0
elsewhere; the light squares are always 0. Constant planes hold one value everywhere.

During a move in progress (``prefix_len > 0`` steps played), the jumping piece is shown
on the square it has reached (and no longer on its start square), and the pieces it has
jumped stay on the board (they are removed only when the move ends, Turkish strike) and
are also marked in ``CH_CAPTURED``. Under ``promotion_mid_capture=continue_as_king`` a man
that has reached its crowning row during the move is shown as a king.

Channels (``N_CHANNELS = 22``):

==  ======================  =====================================================
 0  ``CH_OWN_MEN``           the viewer's men
 1  ``CH_OWN_KINGS``         the viewer's kings
 2  ``CH_OPP_MEN``           the opponent's men
 3  ``CH_OPP_KINGS``         the opponent's kings
 4  ``CH_CAPTURED``          pieces jumped so far in the move in progress
 5  ``CH_JUMPER``            square of the piece making the move in progress
 6  ``CH_OWN_GIVE``          1 if the viewer's objective is give (0 take)
 7  ``CH_OPP_GIVE``          1 if the opponent's objective is give
 8  ``CH_TO_MOVE``           1 if the viewer is the player to move
 9  ``CH_MEN_BACK``          rule flag: men capture backward
10  ``CH_FLYING``            rule flag: flying kings
11  ``CH_MAX_CAPTURE``       rule flag: maximum capture
12  ``CH_PROMO_AS_MAN``      promotion_mid_capture = continue_as_man
13  ``CH_PROMO_AS_KING``     promotion_mid_capture = continue_as_king
14  ``CH_PROMO_REMOVE``      promotion = remove (no kings)
15  ``CH_BLOCKED_GIVER``     blocked_giver = loses
16  ``CH_TAKER_BLOCKED``     taker_blocked = draw
17  ``CH_ELIM_GIVER``        elimination_winner = giver
18  ``CH_ROLE_SWAP``         captures made towards the next role swap / N (0 if off)
19  ``CH_NO_PROGRESS``       no-progress plies / the variant's limit (0 if none), <= 1
20  ``CH_REPETITION``        earlier occurrences of the position / (repetition_draw - 1), <= 1
21  ``CH_ENDGAME``           endgame-rule plies / the current class's limit (0 if none), <= 1
==  ======================  =====================================================
"""

from __future__ import annotations

import numpy as np
from numba import njit

from drl.encode.actions import BLACK, orient_square, step_squares
from drl.rules.core import (
    ST_BK,
    ST_BM,
    ST_CAPTURED,
    ST_ENDGAME,
    ST_NOPROG,
    ST_TURN,
    ST_WK,
    ST_WM,
    endgame_plies,
    objective,
)
from drl.rules.geometry import COL, RAY, ROW
from drl.rules.variant import (
    P_BLOCKED_GIVER,
    P_ELIM_WINNER,
    P_FLYING,
    P_MAX_CAPTURE,
    P_MEN_BACK,
    P_NO_PROGRESS,
    P_PROMO_MID,
    P_PROMOTION,
    P_REPETITION,
    P_ROLE_SWAP,
    P_TAKER_BLOCKED,
)

CH_OWN_MEN = 0
CH_OWN_KINGS = 1
CH_OPP_MEN = 2
CH_OPP_KINGS = 3
CH_CAPTURED = 4
CH_JUMPER = 5
CH_OWN_GIVE = 6
CH_OPP_GIVE = 7
CH_TO_MOVE = 8
CH_MEN_BACK = 9
CH_FLYING = 10
CH_MAX_CAPTURE = 11
CH_PROMO_AS_MAN = 12
CH_PROMO_AS_KING = 13
CH_PROMO_REMOVE = 14
CH_BLOCKED_GIVER = 15
CH_TAKER_BLOCKED = 16
CH_ELIM_GIVER = 17
CH_ROLE_SWAP = 18
CH_NO_PROGRESS = 19
CH_REPETITION = 20
CH_ENDGAME = 21
N_CHANNELS = 22

# (not reformatted: a table, kept packed)
# fmt: off
CHANNEL_NAMES = (
    "own_men", "own_kings", "opp_men", "opp_kings", "captured", "jumper", "own_give",
    "opp_give", "to_move", "men_back", "flying", "max_capture", "promo_as_man",
    "promo_as_king", "promo_remove", "blocked_giver_loses", "taker_blocked_draw",
    "elimination_giver", "role_swap", "no_progress", "repetition", "endgame",
)
# fmt: on


_P_SIZE_IDX = 0
_P_NSQ = 2


@njit(cache=True)
def _clip01(x: float) -> float:
    if x < 0.0:
        return 0.0
    if x > 1.0:
        return 1.0
    return x


N_PIECE_PLANES = 6
"""Channels ``0 .. 5`` show squares (pieces, captured, jumper); ``6 ..`` are constant."""
N_CONSTANTS = N_CHANNELS - N_PIECE_PLANES
"""Number of constant planes (16): rule flags, objectives and counters."""


@njit(cache=True)
def view_pieces(state, params, prefix, prefix_len, viewer):
    """The pieces as the planes show them, from ``viewer``'s chair (absolute squares).

    During a move in progress the jumping piece stands on the square it has reached (a
    king once it crossed its crowning row under ``continue_as_king``) and the pieces it
    jumped are still on the board (Turkish strike) and also in ``captured``.

    Args:
        state: ``int64[STATE_SIZE]`` game state.
        params: ``int64[PARAMS_SIZE]`` variant parameters.
        prefix: ``int64[>=prefix_len]`` step actions of the move in progress (mover's frame).
        prefix_len: number of steps already played in that move (0 = none).
        viewer: 0 black, 1 white (not checked).

    Returns:
        ``(own_men, own_kings, opp_men, opp_kings, captured, jumper)``: five bitboards
        (bit s = absolute square s) and the jumping piece's square (-1 outside a move).
    """
    z = params[_P_SIZE_IDX]
    turn = state[ST_TURN]
    own_men = state[ST_WM] if viewer == 1 else state[ST_BM]
    own_kings = state[ST_WK] if viewer == 1 else state[ST_BK]
    opp_men = state[ST_BM] if viewer == 1 else state[ST_WM]
    opp_kings = state[ST_BK] if viewer == 1 else state[ST_WK]

    captured = np.int64(0)
    jumper = -1
    if prefix_len > 0:
        mover_men = state[ST_WM] if turn == 1 else state[ST_BM]
        mover_kings = state[ST_WK] if turn == 1 else state[ST_BK]
        occupied = state[ST_BM] | state[ST_BK] | state[ST_WM] | state[ST_WK]
        start, _ = step_squares(prefix[0], turn, params)
        is_king = ((mover_kings >> start) & 1) == 1
        occupied &= ~(np.int64(1) << start)
        crown_row = params[1] - 1 if turn == BLACK else 0
        cur = start
        for j in range(prefix_len):
            a, b = step_squares(prefix[j], turn, params)
            if a < 0:
                break
            # The jumped piece is the occupied square between a and b on the diagonal.
            dr = ROW[z, b] - ROW[z, a]
            dc = COL[z, b] - COL[z, a]
            d = (2 if dr > 0 else 0) + (1 if dc > 0 else 0)
            dist = abs(dr)
            for k in range(dist - 1):
                sq = RAY[z, a, d, k]
                if ((occupied >> sq) & 1) == 1:
                    captured |= np.int64(1) << sq
                    break
            cur = b
            if ROW[z, b] == crown_row and params[P_PROMO_MID] == 2:
                is_king = True
        jumper = cur
        bit_start = np.int64(1) << start
        bit_cur = np.int64(1) << cur
        mover_men &= ~bit_start
        mover_kings &= ~bit_start
        if is_king:
            mover_kings |= bit_cur
        else:
            mover_men |= bit_cur
        if turn == viewer:
            own_men, own_kings = mover_men, mover_kings
        else:
            opp_men, opp_kings = mover_men, mover_kings
    return own_men, own_kings, opp_men, opp_kings, captured, jumper


@njit(cache=True)
def constant_values(state, params, repetitions, viewer, out, at):
    """Write the values of the constant planes ``6 .. 21`` into ``out[at : at + N_CONSTANTS]``.

    In channel order (``out`` float32 or float64): objectives, player to move, rule flags
    and the counters scaled to ``[0, 1]``. Allocates nothing.
    """
    turn = state[ST_TURN]
    out[at + 0] = float(objective(state, params, viewer))
    out[at + 1] = float(objective(state, params, 1 - viewer))
    out[at + 2] = 1.0 if viewer == turn else 0.0
    out[at + 3] = 1.0 if params[P_MEN_BACK] != 0 else 0.0
    out[at + 4] = 1.0 if params[P_FLYING] != 0 else 0.0
    out[at + 5] = 1.0 if params[P_MAX_CAPTURE] != 0 else 0.0
    out[at + 6] = 1.0 if params[P_PROMO_MID] == 1 else 0.0
    out[at + 7] = 1.0 if params[P_PROMO_MID] == 2 else 0.0
    out[at + 8] = 1.0 if params[P_PROMOTION] == 1 else 0.0
    out[at + 9] = 1.0 if params[P_BLOCKED_GIVER] == 1 else 0.0
    out[at + 10] = 1.0 if params[P_TAKER_BLOCKED] == 1 else 0.0
    out[at + 11] = 1.0 if params[P_ELIM_WINNER] == 1 else 0.0
    out[at + 12] = 0.0
    swap = params[P_ROLE_SWAP]
    if swap > 0:
        out[at + 12] = (state[ST_CAPTURED] % swap) / swap
    out[at + 13] = 0.0
    limit = params[P_NO_PROGRESS]
    if limit > 0:
        out[at + 13] = _clip01(state[ST_NOPROG] / limit)
    out[at + 14] = 0.0
    reps = params[P_REPETITION]
    if reps > 1:
        out[at + 14] = _clip01(repetitions / (reps - 1))
    # Like the no-progress plane: the share of the endgame rule's limit used so far, for
    # the material class the counter runs in (FMJD or Russian rules; 0 when none).
    out[at + 15] = 0.0
    endgame_limit = endgame_plies(state, params)
    if endgame_limit > 0:
        out[at + 15] = _clip01(state[ST_ENDGAME] / endgame_limit)


@njit(cache=True)
def encode_planes_as(
    state: np.ndarray,
    params: np.ndarray,
    prefix: np.ndarray,
    prefix_len: int,
    repetitions: int,
    viewer: int,
    out: np.ndarray,
) -> None:
    """Observation planes of ``(state, prefix)`` from ``viewer``'s chair.

    Args:
        state: ``int64[STATE_SIZE]`` game state.
        params: ``int64[PARAMS_SIZE]`` variant parameters.
        prefix: ``int64[>=prefix_len]`` step actions of the move in progress (mover's frame).
        prefix_len: number of steps already played in that move (0 = none).
        repetitions: earlier occurrences of this position with the same side to move
            (0 the first time it is seen).
        viewer: colour whose view is drawn (0 black, 1 white).
        out: ``float32[N_CHANNELS, n, n]``, overwritten.

    Raises:
        ValueError: ``viewer`` is not 0 or 1 (it indexes the parameter array).
    """
    if viewer != 0 and viewer != 1:
        raise ValueError("encode_planes_as: viewer must be 0 (black) or 1 (white)")
    z = params[_P_SIZE_IDX]
    nsq = params[_P_NSQ]
    out[:] = 0.0
    own_men, own_kings, opp_men, opp_kings, captured, jumper = view_pieces(
        state, params, prefix, prefix_len, viewer
    )
    for s in range(nsq):
        v = orient_square(s, viewer, nsq)
        r = ROW[z, v]
        c = COL[z, v]
        bit = np.int64(1) << s
        if own_men & bit:
            out[0, r, c] = 1.0
        elif own_kings & bit:
            out[1, r, c] = 1.0
        elif opp_men & bit:
            out[2, r, c] = 1.0
        elif opp_kings & bit:
            out[3, r, c] = 1.0
        if captured & bit:
            out[4, r, c] = 1.0
        if s == jumper:
            out[5, r, c] = 1.0
    values = np.empty(N_CONSTANTS, np.float64)
    constant_values(state, params, repetitions, viewer, values, 0)
    for k in range(N_CONSTANTS):
        out[N_PIECE_PLANES + k] = values[k]


@njit(cache=True)
def encode_planes(
    state: np.ndarray,
    params: np.ndarray,
    prefix: np.ndarray,
    prefix_len: int,
    repetitions: int,
    out: np.ndarray,
) -> None:
    """Observation planes from the view of the player to move.

    Args:
        state: ``int64[STATE_SIZE]``.
        params: ``int64[PARAMS_SIZE]``.
        prefix: ``int64[>=prefix_len]`` step actions of the move in progress.
        prefix_len: steps played in it (0 = none).
        repetitions: earlier occurrences of this position (0 the first time).
        out: ``float32[N_CHANNELS, n, n]``, overwritten.
    """
    encode_planes_as(state, params, prefix, prefix_len, repetitions, state[ST_TURN], out)


@njit(cache=True)
def encode_batch(
    states: np.ndarray,
    params: np.ndarray,
    prefixes: np.ndarray,
    prefix_lens: np.ndarray,
    repetitions: np.ndarray,
    out: np.ndarray,
) -> None:
    """Observation planes of many positions of one variant, each from its mover's view.

    Args:
        states: ``int64[B, STATE_SIZE]``.
        params: ``int64[PARAMS_SIZE]``.
        prefixes: ``int64[B, L]`` step actions of each move in progress.
        prefix_lens: ``int64[B]`` steps played in each (0 = none).
        repetitions: ``int64[B]`` earlier occurrences of each position.
        out: ``float32[B, N_CHANNELS, n, n]``, overwritten.
    """
    for i in range(states.shape[0]):
        encode_planes_as(
            states[i],
            params,
            prefixes[i],
            prefix_lens[i],
            repetitions[i],
            states[i, ST_TURN],
            out[i],
        )
