"""Compiled negamax alpha-beta search (the kernel behind ``alphabeta:...``).

- Negamax with principal-variation (null-window) search, on the ``int64`` state /
  params / move arrays of ``docs/internals.md``; one preallocated move buffer per ply.
- Terminal positions from the rules' one end-of-game rule ``end_code`` (every variant's
  win/loss rules, no-progress and endgame rules, and the variant's repetition draw counted
  over the game history and the path in the hash-by-ply representation of
  ``count_repetitions``), wins scored ``WIN - ply`` so that faster wins and slower losses
  are preferred.
- Cycles: below the root, a position that already occurred (on the path or in the game
  history, counted by the same ``count_repetitions``) is scored as a draw at once, the
  usual engine convention: the side that could repeat it once can repeat it again, so a
  cycle is worth a draw, and without it a shallow search walks into threefold
  repetitions instead of making progress. The game itself ends only by the variant's
  rule (``end_code``).
- Quiescence: at depth 0 the search goes on while the side to move must capture
  (captures are compulsory, so there is no "stand pat" in such positions).
- Transposition table keyed by the Zobrist hash ``ST_HASH``; bounds and the best move
  are stored; win scores are stored relative to the node.
- Move ordering: the TT move, then captures by pieces taken, crowning moves, then the
  history heuristic; at the root ties keep the order of a seeded shuffle.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from drl.agents._evaluate import evaluate
from drl.agents._kernels import CTX_SIZE, generate
from drl.encode.features import active_features
from drl.encode.sparse_net import SparseScratch, SparseWeights, hidden, make_scratch, value_of
from drl.rules._bits import popcount
from drl.rules.core import (
    DRAW,
    M_CAPTURED,
    M_FLAGS,
    M_FROM,
    M_TO,
    MAX_MOVES,
    MOVE_WIDTH,
    ST_HASH,
    ST_PLY,
    ST_TURN,
    STATE_SIZE,
    apply_move_into,
    code_winner,
    count_repetitions,
    end_code,
)
from drl.rules.variant import P_REPETITION

WIN = 1_000_000
MAX_PLY = 128
WIN_BOUND = WIN - MAX_PLY  # |score| above this is a forced win/loss
INF = 2 * WIN

# TT columns and bound flags.
TT_KEY, TT_DEPTH, TT_SCORE, TT_FLAG, TT_MOVE, TT_CAP = 0, 1, 2, 3, 4, 5
TT_WIDTH = 6
EXACT, LOWER, UPPER = 1, 2, 3

# Control array.
C_NODES, C_LIMIT, C_ABORT, C_BEST, C_SELDEPTH = 0, 1, 2, 3, 4
C_SIZE = 8


# Frame columns: the per-ply state of the iterative (stack-based) negamax. Numba's
# on-disk cache does not reload recursive functions reliably, so the search keeps its
# own stack instead of recursing.
F_DEPTH, F_ALPHA, F_BETA, F_ALPHA0, F_BEST, F_BEST_I, F_N, F_J, F_MODE, F_SLOT = range(10)
F_WIDTH = 10
MODE_FULL, MODE_NULL, MODE_RESEARCH = 0, 1, 2


class SearchBuffers:
    """Preallocated arrays for one searcher.

    Attributes:
        states: int64 [MAX_PLY + 1, STATE_SIZE], the position at each ply.
        moves: int64 [MAX_PLY, MAX_MOVES, MOVE_WIDTH], legal moves at each ply.
        order: int64 [MAX_PLY, MAX_MOVES], ordering scores.
        tt: int64 [2**tt_bits, TT_WIDTH], the transposition table.
        history: int64 [50 * 50], history-heuristic counters by (from, to).
        ctl: int64 [C_SIZE], node counter, node limit, abort flag, best root move index.
        frames: int64 [MAX_PLY, F_WIDTH], the search stack.
        ctx: int64 [CTX_SIZE], move-generator scratch space.
    """

    def __init__(self, tt_bits: int = 19) -> None:
        self.states = np.zeros((MAX_PLY + 1, STATE_SIZE), dtype=np.int64)
        self.moves = np.zeros((MAX_PLY, MAX_MOVES, MOVE_WIDTH), dtype=np.int64)
        self.order = np.zeros((MAX_PLY, MAX_MOVES), dtype=np.int64)
        self.tt = np.zeros((1 << tt_bits, TT_WIDTH), dtype=np.int64)
        self.history = np.zeros(2500, dtype=np.int64)
        self.ctl = np.zeros(C_SIZE, dtype=np.int64)
        self.frames = np.zeros((MAX_PLY, F_WIDTH), dtype=np.int64)
        self.ctx = np.zeros(CTX_SIZE, dtype=np.int64)

    def clear(self) -> None:
        """Forget the transposition table and history counters."""
        self.tt[:] = 0
        self.history[:] = 0


NET_SCALE = 10_000
"""A learned evaluation's value (``[-1, 1]``) times this is its score (an integer)."""


