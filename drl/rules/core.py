"""The compiled rules core: state layout, move generation, move application, outcome.

Every kernel is ``@njit(cache=True)`` and works on plain ``int64`` arrays:

- state ``int64[STATE_SIZE]`` (indices ``ST_*``),
- params ``int64[PARAMS_SIZE]`` (``Variant.params``, indices ``P_*``),
- moves ``int64[MAX_MOVES, MOVE_WIDTH]`` (columns ``M_*``; path entries past
  ``M_PATH + nsteps`` are 0 in rows from :func:`generate_moves`).

Layouts and meanings are fixed in ``docs/internals.md``. Rule sources are named on each
kernel; capture rules are listed in ``drl.rules._movegen``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from drl.rules import _movegen as mg
from drl.rules._bits import lowest_square, popcount
from drl.rules._movegen import (
    CTX_SIZE,
    FLAG_CROWN,
    FLAG_KING,
    FLAG_REMOVE,
    M_CAPTURED,
    M_FLAGS,
    M_FROM,
    M_NSTEPS,
    M_PATH,
    M_TO,
    MAX_MOVES,
    MOVE_WIDTH,
)
from drl.rules.geometry import FULL, ZOBRIST, ZOBRIST_SIDE
from drl.rules.variant import (
    P_ASYMMETRIC,
    P_BLOCKED_GIVER,
    P_BOARD_SIZE,
    P_ELIM_WINNER,
    P_ENDGAME_RULE,
    P_FIRST,
    P_NO_PROGRESS,
    P_NSQ,
    P_OBJ_BLACK,
    P_REPETITION,
    P_ROLE_SWAP,
    P_ROWS,
    P_SIZE_IDX,
    P_TAKER_BLOCKED,
    PARAMS_SIZE,
)

__all__ = [
    "STATE_SIZE",
    "ST_BM",
    "ST_BK",
    "ST_WM",
    "ST_WK",
    "ST_TURN",
    "ST_NOPROG",
    "ST_HASH",
    "ST_CAPTURED",
    "ST_ENDGAME",
    "ST_PLY",
    "PARAMS_SIZE",
    "MOVE_WIDTH",
    "MAX_MOVES",
    "M_FROM",
    "M_TO",
    "M_CAPTURED",
    "M_NSTEPS",
    "M_FLAGS",
    "M_PATH",
    "FLAG_CROWN",
    "FLAG_REMOVE",
    "FLAG_KING",
    "TAKE",
    "GIVE",
    "DRAW",
    "T_NO_PIECES",
    "T_BLOCKED",
    "T_GIVER_ELIMINATED",
    "T_THREEFOLD_REPETITION",
    "T_NO_PROGRESS",
    "T_ENDGAME_RULE",
    "initial_state",
    "make_state",
    "zobrist_hash",
    "generate_moves",
    "count_moves",
    "apply_move",
    "apply_move_into",
    "objective",
    "status",
    "endgame_kind",
    "endgame_plies",
    "ENDGAME_PLIES",
    "perft",
    "move_buffer",
    "check_state",
    "count_repetitions",
    "end_code",
    "code_winner",
    "code_termination",
    "code_value",
    "ONGOING",
]

STATE_SIZE = 12
ST_BM, ST_BK, ST_WM, ST_WK = 0, 1, 2, 3
ST_TURN = 4
ST_NOPROG = 5
ST_HASH = 6
ST_CAPTURED = 7
ST_ENDGAME = 8
ST_PLY = 9

TAKE, GIVE = 0, 1
DRAW = 2  # the "winner" of a drawn outcome in status()
ONGOING = -1  # the result code of a game that goes on

# Termination codes (drl.rules.Termination).
T_NO_PIECES = 1
T_BLOCKED = 2
T_GIVER_ELIMINATED = 3
T_THREEFOLD_REPETITION = 4
T_NO_PROGRESS = 5
T_ENDGAME_RULE = 6

# Endgame rules (``Variant.endgame_rule``, ``P_ENDGAME_RULE``): 0 none, 1 FMJD, 2 Russian.
ENDGAME_RULE_NONE = 0
ENDGAME_RULE_FMJD = 1
ENDGAME_RULE_RUSSIAN = 2

# Endgame kinds (``endgame_kind``): which material class the counter ``ST_ENDGAME`` runs
# for; ``ENDGAME_PLIES[kind]`` is the number of plies in that class that draws (a "move"
# of the rules is one move by each side: two plies). docs/rules.md has the sources.
# (not reformatted: a table whose comments stay aligned)
# fmt: off
ENDGAME_16_MOVE = 1       # FMJD: 3 pieces (>= 1 king) against a lone king, 16 moves
ENDGAME_5_MOVE = 2        # FMJD: 1-2 pieces (>= 1 king) against a lone king, 5 moves
ENDGAME_RU_KINGS = 3      # Russian: 3 or more kings (no men) against a lone king, 15 moves
ENDGAME_RU_MAIN_ROAD = 4  # Russian: 3 pieces (>= 1 king) against a lone king on the main
                          # road (the long diagonal), 5 moves
ENDGAME_RU_TWO = 5        # Russian: 2 pieces (>= 1 king) against a lone king, 5 moves
ENDGAME_RU_4_5 = 6        # Russian: kings on both sides, 4-5 pieces on the board, 30 moves
ENDGAME_RU_6_7 = 7        # Russian: kings on both sides, 6-7 pieces on the board, 60 moves
# fmt: on
ENDGAME_PLIES = np.array([0, 32, 10, 30, 10, 10, 60, 120], dtype=np.int64)


def _main_road_masks() -> np.ndarray:
    """Bitboard of the main road (the long dark diagonal) per board size index.

    The main road is the diagonal whose dark squares number ``board_size`` (a1-h8 on 8x8).
    """
    from drl.rules.geometry import COL, ROW

    masks = np.zeros(2, dtype=np.int64)
    for z, n in ((0, 8), (1, 10)):
        for s in range(n * n // 2):
            if ROW[z, s] + COL[z, s] == n - 1:
                masks[z] |= np.int64(1) << np.int64(s)
    return masks


MAIN_ROAD = _main_road_masks()


def check_state(state: np.ndarray, params: np.ndarray) -> None:
    """Check a state array from outside the package before kernels index with it.

    Plain Python, for entry points that accept raw states; the kernels trust their input.

    Raises:
        ValueError: wrong shapes, a side to move other than 0/1, a bitboard with bits off
            the board (or negative), a square held by two piece kinds, or negative
            counters; the message says which.
    """
    state = np.asarray(state)
    params = np.asarray(params)
    if state.shape != (STATE_SIZE,) or params.shape != (PARAMS_SIZE,):
        raise ValueError(
            f"a state is int64[{STATE_SIZE}] and params int64[{PARAMS_SIZE}], "
            f"got shapes {state.shape} and {params.shape}"
        )
    if int(params[P_SIZE_IDX]) not in (0, 1):
        raise ValueError(f"params[P_SIZE_IDX] must be 0 or 1, got {params[P_SIZE_IDX]}")
    if int(state[ST_TURN]) not in (0, 1):
        raise ValueError(f"state[ST_TURN] must be 0 (black) or 1 (white), got {state[ST_TURN]}")
    full = int(FULL[int(params[P_SIZE_IDX])])
    seen = 0
    for i, name in (
        (ST_BM, "black men"),
        (ST_BK, "black kings"),
        (ST_WM, "white men"),
        (ST_WK, "white kings"),
    ):
        bits = int(state[i])
        if bits < 0 or bits & ~full:
            raise ValueError(f"state[{i}] ({name}) has bits off the board: {bits:#x}")
        if bits & seen:
            raise ValueError(f"state[{i}] ({name}) shares squares with another piece kind")
        seen |= bits
    for i in (ST_NOPROG, ST_CAPTURED, ST_ENDGAME, ST_PLY):
        if int(state[i]) < 0:
            raise ValueError(f"state[{i}] is a counter and must be >= 0, got {state[i]}")


def move_buffer() -> np.ndarray:
    """A zeroed move buffer, ``int64[MAX_MOVES, MOVE_WIDTH]``, for :func:`generate_moves`."""
    return np.zeros((MAX_MOVES, MOVE_WIDTH), dtype=np.int64)


@njit(cache=True, inline="always")
def _check(state, params):
    if state.shape[0] != STATE_SIZE:
        raise ValueError("a state must be int64[STATE_SIZE]")
    if params.shape[0] != PARAMS_SIZE:
        raise ValueError("params must be int64[PARAMS_SIZE] (Variant.params)")


@njit(cache=True)
def zobrist_hash(state, params):
    """Zobrist hash of the pieces and side to move, computed from scratch.

    Args:
        state: ``int64[STATE_SIZE]``.
        params: ``int64[PARAMS_SIZE]``.

    Returns:
        int64 hash; ``apply_move`` keeps ``state[ST_HASH]`` equal to it incrementally.
    """
    z = params[P_SIZE_IDX]
    h = 0
    for p in range(4):
        bb = state[p]
        while bb:
            s = lowest_square(bb)
            bb &= bb - 1
            h ^= ZOBRIST[z, p, s]
    if state[ST_TURN] == 1:
        h ^= ZOBRIST_SIDE
    return h


@njit(cache=True)
def make_state(black_men, black_kings, white_men, white_kings, turn, params):
    """A state from four bitboards and the side to move (counters 0, hash computed).

    Args:
        black_men: int64 bitboard of the black men (bit s = square s).
        black_kings: int64 bitboard of the black kings.
        white_men: int64 bitboard of the white men.
        white_kings: int64 bitboard of the white kings.
        turn: 0 black to move, 1 white.
        params: ``int64[PARAMS_SIZE]``.

    Returns:
        ``int64[STATE_SIZE]``. No validation: the FEN reader checks positions.
    """
    st = np.zeros(STATE_SIZE, dtype=np.int64)
    st[ST_BM] = black_men
    st[ST_BK] = black_kings
    st[ST_WM] = white_men
    st[ST_WK] = white_kings
    st[ST_TURN] = turn
    st[ST_HASH] = zobrist_hash(st, params)
    return st


@njit(cache=True)
def initial_state(params):
    """The start position: ``rows_of_men`` rows of men each, ``first_player`` to move.

    Black (dark) men fill squares 1.. from the top, white men the last squares
    (``docs/rules.md``, "Board and start position"; FMJD art. 2 for 10x10).

    Returns:
        ``int64[STATE_SIZE]``.
    """
    half = params[P_BOARD_SIZE] // 2
    nsq = params[P_NSQ]
    n_men = params[P_ROWS] * half
    black = (1 << n_men) - 1
    white = ((1 << nsq) - 1) ^ ((1 << (nsq - n_men)) - 1)
    return make_state(black, 0, white, 0, params[P_FIRST], params)


@njit(cache=True)
def generate_moves(state, params, out):
    """Fill ``out[:k]`` with the legal moves of the side to move and return ``k``.

    Captures are compulsory (``docs/rules.md``, "Capture rules common to all presets";
    FMJD art. 4); a multi-jump is one move holding its whole path; max-capture, Turkish
    strike, flying-king landing squares, promotion mid-capture and deduplication follow
    the variant (see ``_movegen``).

    Args:
        state: ``int64[STATE_SIZE]``.
        params: ``int64[PARAMS_SIZE]``.
        out: ``int64[MAX_MOVES, MOVE_WIDTH]`` (C-contiguous), written in place.

    Returns:
        The number of legal moves k (0 when the side to move is blocked or has no pieces).

    Raises:
        ValueError: on arrays of the wrong shape, or if the moves do not fit in ``out``.
    """
    _check(state, params)
    if out.ndim != 2 or out.shape[1] != MOVE_WIDTH:
        raise ValueError("the move buffer must be int64[n, MOVE_WIDTH]")
    ctx = np.empty(mg.CTX_SIZE, dtype=np.int64)
    return _generate_into(
        state.reshape((1, state.shape[0])),
        params,
        out.reshape((1, out.shape[0], out.shape[1])),
        ctx,
    )


@njit(mg._I(mg.RO2, mg.RO1, mg.RW3, mg.RW1), cache=True, _nrt=False)
def _generate_into(states, params, moves, ctx):
    k = mg.generate_at(states, 0, params, moves, 0, ctx)
    for i in range(k):
        for j in range(M_PATH + moves[0, i, M_NSTEPS], moves.shape[2]):
            moves[0, i, j] = 0
    return k


@njit(cache=True)
def count_moves(state, params):
    """Number of legal moves (what ``generate_moves`` would return), counted in bulk.

    Returns:
        int; quiet moves and single jumps are counted on bitboards without being generated.

    Raises:
        ValueError: on arrays of the wrong shape.
    """
    _check(state, params)
    ctx = np.empty(mg.CTX_SIZE, dtype=np.int64)
    moves = np.empty((1, MAX_MOVES, MOVE_WIDTH), dtype=np.int64)
    return _count(state.reshape((1, state.shape[0])), params, moves, ctx)


@njit(mg._I(mg.RO2, mg.RO1, mg.RW3, mg.RW1), cache=True, _nrt=False)
def _count(states, params, moves, ctx):
    return mg.count_at(states, 0, params, moves, 0, ctx)


@njit(cache=True, inline="always")
def _endgame_kind(rule, z, bm_bb, bk_bb, wm_bb, wk_bb):
    if rule == ENDGAME_RULE_NONE:
        return 0
    bm = popcount(bm_bb)
    bk = popcount(bk_bb)
    wm = popcount(wm_bb)
    wk = popcount(wk_bb)
    if rule == ENDGAME_RULE_FMJD:
        kind = 0
        for side in range(2):
            if side == 0:
                sm, sk, lm, lk = bm, bk, wm, wk
            else:
                sm, sk, lm, lk = wm, wk, bm, bk
            if lm != 0 or lk != 1 or sk < 1:
                continue
            total = sm + sk
            if total == 3:
                kind = ENDGAME_16_MOVE
            elif total <= 2:
                return ENDGAME_5_MOVE
        return kind
    # Russian: of the classes that describe the material, the one with the fewest plies.
    kind = 0
    total = bm + bk + wm + wk
    if bk >= 1 and wk >= 1:
        if 4 <= total <= 5:
            kind = ENDGAME_RU_4_5
        elif 6 <= total <= 7:
            kind = ENDGAME_RU_6_7
    for side in range(2):
        if side == 0:
            sm, sk, lm, lk, lone = bm, bk, wm, wk, wk_bb
        else:
            sm, sk, lm, lk, lone = wm, wk, bm, bk, bk_bb
        if lm != 0 or lk != 1 or sk < 1:
            continue
        if sm + sk == 2:
            return ENDGAME_RU_TWO
        if sm + sk == 3 and lone & MAIN_ROAD[z]:
            return ENDGAME_RU_MAIN_ROAD
        if sm == 0 and sk >= 3:
            kind = ENDGAME_RU_KINGS
    return kind


@njit(cache=True)
def endgame_kind(state, params):
    """Which endgame material class of the variant's ``endgame_rule`` the position is in.

    FMJD (international; docs/rules.md, FMJD art. 8): 1 (16-move rule: three kings, two
    kings and a man, or a king and two men against a lone king), 2 (5-move rule: two kings,
    a king and a man, or a king against a lone king). Russian (federation rules,
    docs/rules.md): 3 (three or more kings against a lone king), 4 (three pieces, at least
    one a king, against a lone king standing on the main road), 5 (two pieces, at least one
    a king, against a lone king), 6 / 7 (kings on both sides, 4-5 / 6-7 pieces on the
    board); where several describe the position, the one with the fewest plies. 0 otherwise
    and when the rule is off. ``ENDGAME_PLIES[kind]`` plies in the class draw.
    """
    return _endgame_kind(
        params[P_ENDGAME_RULE],
        params[P_SIZE_IDX],
        state[ST_BM],
        state[ST_BK],
        state[ST_WM],
        state[ST_WK],
    )


@njit(cache=True)
def endgame_plies(state, params):
    """Plies in the current endgame class that draw (``ENDGAME_PLIES[endgame_kind]``).

    0 when no endgame rule describes the position.
    """
    return ENDGAME_PLIES[endgame_kind(state, params)]


@njit(cache=True, inline="always")
def _lift(men, kings, bit):
    """Take the piece on ``bit`` off its side's bitboards: ``(is a man, men, kings)``."""
    if men & bit:
        return True, men ^ bit, kings
    return False, men, kings ^ bit


