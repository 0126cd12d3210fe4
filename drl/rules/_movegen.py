"""Compiled move generation: captures (depth-first search) and quiet moves.

Private to ``drl.rules.core``; the public kernels there wrap these. Everything is
``@njit(cache=True)`` and works on the ``int64`` layouts of ``docs/internals.md``.

Speed notes: the hot functions take the position as scalar bitboards and write moves
into ``moves[level, k, column]`` of a 3-d buffer (one ``[MAX_MOVES, MOVE_WIDTH]`` slab per
ply of a search). Taking array views (``moves[level]``) inside the search loops costs a
reference-count update each, which dominated the run time, so the internals never do.
Small helpers are inlined at numba IR level (``inline="always"``); only the capture
search, which is rarely needed, stays a real call. Functions on the search path are
compiled without numba's reference counting (``_nrt=False``: they never allocate), since
a call that passes arrays otherwise makes the caller pay reference-count updates on
every entry, even when the call is not taken.

Capture rules implemented here (``docs/rules.md``, "Capture rules common to all
presets"; sources there: the English rules and capture-rules document, the Russian
rules, the FMJD rules for international):

- capturing is compulsory and a capture sequence must be completed;
- Turkish strike: captured pieces stay on the board until the move ends, so they block
  further jumps, and no piece is jumped twice;
- short pieces jump an adjacent piece onto the square right behind it; flying kings
  jump a piece at any distance and may land on any empty square beyond it, except that
  when some of those landing squares allow a further capture the king must land on one
  of them (rule case 003 of ``tests/golden/cases/``);
- men capture forwards only unless ``men_capture_backward``;
- a man reaching the crowning row mid-capture stops (English), continues as a man and is
  crowned only if the move ends there (Brazilian / international), or is crowned at once
  and continues as a king (Russian); with ``promotion=remove`` the man is taken off at
  the end of the move instead of being crowned (``continue_as_king`` then acts as
  ``stop``: the man is removed the moment it would be crowned);
- ``max_capture``: only sequences taking the largest number of pieces are legal;
- duplicate sequences (same start, end and set of captured pieces) are kept once: the
  path that comes first in the mover's frame (squares ascending for White, descending for
  Black, whose board the encoder sees turned).
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from drl.rules._bits import lowest_square, popcount, step
from drl.rules.geometry import CROWN_MASK, FULL, MAX_STEPS, NEIGHBOR, RAY
from drl.rules.variant import (
    P_FLYING,
    P_MAX_CAPTURE,
    P_MEN_BACK,
    P_PROMO_MID,
    P_PROMOTION,
    P_SIZE_IDX,
)

# State indices (mirrored in core).
ST_BM, ST_BK, ST_WM, ST_WK = 0, 1, 2, 3
ST_TURN = 4

# Move columns and flags.
M_FROM, M_TO, M_CAPTURED, M_NSTEPS, M_FLAGS, M_PATH = 0, 1, 2, 3, 4, 5
MOVE_WIDTH = 32
MAX_MOVES = 2048
MAX_PATH = MOVE_WIDTH - M_PATH
FLAG_CROWN = 1
FLAG_REMOVE = 2
FLAG_KING = 4

PROMO_STOP, PROMO_AS_MAN, PROMO_AS_KING = 0, 1, 2
PROMOTION_CROWN, PROMOTION_REMOVE = 0, 1

# Search context: a small int64 scratch array shared down the capture search.
# (not reformatted: a table whose comments stay aligned)
# fmt: off
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
C_SIDE = 10      # colour to move (0 black, 1 white): orders duplicate paths
C_JUMPERS = 11   # 8 bitboards: pieces with a single jump, per direction (men, short kings)
# fmt: on
C_PATH = 19
C_STACK = C_PATH + MAX_PATH
STACK_WIDTH = 5  # square, king, crowned, captured, nsteps
STACK_DEPTH = 1024
CTX_SIZE = C_STACK + STACK_WIDTH * STACK_DEPTH

# Explicit signatures of the compiled-once internals: read-only views accept writable
# arrays, and integer arguments never specialise on literal values.
_I = types.int64
RO1 = types.Array(types.int64, 1, "C", readonly=True)
RO2 = types.Array(types.int64, 2, "C", readonly=True)
RW1 = types.Array(types.int64, 1, "C")
RW2 = types.Array(types.int64, 2, "C")
RW3 = types.Array(types.int64, 3, "C")
SIG_AT = _I(RO2, _I, RO1, RW3, _I, RW1)

# RAY padded with one more -1 column so that a walk can read one square past the edge.
_RAYX = np.full(RAY.shape[:3] + (MAX_STEPS + 1,), -1, dtype=np.int64)
_RAYX[..., :MAX_STEPS] = RAY
_RAYX.setflags(write=False)


@njit(cache=True, inline="always")
def mover(states, lvl, z):
    """Bitboards of the side to move in ``states[lvl]``.

    Returns (men, kings, opponent pieces, crowning row, men's forward direction mask).
    """
    if states[lvl, ST_TURN] == 0:
        return (
            states[lvl, ST_BM],
            states[lvl, ST_BK],
            states[lvl, ST_WM] | states[lvl, ST_WK],
            CROWN_MASK[z, 0],
            0b1100,
        )
    return (
        states[lvl, ST_WM],
        states[lvl, ST_WK],
        states[lvl, ST_BM] | states[lvl, ST_BK],
        CROWN_MASK[z, 1],
        0b0011,
    )


@njit(cache=True, inline="always")
def _first_occupied(z, sq, d, occ):
    """Index k along ray ``d`` from ``sq`` of the first occupied square.

    The square is ``_RAYX[z, sq, d, k]``; -1 when the ray runs off the board first.
    """
    k = 0
    t = _RAYX[z, sq, d, 0]
    while t >= 0 and not (occ >> t) & 1:
        k += 1
        t = _RAYX[z, sq, d, k]
    return k


@njit(cache=True, inline="always")
def _piece_has_capture(z, sq, flying, dirs, captured, occ, opp):
    """Whether a piece on ``sq`` can jump in one of the directions of bit mask ``dirs``.

    ``occ``: occupied squares (captured pieces included, the mover's start excluded);
    ``opp``: opponent pieces; ``captured``: pieces already jumped in this move.
    """
    for d in range(4):
        if not (dirs >> d) & 1:
            continue
        if flying:
            k = _first_occupied(z, sq, d, occ)
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


@njit(cache=True, inline="always")
def _path_first(nsteps, moves, lvl, i, ctx):
    """Whether the path in ``ctx`` comes before the path of ``moves[lvl, i]``.

    Both paths have the same length. The order is the mover's frame: ascending squares
    for White, descending for Black (whose board is seen turned, square s as NSQ - 1 - s).
    """
    for j in range(nsteps):
        a = ctx[C_PATH + j]
        b = moves[lvl, i, M_PATH + j]
        if a != b:
            return a < b if ctx[C_SIDE] == 1 else a > b
    return False


@njit(cache=True, inline="always")
def _emit(end, king, crowned, captured, nsteps, moves, lvl, ctx):
    """Write a finished capture (path in ``ctx``), applying max-capture and dedup.

    Of duplicate sequences (same start, end and captured set) the one kept is the path
    that comes first in the mover's frame (:func:`_path_first`), whatever order the
    search finds them in, so a position and its turned twin keep the same path.
    """
    if ctx[C_MAX_CAPTURE]:
        if nsteps < ctx[C_BEST]:
            return
        if nsteps > ctx[C_BEST]:
            ctx[C_BEST] = nsteps
            ctx[C_COUNT] = 0
    k = ctx[C_COUNT]
    start = ctx[C_FROM]
    flags = FLAG_KING if ctx[C_START_KING] else 0
    if crowned != 0 or (king == 0 and (ctx[C_CROWN] >> end) & 1):
        flags |= FLAG_REMOVE if ctx[C_PROMOTION] == PROMOTION_REMOVE else FLAG_CROWN
    if nsteps >= 2:
        for i in range(k):
            if (
                moves[lvl, i, M_CAPTURED] == captured
                and moves[lvl, i, M_TO] == end
                and moves[lvl, i, M_FROM] == start
            ):
                if _path_first(nsteps, moves, lvl, i, ctx):
                    moves[lvl, i, M_FLAGS] = flags
                    for j in range(nsteps):
                        moves[lvl, i, M_PATH + j] = ctx[C_PATH + j]
                return
    if k >= moves.shape[1]:
        raise ValueError("more legal moves than the move buffer holds (MAX_MOVES)")
    moves[lvl, k, M_FROM] = start
    moves[lvl, k, M_TO] = end
    moves[lvl, k, M_CAPTURED] = captured
    moves[lvl, k, M_NSTEPS] = nsteps
    moves[lvl, k, M_FLAGS] = flags
    for i in range(nsteps):
        moves[lvl, k, M_PATH + i] = ctx[C_PATH + i]
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


@njit(types.void(_I, _I, _I, _I, _I, RW3, _I, RW1), cache=True, _nrt=False)
# Its length: one loop over an explicit stack (recursion does not reload from numba's
# cache) holds every capture rule of every variant (men and kings, flying and short kings,
# backward captures, promotion during a capture, pieces removed at the end), each branch
# a few lines that read the node's state in place; the parts that stand alone (_push,
# _emit, _first_occupied) are already out of it, and what is left shares the node's locals.
def _search(z, start, king0, opp, occ, moves, lvl, ctx):  # noqa: C901, PLR0915
    """Depth-first search of the capture sequences of the piece on ``start``.

    An explicit stack of nodes (square, moves as king, crowned during this move, captured
    set, jumps made) replaces recursion (recursive compiled functions do not reload
    reliably from numba's cache); ``ctx[C_PATH + i]`` holds the landing square of jump i
    of the node being expanded (ancestors' entries stay valid in depth-first order).
    Finished sequences are written to ``moves[lvl]`` by :func:`_emit`.
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
                k = _first_occupied(z, sq, d, occ)
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
                        _emit(land, 1, crowned, newcap, nsteps + 1, moves, lvl, ctx)
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
                    if promo == PROMO_STOP or (
                        promo == PROMO_AS_KING and ctx[C_PROMOTION] == PROMOTION_REMOVE
                    ):
                        ctx[C_PATH + nsteps] = land
                        _emit(land, 0, 0, newcap, nsteps + 1, moves, lvl, ctx)
                        continue
                    if promo == PROMO_AS_KING:
                        if _piece_has_capture(
                            z, land, ctx[C_FLYING] != 0, 0b1111, newcap, occ, opp
                        ):
                            top = _push(ctx, top, land, 1, 1, newcap, nsteps + 1)
                        else:
                            ctx[C_PATH + nsteps] = land
                            _emit(land, 1, 1, newcap, nsteps + 1, moves, lvl, ctx)
                        continue
                # A jump that cannot go on is finished here rather than pushed.
                if _piece_has_capture(z, land, False, dirs, newcap, occ, opp):
                    top = _push(ctx, top, land, king, crowned, newcap, nsteps + 1)
                else:
                    ctx[C_PATH + nsteps] = land
                    _emit(land, king, crowned, newcap, nsteps + 1, moves, lvl, ctx)
        if not found and nsteps > 0:
            _emit(sq, king, crowned, captured, nsteps, moves, lvl, ctx)
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


@njit(_I(RO2, _I, RO1, _I, RW3, _I, RW1), cache=True, _nrt=False)
def generate_captures(states, slvl, params, cand, moves, lvl, ctx):
    """Write the legal captures of the pieces in bitboard ``cand`` to ``moves[lvl]``.

    The position is ``states[slvl]``. Returns their number; ``ctx[C_BEST]`` is left
    holding the most pieces any of them captures.
    """
    z = params[P_SIZE_IDX]
    men, kings, opp, crown, fwd = mover(states, slvl, z)
    occ_all = men | kings | opp
    ctx[C_COUNT] = 0
    ctx[C_BEST] = 0
    ctx[C_SIDE] = states[slvl, ST_TURN]
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
        _search(z, s, is_king, opp, occ_all & ~(1 << s), moves, lvl, ctx)
    return ctx[C_COUNT]


@njit(cache=True, inline="always")
def _short_jumps(men, kings, opp, crown, fwd, z, params, ctx):
    """Single jumps of the men and short kings, found on bitboards.

    Writes ``ctx[C_JUMPERS + d]`` (men) and ``ctx[C_JUMPERS + 4 + d]`` (short kings): the
    pieces that can jump in direction d (not written when the result is 0). Flying kings
    are left to the search.

    Returns:
        0 when these pieces have no capture; 1 when every such capture is a single jump
        that ends on its landing square (so they are exactly the legal captures of these
        pieces); 2 when some capture may go on, or a man would be crowned and continue as
        a king (the full search is needed).
    """
    empty = FULL[z] & ~(men | kings | opp)
    men_dirs = 0b1111 if params[P_MEN_BACK] else fwd
    short_kings = 0 if params[P_FLYING] else kings
    # j_d: squares from which a short jump in direction d is possible. The same tables
    # answer "can the piece go on from its landing square": the start square is still
    # marked occupied, which only hides the jump back over the piece just taken (not
    # allowed anyway), and no other next jump can land on the start square.
    j0 = step(step(empty, z, 3) & opp, z, 3)
    j1 = step(step(empty, z, 2) & opp, z, 2)
    j2 = step(step(empty, z, 1) & opp, z, 1)
    j3 = step(step(empty, z, 0) & opp, z, 0)
    king_cont = j0 | j1 | j2 | j3
    men_cont = (
        (j0 if men_dirs & 1 else 0)
        | (j1 if men_dirs & 2 else 0)
        | (j2 if men_dirs & 4 else 0)
        | (j3 if men_dirs & 8 else 0)
    )
    if (men & men_cont) | (short_kings & king_cont) == 0:
        return 0
    result = 1
    for d in range(4):
        jd = j0 if d == 0 else (j1 if d == 1 else (j2 if d == 2 else j3))
        mj = men & jd if (men_dirs >> d) & 1 else 0
        kj = short_kings & jd
        ctx[C_JUMPERS + d] = mj
        ctx[C_JUMPERS + 4 + d] = kj
        if mj:
            land = step(step(mj, z, d), z, d)
            if land & crown:
                promo = params[P_PROMO_MID]
                if promo == PROMO_AS_KING:
                    result = 2
                elif promo == PROMO_STOP:
                    land &= ~crown
            if land & men_cont:
                result = 2
        if kj and step(step(kj, z, d), z, d) & king_cont:
            result = 2
    return result


@njit(cache=True, inline="always")
def _flying_capturers(men, kings, opp, z, params):
    """Bitboard of the mover's flying kings that have a capture (0 if none)."""
    if not params[P_FLYING] or kings == 0:
        return 0
    occ = men | kings | opp
    cand = 0
    rest = kings
    while rest:
        s = lowest_square(rest)
        rest &= rest - 1
        if _piece_has_capture(z, s, True, 0b1111, 0, occ & ~(1 << s), opp):
            cand |= 1 << s
    return cand


@njit(cache=True, inline="always")
def _jumpers(ctx):
    return (
        ctx[C_JUMPERS]
        | ctx[C_JUMPERS + 1]
        | ctx[C_JUMPERS + 2]
        | ctx[C_JUMPERS + 3]
        | ctx[C_JUMPERS + 4]
        | ctx[C_JUMPERS + 5]
        | ctx[C_JUMPERS + 6]
        | ctx[C_JUMPERS + 7]
    )


@njit(_I(_I, _I, RO1, RW3, _I, _I, RW1), cache=True, _nrt=False)
def _write_short_jumps(crown, z, params, moves, lvl, k, ctx):
    """Append the single jumps found by :func:`_short_jumps` to ``moves[lvl, k:]``.

    Returns the new count.
    """
    promo_flag = FLAG_REMOVE if params[P_PROMOTION] == PROMOTION_REMOVE else FLAG_CROWN
    for i in range(8):
        bb = ctx[C_JUMPERS + i]
        d = i & 3
        while bb:
            s = lowest_square(bb)
            bb &= bb - 1
            t = NEIGHBOR[z, s, d]
            land = NEIGHBOR[z, t, d]
            if k >= moves.shape[1]:
                raise ValueError("more legal moves than the move buffer holds (MAX_MOVES)")
            moves[lvl, k, M_FROM] = s
            moves[lvl, k, M_TO] = land
            moves[lvl, k, M_CAPTURED] = 1 << t
            moves[lvl, k, M_NSTEPS] = 1
            if i >= 4:
                moves[lvl, k, M_FLAGS] = FLAG_KING
            else:
                moves[lvl, k, M_FLAGS] = promo_flag if (crown >> land) & 1 else 0
            moves[lvl, k, M_PATH] = land
            k += 1
    return k


@njit(cache=True, inline="always")
def _generate_quiet(men, kings, opp, crown, fwd, z, params, moves, lvl):
    """Write the non-capturing moves to ``moves[lvl]``; return their number.

    Men step one square diagonally forward; short kings one square in any direction;
    flying kings any number of empty squares along a diagonal.
    """
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
                if k >= moves.shape[1]:
                    raise ValueError("more legal moves than the move buffer holds (MAX_MOVES)")
                moves[lvl, k, M_FROM] = s
                moves[lvl, k, M_TO] = t
                moves[lvl, k, M_CAPTURED] = 0
                moves[lvl, k, M_NSTEPS] = 1
                if is_king:
                    moves[lvl, k, M_FLAGS] = FLAG_KING
                else:
                    moves[lvl, k, M_FLAGS] = promo_flag if (crown >> t) & 1 else 0
                moves[lvl, k, M_PATH] = t
                k += 1
                if not (is_king and flying):
                    break
                j += 1
                t = _RAYX[z, s, d, j]
    return k


@njit(cache=True, inline="always")
def _count_quiet(men, kings, opp, fwd, z, params):
    """Number of non-capturing moves (bitboard counting)."""
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


@njit(SIG_AT, cache=True, _nrt=False)
def generate_at(states, slvl, params, moves, lvl, ctx):
    """Write all legal moves of ``states[slvl]`` into ``moves[lvl]``; returns their number.

    Captures are compulsory.
    """
    z = params[P_SIZE_IDX]
    men, kings, opp, crown, fwd = mover(states, slvl, z)
    short = _short_jumps(men, kings, opp, crown, fwd, z, params, ctx)
    flyers = _flying_capturers(men, kings, opp, z, params)
    if short == 0 and flyers == 0:
        return _generate_quiet(men, kings, opp, crown, fwd, z, params, moves, lvl)
    if short == 2:
        return generate_captures(states, slvl, params, flyers | _jumpers(ctx), moves, lvl, ctx)
    k = 0
    if flyers:
        k = generate_captures(states, slvl, params, flyers, moves, lvl, ctx)
        if short == 0 or (params[P_MAX_CAPTURE] and ctx[C_BEST] > 1):
            return k
    return _write_short_jumps(crown, z, params, moves, lvl, k, ctx)


@njit(cache=True, inline="always")
def count_inline(states, slvl, params, moves, lvl, ctx):
    """:func:`count_at` inlined into its caller (perft's last ply)."""
    z = params[P_SIZE_IDX]
    men, kings, opp, crown, fwd = mover(states, slvl, z)
    short = _short_jumps(men, kings, opp, crown, fwd, z, params, ctx)
    flyers = _flying_capturers(men, kings, opp, z, params)
    if short == 0 and flyers == 0:
        return _count_quiet(men, kings, opp, fwd, z, params)
    if short == 2:
        return generate_captures(states, slvl, params, flyers | _jumpers(ctx), moves, lvl, ctx)
    n = 0
    if short == 1:
        for i in range(8):
            n += popcount(ctx[C_JUMPERS + i])
    if flyers:
        k = generate_captures(states, slvl, params, flyers, moves, lvl, ctx)
        if params[P_MAX_CAPTURE] and ctx[C_BEST] > 1:
            return k
        return k + n
    return n


@njit(SIG_AT, cache=True, _nrt=False)
def count_at(states, slvl, params, moves, lvl, ctx):
    """Number of legal moves of ``states[slvl]``.

    ``moves[lvl]`` is scratch space for captures. Quiet moves and single jumps are counted
    on bitboards.
    """
    return count_inline(states, slvl, params, moves, lvl, ctx)