def _no_net() -> tuple[SparseWeights, SparseScratch]:
    z = np.zeros((0, 1), np.float32)
    one = np.zeros(1, np.float32)
    weights = SparseWeights(
        w1=z,
        b1=one,
        w2=np.zeros((1, 1), np.float32),
        b2=one,
        wv=one,
        bv=one,
        wp=np.zeros((1, 1), np.float32),
        bp=one,
    )
    return weights, make_scratch(weights)


NO_NET, NO_SCRATCH = _no_net()
"""The stand-in network of a search with the static evaluation (``w1`` has no rows)."""


@njit(cache=True, _nrt=False)
def _leaf_score(st, params, earlier, net, scratch):
    """The score of a quiet leaf for the side to move: the network's value times
    ``NET_SCALE`` when there is a network, else the static evaluation (centi-men)."""
    if net.w1.shape[0] == 0:
        return evaluate(st, params)
    n = active_features(st, params, st, 0, earlier, scratch.idx, scratch.val)
    hidden(net, scratch, n)
    v = value_of(net, scratch)
    if not np.isfinite(v):  # finite weights can still overflow
        raise FloatingPointError("value")
    return np.int64(NET_SCALE * v)


@njit(cache=True, _nrt=False)
def _terminal_score(code, turn, ply):
    winner = code_winner(code)
    if winner == DRAW:
        return 0
    return WIN - ply if winner == turn else -(WIN - ply)


@njit(cache=True, _nrt=False)
def _enter(
    ply,
    depth,
    alpha,
    beta,
    states,
    params,
    moves,
    order,
    path,
    tt,
    hist,
    root_rank,
    ctl,
    frames,
    ctx,
    net,
    scratch,
):
    """Open the node at ``ply``: returns ``(True, value)`` for a leaf (terminal, draw by
    repetition, quiet horizon, TT cut-off or abort), else sets up its frame and returns
    ``(False, 0)``."""
    ctl[C_NODES] += 1
    if ctl[C_NODES] > ctl[C_LIMIT]:
        ctl[C_ABORT] = 1
        return True, 0
    if ply > ctl[C_SELDEPTH]:
        ctl[C_SELDEPTH] = ply
    st = states[ply]
    h = st[ST_HASH]
    path[st[ST_PLY]] = h
    earlier = count_repetitions(path, st)
    if ply > 0 and earlier > 0 and params[P_REPETITION] > 0:
        return True, 0  # a cycle inside the search is scored as a draw (module docstring)
    mv = moves[ply]
    n = generate(states, ply, params, moves, ctx)
    code = end_code(st, params, n, earlier)
    if code >= 0:
        return True, _terminal_score(code, st[ST_TURN], ply)
    if ply >= MAX_PLY - 1:
        return True, _leaf_score(st, params, earlier, net, scratch)
    if depth <= 0:
        if mv[0, M_CAPTURED] == 0:
            return True, _leaf_score(st, params, earlier, net, scratch)
        depth = 0

    # Transposition table.
    slot = h & (tt.shape[0] - 1)
    tt_move = -1
    tt_cap = -1
    if tt[slot, TT_KEY] == h:
        tt_move = tt[slot, TT_MOVE]
        tt_cap = tt[slot, TT_CAP]
        if ply > 0 and tt[slot, TT_DEPTH] >= depth:
            s = tt[slot, TT_SCORE]
            if s > WIN_BOUND:
                s -= ply
            elif s < -WIN_BOUND:
                s += ply
            f = tt[slot, TT_FLAG]
            if f == EXACT or (f == LOWER and s >= beta) or (f == UPPER and s <= alpha):
                return True, s

    # Ordering scores.
    sc = order[ply]
    for i in range(n):
        if mv[i, M_FROM] * 64 + mv[i, M_TO] == tt_move and mv[i, M_CAPTURED] == tt_cap:
            sc[i] = 1 << 60
        elif ply == 0:
            sc[i] = -root_rank[i]
        else:
            v = hist[mv[i, M_FROM] * 50 + mv[i, M_TO]]
            if mv[i, M_CAPTURED]:
                v += (1 << 40) + popcount(mv[i, M_CAPTURED]) * (1 << 36)
            if mv[i, M_FLAGS] & 1:
                v += 1 << 35
            sc[i] = v

    fr = frames[ply]
    fr[F_DEPTH] = depth
    fr[F_ALPHA] = alpha
    fr[F_BETA] = beta
    fr[F_ALPHA0] = alpha
    fr[F_BEST] = -INF
    fr[F_BEST_I] = 0
    fr[F_N] = n
    fr[F_J] = 0
    fr[F_MODE] = MODE_FULL
    fr[F_SLOT] = slot
    return False, 0