@njit(cache=True, inline="always")
def _hash_out(h, z, kind, bb):
    """``h`` with the pieces of ``kind`` on the squares of ``bb`` hashed out."""
    while bb:
        h ^= ZOBRIST[z, kind, lowest_square(bb)]
        bb &= bb - 1
    return h


@njit(cache=True, inline="always")
def _put(kind, bit, bb0, bb1, bb2, bb3):
    """The four bitboards with a piece of ``kind`` (0..3) added on ``bit``."""
    if kind == 0:
        return bb0 | bit, bb1, bb2, bb3
    if kind == 1:
        return bb0, bb1 | bit, bb2, bb3
    if kind == 2:
        return bb0, bb1, bb2 | bit, bb3
    return bb0, bb1, bb2, bb3 | bit


@njit(cache=True, inline="always")
def _apply_at(src, s, params, moves, lvl, i, dst, t):
    """Play ``moves[lvl, i]`` on ``src[s]`` and write the new state to ``dst[t]``.

    ``dst[t]`` may be ``src[s]``.
    """
    z = params[P_SIZE_IDX]
    side = src[s, ST_TURN]
    frm = moves[lvl, i, M_FROM]
    to = moves[lvl, i, M_TO]
    cap = moves[lvl, i, M_CAPTURED]
    flags = moves[lvl, i, M_FLAGS]
    h = src[s, ST_HASH] ^ ZOBRIST_SIDE
    bb0 = src[s, 0]
    bb1 = src[s, 1]
    bb2 = src[s, 2]
    bb3 = src[s, 3]
    noprog = src[s, ST_NOPROG]
    captured = src[s, ST_CAPTURED]
    endgame = src[s, ST_ENDGAME]
    ply = src[s, ST_PLY]
    from_bit = 1 << frm
    to_bit = 1 << to
    own_m = 2 * side
    own_k = own_m + 1
    if side == 0:
        is_man, bb0, bb1 = _lift(bb0, bb1, from_bit)
    else:
        is_man, bb2, bb3 = _lift(bb2, bb3, from_bit)
    kind = own_m if is_man else own_k
    h ^= ZOBRIST[z, kind, frm]
    if cap:
        opp_m = 2 - own_m
        h = _hash_out(h, z, opp_m, (bb2 if side == 0 else bb0) & cap)
        h = _hash_out(h, z, opp_m + 1, (bb3 if side == 0 else bb1) & cap)
        if side == 0:
            bb2 &= ~cap
            bb3 &= ~cap
        else:
            bb0 &= ~cap
            bb1 &= ~cap
    if not flags & FLAG_REMOVE:
        if flags & FLAG_CROWN:
            kind = own_k
        h ^= ZOBRIST[z, kind, to]
        bb0, bb1, bb2, bb3 = _put(kind, to_bit, bb0, bb1, bb2, bb3)
    # Endgame counter: plies played in the current endgame class. It restarts (0 in the
    # position reached) on a capture, a promotion, or a change of class; a man move
    # inside a class does not restart it. Under FMJD the class changes only by a capture
    # or a promotion; under the Russian rules also when the lone king steps on or off
    # the main road.
    rule = params[P_ENDGAME_RULE]
    endgame_next = 0
    if rule != ENDGAME_RULE_NONE and not (cap or (flags & (FLAG_CROWN | FLAG_REMOVE))):
        kind_after = _endgame_kind(rule, z, bb0, bb1, bb2, bb3)
        # (src[s] is read before dst[t], which may be the same row, is written.)
        if kind_after != 0 and (
            rule == ENDGAME_RULE_FMJD
            or kind_after == _endgame_kind(rule, z, src[s, 0], src[s, 1], src[s, 2], src[s, 3])
        ):
            endgame_next = endgame + 1
    dst[t, 0] = bb0
    dst[t, 1] = bb1
    dst[t, 2] = bb2
    dst[t, 3] = bb3
    dst[t, ST_TURN] = 1 - side
    dst[t, ST_NOPROG] = 0 if (cap or is_man) else noprog + 1
    dst[t, ST_HASH] = h
    dst[t, ST_CAPTURED] = captured + popcount(cap)
    dst[t, ST_ENDGAME] = endgame_next
    dst[t, ST_PLY] = ply + 1
    for j in range(ST_PLY + 1, STATE_SIZE):
        dst[t, j] = src[s, j]


