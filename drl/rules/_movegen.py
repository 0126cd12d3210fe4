"""Compiled move generation: captures (depth-first search) and quiet moves.

Private to ``drl.rules.core``; the public kernels there wrap these. All functions are
``@njit(cache=True)`` and work on the ``int64`` state / params / move layouts of
``docs/internals.md``.

Capture rules implemented here (sources: seed 003/004 for English, seed 002 for Russian,
FMJD rules for international):

- capturing is compulsory and a capture sequence must be completed;
- Turkish strike: captured pieces stay on the board until the move ends, so they block
  further jumps, and no piece is jumped twice;
- short pieces jump an adjacent piece onto the square right behind it; flying kings
  jump a piece at any distance and may land on any empty square beyond it, except that
  when some of those landing squares allow a further capture the king must land on one
  of them (case 003);
- men capture forwards only unless ``men_capture_backward``;
- a man reaching the crowning row mid-capture stops (English), continues as a man and is
  crowned only if the move ends there (Brazilian / international), or is crowned at once
  and continues as a king (Russian); with ``promotion=remove`` the man is taken off at
  the end of the move instead of being crowned (``continue_as_king`` then acts as
  ``stop``: the man is removed the moment it would be crowned);
- ``max_capture``: only sequences taking the largest number of pieces are legal;
- duplicate sequences (same start, end and set of captured pieces) are kept once.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from drl.rules._bits import lowest_square, popcount, step
from drl.rules.geometry import CROWN_MASK, FULL, MAX_STEPS, NEIGHBOR, RAY
from drl.rules.variant import (P_FLYING, P_MAX_CAPTURE, P_MEN_BACK, P_PROMO_MID,
                               P_PROMOTION, P_SIZE_IDX)

# State indices.
ST_BM, ST_BK, ST_WM, ST_WK = 0, 1, 2, 3
ST_TURN = 4

# Move columns and flags.
M_FROM, M_TO, M_CAPTURED, M_NSTEPS, M_FLAGS, M_PATH = 0, 1, 2, 3, 4, 5
MOVE_WIDTH = 32
MAX_MOVES = 512
MAX_PATH = MOVE_WIDTH - M_PATH
FLAG_CROWN = 1
FLAG_REMOVE = 2
FLAG_KING = 4

PROMO_STOP, PROMO_AS_MAN, PROMO_AS_KING = 0, 1, 2
PROMOTION_CROWN, PROMOTION_REMOVE = 0, 1

# Search context: a small int64 scratch array shared down the capture search.
C_COUNT = 0      # moves written so far
C_BEST = 1       # most pieces captured by a written move (max-capture rule)
C_FLYING = 2
C_MEN_DIRS = 3   # direction bit mask of men's captures
C_CROWN = 4      # crowning row bitboard of the mover
C_PROMO_MID = 5
C_PROMOTION = 6
C_MAX_CAPTURE = 7
C_FROM = 8
C_START_KING = 9
C_PATH = 10
C_STACK = C_PATH + MAX_PATH
STACK_WIDTH = 5  # square, king, crowned, captured, nsteps
STACK_DEPTH = 1024
CTX_SIZE = C_STACK + STACK_WIDTH * STACK_DEPTH

# RAY padded with one more -1 column so that a walk can read one square past the edge.
_RAYX = np.full(RAY.shape[:3] + (MAX_STEPS + 1,), -1, dtype=np.int64)
_RAYX[..., :MAX_STEPS] = RAY
_RAYX.setflags(write=False)


@njit(cache=True, inline="always")
def _mover(state, z):
    """(men, kings, opponent pieces, crowning row, men's forward direction mask)."""
    if state[ST_TURN] == 0:
        return (state[ST_BM], state[ST_BK], state[ST_WM] | state[ST_WK],
                CROWN_MASK[z, 0], 0b1100)
    return state[ST_WM], state[ST_WK], state[ST_BM] | state[ST_BK], CROWN_MASK[z, 1], 0b0011


@njit(cache=True)
def _piece_has_capture(z, sq, flying, dirs, captured, occ, opp):
    """Whether a piece on ``sq`` can jump in one of the directions of bit mask ``dirs``.

    ``occ``: occupied squares (captured pieces included, the mover's start excluded);
    ``opp``: opponent pieces; ``captured``: pieces already jumped in this move.
    """
    for d in range(4):
        if not (dirs >> d) & 1:
            continue
        if flying:
            k = 0
            t = _RAYX[z, sq, d, 0]
            while t >= 0 and not (occ >> t) & 1:
                k += 1
                t = _RAYX[z, sq, d, k]
            if t < 0 or not (opp >> t) & 1 or (captured >> t) & 1:
                continue
            land = _RAYX[z, sq, d, k + 1]
        else:
            t = NEIGHBOR[z, sq, d]
            if t < 0 or not (opp >> t) & 1 or (captured >> t) & 1:
                continue
            land = NEIGHBOR[z, t, d]
        if land >= 0 and not (occ >> land) & 1:
            return True
    return False


@njit(cache=True)
def _emit(end, king, crowned, captured, nsteps, out, ctx):
    """Write a finished capture (path in ``ctx``), applying max-capture and dedup."""
    if ctx[C_MAX_CAPTURE]:
        if nsteps < ctx[C_BEST]:
            return
        if nsteps > ctx[C_BEST]:
            ctx[C_BEST] = nsteps
            ctx[C_COUNT] = 0
    k = ctx[C_COUNT]
    start = ctx[C_FROM]
    if nsteps >= 2:
        for i in range(k):
            if out[i, M_CAPTURED] == captured and out[i, M_TO] == end and out[i, M_FROM] == start:
                return
    if k >= out.shape[0]:
        raise ValueError("more legal moves than the move buffer holds (MAX_MOVES)")
    flags = FLAG_KING if ctx[C_START_KING] else 0
    if crowned != 0 or (king == 0 and (ctx[C_CROWN] >> end) & 1):
        flags |= FLAG_REMOVE if ctx[C_PROMOTION] == PROMOTION_REMOVE else FLAG_CROWN
    row = out[k]
    row[M_FROM] = start
    row[M_TO] = end
    row[M_CAPTURED] = captured
    row[M_NSTEPS] = nsteps
    row[M_FLAGS] = flags
    for i in range(nsteps):
        row[M_PATH + i] = ctx[C_PATH + i]
    ctx[C_COUNT] = k + 1


@njit(cache=True, inline="always")
def _push(ctx, top, sq, king, crowned, captured, nsteps):
    if top >= STACK_DEPTH:
        raise ValueError("capture search stack overflow")
    base = C_STACK + STACK_WIDTH * top
    ctx[base] = sq
    ctx[base + 1] = king
    ctx[base + 2] = crowned
    ctx[base + 3] = captured
    ctx[base + 4] = nsteps
    return top + 1


@njit(cache=True)
def _search(z, start, king0, opp, occ, out, ctx):
    """Depth-first search of the capture sequences of the piece on ``start``.

    An explicit stack of nodes (square, moves as king, crowned during this move, captured
    set, jumps made) replaces recursion; ``ctx[C_PATH + i]`` holds the landing square of
    jump i of the node being expanded (ancestors' entries stay valid in depth-first
    order). Finished sequences are written to ``out`` by :func:`_emit`.
    """
    top = _push(ctx, 0, start, king0, 0, 0, 0)
    while top > 0:
        top -= 1
        base = C_STACK + STACK_WIDTH * top
        sq = ctx[base]
        king = ctx[base + 1]
        crowned = ctx[base + 2]
        captured = ctx[base + 3]
        nsteps = ctx[base + 4]
        if nsteps > 0:
            ctx[C_PATH + nsteps - 1] = sq
        if nsteps >= MAX_PATH:
            raise ValueError("capture sequence longer than the move row holds")
        flying = king != 0 and ctx[C_FLYING] != 0
        dirs = 0b1111 if king != 0 else ctx[C_MEN_DIRS]
        found = False
        first_child = top
        for d in range(4):
            if not (dirs >> d) & 1:
                continue
            if flying:
                k = 0
                t = _RAYX[z, sq, d, 0]
                while t >= 0 and not (occ >> t) & 1:
                    k += 1
                    t = _RAYX[z, sq, d, k]
                if t < 0 or not (opp >> t) & 1 or (captured >> t) & 1:
                    continue
                first = k + 1
                land = _RAYX[z, sq, d, first]
                if land < 0 or (occ >> land) & 1:
                    continue
                found = True
                newcap = captured | (1 << t)
                # Landing squares from which the capture goes on, if any, are compulsory.
                can_continue = False
                j = first
                while land >= 0 and not (occ >> land) & 1:
                    if _piece_has_capture(z, land, True, 0b1111, newcap, occ, opp):
                        can_continue = True
                        break
                    j += 1
                    land = _RAYX[z, sq, d, j]
                j = first
                land = _RAYX[z, sq, d, j]
                while land >= 0 and not (occ >> land) & 1:
                    if not can_continue:
                        ctx[C_PATH + nsteps] = land
                        _emit(land, 1, crowned, newcap, nsteps + 1, out, ctx)
                    elif _piece_has_capture(z, land, True, 0b1111, newcap, occ, opp):
                        top = _push(ctx, top, land, 1, crowned, newcap, nsteps + 1)
                    j += 1
                    land = _RAYX[z, sq, d, j]
            else:
                t = NEIGHBOR[z, sq, d]
                if t < 0 or not (opp >> t) & 1 or (captured >> t) & 1:
                    continue
                land = NEIGHBOR[z, t, d]
                if land < 0 or (occ >> land) & 1:
                    continue
                found = True
                newcap = captured | (1 << t)
                if king == 0 and (ctx[C_CROWN] >> land) & 1:
                    promo = ctx[C_PROMO_MID]
                    if promo == PROMO_STOP or (promo == PROMO_AS_KING
                                               and ctx[C_PROMOTION] == PROMOTION_REMOVE):
                        ctx[C_PATH + nsteps] = land
                        _emit(land, 0, 0, newcap, nsteps + 1, out, ctx)
                        continue
                    if promo == PROMO_AS_KING:
                        top = _push(ctx, top, land, 1, 1, newcap, nsteps + 1)
                        continue
                top = _push(ctx, top, land, king, crowned, newcap, nsteps + 1)
        if not found and nsteps > 0:
            _emit(sq, king, crowned, captured, nsteps, out, ctx)
        # Expand the children in the order they were found.
        lo = first_child
        hi = top - 1
        while lo < hi:
            a = C_STACK + STACK_WIDTH * lo
            b = C_STACK + STACK_WIDTH * hi
            for i in range(STACK_WIDTH):
                tmp = ctx[a + i]
                ctx[a + i] = ctx[b + i]
                ctx[b + i] = tmp
            lo += 1
            hi -= 1


@njit(cache=True)
def capture_candidates(state, params):
    """Bitboard of the mover's pieces that have at least one capture (0 if none)."""
    z = params[P_SIZE_IDX]
    men, kings, opp, _crown, fwd = _mover(state, z)
    empty = FULL[z] & ~(men | kings | opp)
    men_dirs = 0b1111 if params[P_MEN_BACK] else fwd
    # A piece can jump in direction d when, seen from the landing square backwards,
    # there is an opponent and then the piece: two steps in the opposite direction.
    cand = 0
    for d in range(4):
        back = step(step(empty, z, 3 - d) & opp, z, 3 - d)
        if (men_dirs >> d) & 1:
            cand |= back & men
        cand |= back & kings
    if params[P_FLYING] and kings:
        occ = men | kings | opp
        rest = kings & ~cand
        while rest:
            s = lowest_square(rest)
            rest &= rest - 1
            if _piece_has_capture(z, s, True, 0b1111, 0, occ & ~(1 << s), opp):
                cand |= 1 << s
    return cand


@njit(cache=True)
def generate_captures(state, params, cand, out, ctx):
    """Fill ``out`` with the legal captures of the pieces in bitboard ``cand``; return k."""
    z = params[P_SIZE_IDX]
    men, kings, opp, crown, fwd = _mover(state, z)
    occ_all = men | kings | opp
    ctx[C_COUNT] = 0
    ctx[C_BEST] = 0
    ctx[C_FLYING] = params[P_FLYING]
    ctx[C_MEN_DIRS] = 0b1111 if params[P_MEN_BACK] else fwd
    ctx[C_CROWN] = crown
    ctx[C_PROMO_MID] = params[P_PROMO_MID]
    ctx[C_PROMOTION] = params[P_PROMOTION]
    ctx[C_MAX_CAPTURE] = params[P_MAX_CAPTURE]
    while cand:
        s = lowest_square(cand)
        cand &= cand - 1
        is_king = (kings >> s) & 1
        ctx[C_FROM] = s
        ctx[C_START_KING] = is_king
        _search(z, s, is_king, opp, occ_all & ~(1 << s), out, ctx)
    return ctx[C_COUNT]


@njit(cache=True)
def generate_quiet(state, params, out):
    """Fill ``out`` with the non-capturing moves of the side to move; return k.

    Men step one square diagonally forward; short kings one square in any direction;
    flying kings any number of empty squares along a diagonal.
    """
    z = params[P_SIZE_IDX]
    men, kings, opp, crown, fwd = _mover(state, z)
    occ = men | kings | opp
    flying = params[P_FLYING] != 0
    promo_flag = FLAG_REMOVE if params[P_PROMOTION] == PROMOTION_REMOVE else FLAG_CROWN
    k = 0
    pieces = men | kings
    while pieces:
        s = lowest_square(pieces)
        pieces &= pieces - 1
        is_king = (kings >> s) & 1 != 0
        dirs = 0b1111 if is_king else fwd
        for d in range(4):
            if not (dirs >> d) & 1:
                continue
            j = 0
            t = _RAYX[z, s, d, 0]
            while t >= 0 and not (occ >> t) & 1:
                if k >= out.shape[0]:
                    raise ValueError("more legal moves than the move buffer holds (MAX_MOVES)")
                row = out[k]
                row[M_FROM] = s
                row[M_TO] = t
                row[M_CAPTURED] = 0
                row[M_NSTEPS] = 1
                if is_king:
                    row[M_FLAGS] = FLAG_KING
                else:
                    row[M_FLAGS] = promo_flag if (crown >> t) & 1 else 0
                row[M_PATH] = t
                k += 1
                if not (is_king and flying):
                    break
                j += 1
                t = _RAYX[z, s, d, j]
    return k


@njit(cache=True)
def count_quiet(state, params):
    """Number of non-capturing moves of the side to move (bitboard counting)."""
    z = params[P_SIZE_IDX]
    men, kings, opp, _crown, fwd = _mover(state, z)
    empty = FULL[z] & ~(men | kings | opp)
    total = 0
    for d in range(4):
        if (fwd >> d) & 1:
            total += popcount(step(men, z, d) & empty)
        if kings:
            reach = step(kings, z, d) & empty
            if params[P_FLYING]:
                while reach:
                    total += popcount(reach)
                    reach = step(reach, z, d) & empty
            else:
                total += popcount(reach)
    return total


@njit(cache=True)
def generate(state, params, out, ctx):
    """All legal moves into ``out`` (captures compulsory); returns their number."""
    cand = capture_candidates(state, params)
    if cand:
        return generate_captures(state, params, cand, out, ctx)
    return generate_quiet(state, params, out)


@njit(cache=True)
def count(state, params, out, ctx):
    """Number of legal moves; ``out`` is scratch space for captures (bulk counting)."""
    cand = capture_candidates(state, params)
    if cand:
        return generate_captures(state, params, cand, out, ctx)
    return count_quiet(state, params)