@njit(cache=True, _nrt=False)
def _next_child(ply, states, params, moves, order, frames):
    """Bring the best remaining move of ``ply`` to position ``F_J`` and play it into
    ``states[ply + 1]``; returns the child's window ``(alpha, beta)``."""
    fr = frames[ply]
    mv = moves[ply]
    sc = order[ply]
    j = fr[F_J]
    n = fr[F_N]
    bi = j
    for i in range(j + 1, n):
        if sc[i] > sc[bi]:
            bi = i
    if bi != j:
        for c in range(MOVE_WIDTH):
            tmp = mv[j, c]
            mv[j, c] = mv[bi, c]
            mv[bi, c] = tmp
        tmp = sc[j]
        sc[j] = sc[bi]
        sc[bi] = tmp
    # Every move passes the turn (a multi-jump is one move), so negamax applies.
    apply_move_into(states[ply], params, mv[j], states[ply + 1])
    if j == 0:
        fr[F_MODE] = MODE_FULL
        return -fr[F_BETA], -fr[F_ALPHA]
    fr[F_MODE] = MODE_NULL
    return -fr[F_ALPHA] - 1, -fr[F_ALPHA]


@njit(cache=True, _nrt=False)
def _store(ply, h, tt, moves, frames):
    fr = frames[ply]
    best = fr[F_BEST]
    if best >= fr[F_BETA]:
        flag = LOWER
    elif best > fr[F_ALPHA0]:
        flag = EXACT
    else:
        flag = UPPER
    stored = best
    if stored > WIN_BOUND:
        stored += ply
    elif stored < -WIN_BOUND:
        stored -= ply
    slot = fr[F_SLOT]
    depth = fr[F_DEPTH]
    if tt[slot, TT_KEY] != h or tt[slot, TT_DEPTH] <= depth:
        bi = fr[F_BEST_I]
        tt[slot, TT_KEY] = h
        tt[slot, TT_DEPTH] = depth
        tt[slot, TT_SCORE] = stored
        tt[slot, TT_FLAG] = flag
        tt[slot, TT_MOVE] = moves[ply, bi, M_FROM] * 64 + moves[ply, bi, M_TO]
        tt[slot, TT_CAP] = moves[ply, bi, M_CAPTURED]