@njit(cache=True)
def apply_move_into(state, params, move, out):
    """Play ``move`` (a row from ``generate_moves``) on ``state``, writing the result to ``out``.

    ``out`` may be ``state`` itself.

    Updates the bitboards (captured pieces come off at the end of the move, the piece is
    crowned or removed per the move flags), the side to move, ``ST_NOPROG`` (reset by a
    capture or a man move, else +1), ``ST_CAPTURED``, ``ST_PLY``, the Zobrist hash
    (incrementally) and, under an endgame rule, ``ST_ENDGAME`` (plies in the current
    endgame class of :func:`endgame_kind`, restarted by a capture, a promotion or a change
    of class). The move is not checked for legality.

    Args:
        state: ``int64[STATE_SIZE]``.
        params: ``int64[PARAMS_SIZE]``.
        move: ``int64[MOVE_WIDTH]``.
        out: ``int64[STATE_SIZE]``, written in place.

    Raises:
        ValueError: on arrays of the wrong shape.
    """
    _check(state, params)
    if out.shape[0] != STATE_SIZE or move.shape[0] != MOVE_WIDTH:
        raise ValueError("apply_move_into needs out int64[STATE_SIZE], move int64[MOVE_WIDTH]")
    src = state.reshape((1, state.shape[0]))
    dst = out.reshape((1, out.shape[0]))
    mv = move.reshape((1, 1, move.shape[0]))
    _apply_at(src, 0, params, mv, 0, 0, dst, 0)