@njit(cache=True, _nrt=False)
def _negamax(
    depth, states, params, moves, order, path, tt, hist, root_rank, ctl, frames, ctx, net, scratch
):
    """Principal-variation negamax from ``states[0]`` with an explicit stack."""
    leaf, v = _enter(
        0,
        depth,
        -INF,
        INF,
        states,
        params,
        moves,
        order,
        path,
        tt,
        hist,
        root_rank,
        ctl,
        frames,
        ctx,
        net,
        scratch,
    )
    if leaf:
        return v
    ply = 0
    have_value = False
    while True:
        if ctl[C_ABORT]:
            return 0
        fr = frames[ply]
        if have_value:
            have_value = False
            s = -v
            if fr[F_MODE] == MODE_NULL and fr[F_ALPHA] < s < fr[F_BETA]:
                fr[F_MODE] = MODE_RESEARCH
                cd = fr[F_DEPTH] - 1 if fr[F_DEPTH] > 0 else 0
                leaf, v = _enter(
                    ply + 1,
                    cd,
                    -fr[F_BETA],
                    -fr[F_ALPHA],
                    states,
                    params,
                    moves,
                    order,
                    path,
                    tt,
                    hist,
                    root_rank,
                    ctl,
                    frames,
                    ctx,
                    net,
                    scratch,
                )
                if leaf:
                    have_value = True
                else:
                    ply += 1
                continue
            j = fr[F_J]
            cutoff = False
            if s > fr[F_BEST]:
                fr[F_BEST] = s
                fr[F_BEST_I] = j
                if ply == 0:
                    ctl[C_BEST] = j
                if s > fr[F_ALPHA]:
                    fr[F_ALPHA] = s
                    if s >= fr[F_BETA]:
                        cutoff = True
                        if moves[ply, j, M_CAPTURED] == 0:
                            key = moves[ply, j, M_FROM] * 50 + moves[ply, j, M_TO]
                            hist[key] += fr[F_DEPTH] * fr[F_DEPTH]
            if cutoff or j + 1 >= fr[F_N]:
                _store(ply, states[ply, ST_HASH], tt, moves, frames)
                v = fr[F_BEST]
                if ply == 0:
                    return v
                ply -= 1
                have_value = True
                continue
            fr[F_J] = j + 1
        a, b = _next_child(ply, states, params, moves, order, frames)
        cd = fr[F_DEPTH] - 1 if fr[F_DEPTH] > 0 else 0
        leaf, v = _enter(
            ply + 1,
            cd,
            a,
            b,
            states,
            params,
            moves,
            order,
            path,
            tt,
            hist,
            root_rank,
            ctl,
            frames,
            ctx,
            net,
            scratch,
        )
        if leaf:
            have_value = True
        else:
            ply += 1


@njit(cache=True, _nrt=False)
def search_root(
    state,
    params,
    depth,
    states,
    moves,
    order,
    path,
    tt,
    hist,
    root_rank,
    ctl,
    frames,
    ctx,
    net,
    scratch,
):
    """Search ``state`` to ``depth`` plies (plus forced captures).

    Args:
        state: int64 [STATE_SIZE], the root position.
        params: int64 [PARAMS_SIZE].
        depth: nominal depth in plies (>= 1).
        states, moves, order, tt, hist, frames, ctx: the :class:`SearchBuffers` arrays.
        path: int64 [root ply + MAX_PLY + 1], the game's hash-by-ply history
            (``Board.history``); the search writes its path at the plies after the root.
        root_rank: int64 [MAX_MOVES], tie-break rank of each root move in kernel order
            (lower ranks are searched first, so they win ties).
        net, scratch: the learned evaluation (:class:`~drl.encode.sparse_net.SparseWeights`
            and its :class:`~drl.encode.sparse_net.SparseScratch`), used at the leaves
            when ``net.w1`` has rows; :data:`NO_NET` for the static evaluation.
        ctl: int64 [C_SIZE]; ``ctl[C_LIMIT]`` is the node budget. On return
            ``ctl[C_NODES]`` counts the nodes, ``ctl[C_ABORT]`` is 1 if the budget ran
            out, ``ctl[C_BEST]`` is the row of the best move in ``moves[0]`` (the root
            moves are reordered in place).

    Returns:
        The score of the root for the side to move (centi-men, or ``NET_SCALE`` times
        the network's value; ``±(WIN - plies)`` for a forced win/loss).
    """
    for i in range(STATE_SIZE):
        states[0, i] = state[i]
    ctl[C_ABORT] = 0
    ctl[C_BEST] = 0
    ctl[C_SELDEPTH] = 0
    return _negamax(
        depth,
        states,
        params,
        moves,
        order,
        path,
        tt,
        hist,
        root_rank,
        ctl,
        frames,
        ctx,
        net,
        scratch,
    )