@njit(cache=True)
def apply_move(state, params, move):
    """Like :func:`apply_move_into`, but checked and returning a new ``int64[STATE_SIZE]`` array.

    It first checks that the move's squares are on the board: it is the entry point for
    Python callers, while :func:`apply_move_into`, used inside searches, checks nothing.

    Raises:
        ValueError: on arrays of the wrong shape, a side to move other than 0/1, or a
            move row whose ``M_FROM``/``M_TO`` is not in ``0..NSQ-1`` or whose
            ``M_CAPTURED`` has bits off the board. A row that passes may still be
            illegal: legality is not checked.
    """
    _check(state, params)
    if move.shape[0] != MOVE_WIDTH:
        raise ValueError("apply_move needs move int64[MOVE_WIDTH]")
    nsq = params[P_NSQ]
    if state[ST_TURN] != 0 and state[ST_TURN] != 1:
        raise ValueError("apply_move: state[ST_TURN] must be 0 or 1")
    frm = move[M_FROM]
    to = move[M_TO]
    if (
        frm < 0
        or frm >= nsq
        or to < 0
        or to >= nsq
        or move[M_CAPTURED] < 0
        or (move[M_CAPTURED] >> nsq) != 0
    ):
        raise ValueError(
            "apply_move: the move row has a square off the board (M_FROM and "
            "M_TO must be in 0..NSQ-1, M_CAPTURED a bitboard of board squares)"
        )
    out = np.empty(STATE_SIZE, dtype=np.int64)
    apply_move_into(state, params, move, out)
    return out


@njit(cache=True)
def objective(state, params, color):
    """The objective of ``color`` (0 black, 1 white) now: 0 take, 1 give.

    With ``role_swap_after_captures = N`` the two colours' objectives swap each time
    another N pieces have been captured (Give and Take's "Switched Roles", as an in-game
    swap; ``docs/rules.md``, "Win, loss and draw").
    """
    n = params[P_ROLE_SWAP]
    if n > 0 and (state[ST_CAPTURED] // n) % 2 == 1:
        return params[P_OBJ_BLACK + 1 - color]
    return params[P_OBJ_BLACK + color]


@njit(cache=True)
def status(state, params, n_legal):
    """Outcome of the position, ignoring repetition (the Board keeps the history).

    Resolution (``docs/rules.md``, "Win, loss and draw"):

    1. Give and Take (one Taker, one Giver): the Giver has no pieces -> the Taker wins
       (``elimination_winner=giver``: the Giver wins). Termination GIVER_ELIMINATED when
       the Giver is to move (the Taker's capture took its last piece); NO_PIECES when the
       Taker is to move: the Giver's own move left it without pieces (its last man
       reached the far row under ``promotion=remove``), or a set-up position. Either way
       the Giver has no pieces left and ``elimination_winner`` decides (docs/rules.md).
    2. The side to move has no legal move: a taker loses (NO_PIECES or BLOCKED), except
       that a blocked Taker with pieces draws under ``taker_blocked=draw``; a giver wins,
       except that a blocked giver with pieces loses under ``blocked_giver=loses``.
    3. The side not to move has no pieces (only in set-up positions): it loses if it
       takes, wins if it gives (NO_PIECES).
    4. Draws: the endgame rule (ENDGAME_RULE): ``ST_ENDGAME`` has reached
       ``ENDGAME_PLIES`` of the position's :func:`endgame_kind` (FMJD 16-move / 5-move
       rules; the Russian 15 / 5 / 30 / 60-move rules); then ``no_progress_plies``
       reached (NO_PROGRESS). Where both apply at once the endgame rule, the more specific
       one, is reported.

    Args:
        state: ``int64[STATE_SIZE]``.
        params: ``int64[PARAMS_SIZE]``.
        n_legal: number of legal moves in the position.

    Returns:
        -1 while the game goes on, else ``termination * 4 + winner`` (winner 0 black,
        1 white, 2 draw).
    """
    side = state[ST_TURN]
    other = 1 - side
    count = (popcount(state[ST_BM] | state[ST_BK]), popcount(state[ST_WM] | state[ST_WK]))
    own = count[0] if side == 0 else count[1]
    opp = count[1] if side == 0 else count[0]
    if params[P_ASYMMETRIC]:
        giver = 0 if objective(state, params, 0) == GIVE else 1
        giver_pieces = count[0] if giver == 0 else count[1]
        if giver_pieces == 0:
            winner = 1 - giver if params[P_ELIM_WINNER] == 0 else giver
            term = T_GIVER_ELIMINATED if side == giver else T_NO_PIECES
            return term * 4 + winner
    if n_legal == 0:
        term = T_BLOCKED if own > 0 else T_NO_PIECES
        if objective(state, params, side) == TAKE:
            if own > 0 and params[P_ASYMMETRIC] and params[P_TAKER_BLOCKED] == 1:
                return term * 4 + DRAW
            return term * 4 + other
        if own > 0 and params[P_BLOCKED_GIVER] == 1:
            return term * 4 + other
        return term * 4 + side
    if opp == 0:
        winner = side if objective(state, params, other) == TAKE else other
        return T_NO_PIECES * 4 + winner
    if params[P_ENDGAME_RULE]:
        kind = endgame_kind(state, params)
        if kind != 0 and state[ST_ENDGAME] >= ENDGAME_PLIES[kind]:
            return T_ENDGAME_RULE * 4 + DRAW
    limit = params[P_NO_PROGRESS]
    if limit > 0 and state[ST_NOPROG] >= limit:
        return T_NO_PROGRESS * 4 + DRAW
    return -1


@njit(cache=True)
def count_repetitions(hist, state):
    """Earlier occurrences of ``state``'s position (pieces and side to move) in a game.

    The one history representation of drl: ``hist[p]`` is the Zobrist hash of the game's
    position at ply ``p`` (``ST_PLY``). Only positions since the last irreversible move
    (capture or man move) can repeat, so the entries read are ``hist[lo:ply]`` with
    ``lo = max(0, ply - state[ST_NOPROG])``; older entries may hold anything.

    Args:
        hist: ``int64[>= ply]`` position hashes by ply.
        state: ``int64[STATE_SIZE]``.

    Returns:
        The number of earlier occurrences (0 for a new position).
    """
    ply = state[ST_PLY]
    h = state[ST_HASH]
    lo = max(0, ply - state[ST_NOPROG])
    count = 0
    for i in range(lo, min(ply, hist.shape[0])):
        if hist[i] == h:
            count += 1
    return count


@njit(cache=True)
def end_code(state, params, n_legal, earlier):
    """The result code of a position: :func:`status`, then the repetition draw.

    This is the single definition of when a game is over; every consumer (``Board``,
    ``drl.game``, the searches) calls it. Repetition (``docs/rules.md`` "Win, loss and
    draw"; FMJD art. 6.1): drawn when the position occurs for the ``repetition_draw``-th
    time, i.e. ``earlier + 1 >= repetition_draw`` (0 = off).

    Args:
        state: ``int64[STATE_SIZE]``.
        params: ``int64[PARAMS_SIZE]``.
        n_legal: number of legal moves of the position.
        earlier: earlier occurrences of the position (:func:`count_repetitions`).

    Returns:
        ``ONGOING`` (-1), else ``termination * 4 + winner`` (winner 0 black, 1 white,
        2 draw); decode with :func:`code_winner` / :func:`code_termination` or
        ``drl.rules.Outcome.from_code``.
    """
    code = status(state, params, n_legal)
    if code < 0 and params[P_REPETITION] > 0 and earlier + 1 >= params[P_REPETITION]:
        code = T_THREEFOLD_REPETITION * 4 + DRAW
    return code


@njit(cache=True, inline="always")
def code_winner(code):
    """Winner of a result code: 0 black, 1 white, ``DRAW`` (2); -1 while the game goes on."""
    return code % 4 if code >= 0 else -1


@njit(cache=True, inline="always")
def code_termination(code):
    """``Termination`` value of a result code (0 while the game goes on)."""
    return code // 4 if code >= 0 else 0


@njit(cache=True, inline="always")
def code_value(code, player):
    """Value of a result code from ``player``'s view (0 black, 1 white).

    +1 win, -1 loss, 0 draw or game still going on.
    """
    if code < 0:
        return 0.0
    w = code % 4
    if w == DRAW:
        return 0.0
    return 1.0 if w == player else -1.0


@njit(mg._I(mg.RW2, mg.RO1, mg._I, mg.RW3, mg.RW1, mg.RW1, mg.RW1), cache=True, _nrt=False)
def _perft(states, params, depth, moves, ctx, n_moves, index):
    """Leaf count below ``states[0]``, ``depth >= 1`` plies.

    An explicit stack of move lists (``moves[ply]``) replaces recursion (recursive compiled
    functions do not reload reliably from numba's cache). The last ply is counted, not
    generated. Compiled without reference counting (see ``_movegen``).
    """
    if depth == 1:
        return mg.count_at(states, 0, params, moves, 0, ctx)
    n_moves[0] = mg.generate_at(states, 0, params, moves, 0, ctx)
    total = 0
    level = 0
    while level >= 0:
        i = index[level]
        if i >= n_moves[level]:
            level -= 1
            continue
        index[level] = i + 1
        _apply_at(states, level, params, moves, level, i, states, level + 1)
        if level + 1 == depth - 1:
            total += mg.count_inline(states, level + 1, params, moves, level + 1, ctx)
        else:
            level += 1
            n_moves[level] = mg.generate_at(states, level, params, moves, level, ctx)
            index[level] = 0
    return total


#: Deepest perft: its move lists take ``MAX_MOVES * MOVE_WIDTH * 8`` bytes (512 KiB) per
#: ply, allocated up front. The deepest published counts are far shallower (English
#: checkers to 28 plies, after years of computing), a tree that still branches 64 plies
#: down cannot be counted in any time, and one with at least two moves at every node
#: has more than 2**63 leaves there, past the int64 count.
MAX_PERFT_DEPTH = 64


@njit(cache=True)
def perft(state, params, depth):
    """Number of leaf nodes of the legal-move tree ``depth`` plies deep.

    A multi-jump counts as one move; duplicate captures count once; positions that are
    finished (no legal move) contribute 0; draw rules are ignored. The last ply is
    counted in bulk (quiet moves by popcount).

    Args:
        state: ``int64[STATE_SIZE]``.
        params: ``int64[PARAMS_SIZE]``.
        depth: plies, >= 0.

    Returns:
        int64 leaf count (1 for depth 0).

    Raises:
        ValueError: on arrays of the wrong shape, or a depth over ``MAX_PERFT_DEPTH``.
    """
    _check(state, params)
    if depth <= 0:
        return 1
    if depth > MAX_PERFT_DEPTH:
        raise ValueError("perft depth is over the limit MAX_PERFT_DEPTH (64)")
    states = np.empty((depth + 1, STATE_SIZE), dtype=np.int64)
    states[0] = state
    moves = np.empty((depth, MAX_MOVES, MOVE_WIDTH), dtype=np.int64)
    ctx = np.empty(CTX_SIZE, dtype=np.int64)
    n_moves = np.zeros(depth, dtype=np.int64)
    index = np.zeros(depth, dtype=np.int64)
    return _perft(states, params, depth, moves, ctx, n_moves, index)
