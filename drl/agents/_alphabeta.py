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
- Endgame databases: below the root, a position whose exact result the database gives
  (``drl.egtb``, counters of the game included: ``exact_code``) ends the line there,
  scored like a finished game ``d`` plies later (a draw 0, a win in ``d`` plies
  ``WIN - ply - d``).
- Quiescence: at depth 0 the search goes on while the side to move must capture
  (captures are compulsory, so there is no "stand pat" in such positions).
- Transposition table keyed by the Zobrist hash ``ST_HASH``; bounds and the best move
  are stored; win scores are stored relative to the node.
- Move ordering: the TT move, then captures by pieces taken, crowning moves, then the
  history heuristic; at the root ties keep the order of a seeded shuffle.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from drl.agents._evaluate import evaluate
from drl.agents._kernels import CTX_SIZE, generate
from drl.agents._nnue import (
    N_INCREMENTAL,
    NetStack,
    bring_up,
    invalidate,
    leaf_value,
    make_net_stack,
    refresh,
)
from drl.egtb._probe import exact_code, no_database
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


class SearchStack(NamedTuple):
    """The explicit stack of one search, one row per ply, and its control counters.

    Attributes:
        states: ``int64[MAX_PLY + 1, STATE_SIZE]`` the position at each ply.
        moves: ``int64[MAX_PLY, MAX_MOVES, MOVE_WIDTH]`` legal moves at each ply.
        order: ``int64[MAX_PLY, MAX_MOVES]`` their ordering scores.
        frames: ``int64[MAX_PLY, F_WIDTH]`` each open node's window, best score and
            next move (the ``F_*`` columns).
        ctx: ``int64[CTX_SIZE]`` move-generator scratch space.
        ctl: ``int64[C_SIZE]`` node counter, node limit, abort flag, best root move
            row, deepest ply reached (the ``C_*`` entries).
    """

    states: np.ndarray
    moves: np.ndarray
    order: np.ndarray
    frames: np.ndarray
    ctx: np.ndarray
    ctl: np.ndarray


class SearchTables(NamedTuple):
    """What the searches of one searcher share, kept from move to move.

    Attributes:
        tt: ``int64[2**tt_bits, TT_WIDTH]`` the transposition table (``TT_*`` columns).
        history: ``int64[50 * 50]`` history-heuristic counters by (from, to).
    """

    tt: np.ndarray
    history: np.ndarray


class SearchRoot(NamedTuple):
    """The position one search starts from.

    Attributes:
        state: ``int64[STATE_SIZE]`` the root position.
        params: ``int64[PARAMS_SIZE]`` its rules.
        path: ``int64[root ply + MAX_PLY + 1]`` the game's hash-by-ply history
            (``Board.history``); the search writes its path at the plies after the root.
        rank: ``int64[MAX_MOVES]`` tie-break rank of each root move in kernel order
            (lower ranks are searched first, so they win ties).
        egtb: the endgame database probed below the root (``Database.kernel`` of
            ``drl.egtb``), or :data:`NO_EGTB`.
    """

    state: np.ndarray
    params: np.ndarray
    path: np.ndarray
    rank: np.ndarray
    egtb: tuple


NO_EGTB = no_database()
"""The stand-in of a search without an endgame database (it holds no position)."""


class SearchBuffers:
    """Preallocated arrays for one searcher.

    Attributes:
        stack: :class:`SearchStack`.
        tables: :class:`SearchTables`, ``2**tt_bits`` transposition-table slots.
        args: ``(stack, tables)`` as plain tuples, the way :func:`search_root` takes
            them fastest.
    """

    def __init__(self, tt_bits: int = 19) -> None:
        self.stack = SearchStack(
            states=np.zeros((MAX_PLY + 1, STATE_SIZE), dtype=np.int64),
            moves=np.zeros((MAX_PLY, MAX_MOVES, MOVE_WIDTH), dtype=np.int64),
            order=np.zeros((MAX_PLY, MAX_MOVES), dtype=np.int64),
            frames=np.zeros((MAX_PLY, F_WIDTH), dtype=np.int64),
            ctx=np.zeros(CTX_SIZE, dtype=np.int64),
            ctl=np.zeros(C_SIZE, dtype=np.int64),
        )
        self.tables = SearchTables(
            tt=np.zeros((1 << tt_bits, TT_WIDTH), dtype=np.int64),
            history=np.zeros(2500, dtype=np.int64),
        )
        self.args = (tuple(self.stack), tuple(self.tables))

    def clear(self) -> None:
        """Forget the transposition table and history counters."""
        self.tables.tt[:] = 0
        self.tables.history[:] = 0


NET_SCALE = 10_000
"""A learned evaluation's value (``[-1, 1]``) times this is its score (an integer)."""


def _no_net() -> tuple[SparseWeights, SparseScratch, NetStack]:
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
    return weights, make_scratch(weights), make_net_stack(weights, MAX_PLY + 1)


NO_NET, NO_SCRATCH, NO_NET_STACK = _no_net()
"""The stand-in network of a search with the static evaluation (``w1`` has no rows)."""


@njit(cache=True, _nrt=False)
def _leaf_score(stack_states, ply, params, earlier, net, scratch, nstack):
    """The score of a quiet leaf at ``ply`` for the side to move.

    It is the network's value times ``NET_SCALE`` when there is a network (from the
    ply's accumulators, or recomputed when ``nstack`` says so: :mod:`drl.agents._nnue`),
    else the static evaluation (centi-men).
    """
    st = stack_states[ply]
    if net.w1.shape[0] == 0:
        return evaluate(st, params)
    if nstack.ctl[N_INCREMENTAL]:
        bring_up(stack_states, params, net, nstack, ply)
        v = leaf_value(st, params, earlier, net, scratch, nstack.acc[ply])
    else:
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
def _database_score(code, ply):
    """Score of an exact database value found ``ply`` plies below the root."""
    if code == 0:
        return 0
    plies = ply + (code - 2) // 2
    s = WIN - plies if plies < MAX_PLY else WIN_BOUND
    return s if code % 2 == 0 else -s


@njit(cache=True, _nrt=False, inline="always")
def _probe(tt, h, ply, depth, alpha, beta):
    """Look position ``h`` up in the transposition table.

    Returns:
        ``(slot, tt move, its captured set, cut, score)``: the move is -1 when the
        table has no entry for ``h``; ``cut`` is True (never at the root) when the
        stored bound, searched at least as deep, decides the node at ``score``.
    """
    slot = h & (tt.shape[0] - 1)
    if tt[slot, TT_KEY] != h:
        return slot, -1, -1, False, 0
    if ply > 0 and tt[slot, TT_DEPTH] >= depth:
        s = tt[slot, TT_SCORE]
        if s > WIN_BOUND:
            s -= ply
        elif s < -WIN_BOUND:
            s += ply
        f = tt[slot, TT_FLAG]
        if f == EXACT or (f == LOWER and s >= beta) or (f == UPPER and s <= alpha):
            return slot, tt[slot, TT_MOVE], tt[slot, TT_CAP], True, s
    return slot, tt[slot, TT_MOVE], tt[slot, TT_CAP], False, 0


@njit(cache=True, _nrt=False, inline="always")
def _score_moves(mv, sc, n, ply, tt_move, tt_cap, rank, history):
    """Ordering scores ``sc[:n]`` of the moves ``mv[:n]``, highest first.

    The TT move comes first, then at the root the tie-break rank, below it captures by
    pieces taken, crowning moves and the history counters.
    """
    for i in range(n):
        if mv[i, M_FROM] * 64 + mv[i, M_TO] == tt_move and mv[i, M_CAPTURED] == tt_cap:
            sc[i] = 1 << 60
        elif ply == 0:
            sc[i] = -rank[i]
        else:
            v = history[mv[i, M_FROM] * 50 + mv[i, M_TO]]
            if mv[i, M_CAPTURED]:
                v += (1 << 40) + popcount(mv[i, M_CAPTURED]) * (1 << 36)
            if mv[i, M_FLAGS] & 1:
                v += 1 << 35
            sc[i] = v


@njit(cache=True, _nrt=False, inline="always")
def _open_frame(fr, depth, alpha, beta, n, slot):
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


@njit(cache=True, _nrt=False)
def _enter(ply, depth, alpha, beta, stack, tables, root, net, scratch, nstack):
    """Open the node ``stack.states[ply]`` with window ``(alpha, beta)``.

    Returns ``(True, value)`` for a leaf (terminal, draw by repetition, quiet horizon, TT
    cut-off or abort), else sets up its frame and returns ``(False, 0)``.
    """
    ctl = stack.ctl
    ctl[C_NODES] += 1
    if ctl[C_NODES] > ctl[C_LIMIT]:
        ctl[C_ABORT] = 1
        return True, 0
    if ply > ctl[C_SELDEPTH]:
        ctl[C_SELDEPTH] = ply
    params = root.params
    st = stack.states[ply]
    h = st[ST_HASH]
    root.path[st[ST_PLY]] = h
    earlier = count_repetitions(root.path, st)
    if ply > 0 and earlier > 0 and params[P_REPETITION] > 0:
        return True, 0  # a cycle inside the search is scored as a draw (module docstring)
    mv = stack.moves[ply]
    n = generate(stack.states, ply, params, stack.moves, stack.ctx)
    code = end_code(st, params, n, earlier)
    if code >= 0:
        return True, _terminal_score(code, st[ST_TURN], ply)
    if ply > 0:
        code = exact_code(st, params, root.egtb)
        if code >= 0:
            return True, _database_score(code, ply)
    if ply >= MAX_PLY - 1:
        return True, _leaf_score(stack.states, ply, params, earlier, net, scratch, nstack)
    if depth <= 0:
        if mv[0, M_CAPTURED] == 0:
            return True, _leaf_score(stack.states, ply, params, earlier, net, scratch, nstack)
        depth = 0
    slot, tt_move, tt_cap, cut, s = _probe(tables.tt, h, ply, depth, alpha, beta)
    if cut:
        return True, s
    _score_moves(mv, stack.order[ply], n, ply, tt_move, tt_cap, root.rank, tables.history)
    _open_frame(stack.frames[ply], depth, alpha, beta, n, slot)
    return False, 0


@njit(cache=True, _nrt=False)
def _next_child(ply, stack, params, nstack):
    """Play the best remaining move of ``ply`` into ``states[ply + 1]``.

    The move is first brought to position ``F_J``; the child's first-layer
    accumulators are marked out of date (updated when a leaf needs them). Returns the
    child's window ``(alpha, beta)``.
    """
    fr = stack.frames[ply]
    mv = stack.moves[ply]
    sc = stack.order[ply]
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
    apply_move_into(stack.states[ply], params, mv[j], stack.states[ply + 1])
    invalidate(nstack, ply + 1)
    if j == 0:
        fr[F_MODE] = MODE_FULL
        return -fr[F_BETA], -fr[F_ALPHA]
    fr[F_MODE] = MODE_NULL
    return -fr[F_ALPHA] - 1, -fr[F_ALPHA]


@njit(cache=True, _nrt=False, inline="always")
def _take_score(ply, s, stack, history):
    """Count score ``s`` of move ``F_J`` of ``ply``: raise the node's best and alpha.

    Returns True on a beta cut-off (a quiet move that caused it gains history).
    """
    fr = stack.frames[ply]
    j = fr[F_J]
    if s <= fr[F_BEST]:
        return False
    fr[F_BEST] = s
    fr[F_BEST_I] = j
    if ply == 0:
        stack.ctl[C_BEST] = j
    if s <= fr[F_ALPHA]:
        return False
    fr[F_ALPHA] = s
    if s < fr[F_BETA]:
        return False
    mv = stack.moves[ply, j]
    if mv[M_CAPTURED] == 0:
        history[mv[M_FROM] * 50 + mv[M_TO]] += fr[F_DEPTH] * fr[F_DEPTH]
    return True


@njit(cache=True, _nrt=False)
def _store(ply, stack, tt):
    """Store the result of the node at ``ply`` in the transposition table.

    Nothing is stored when the slot holds another position searched deeper.
    """
    fr = stack.frames[ply]
    h = stack.states[ply, ST_HASH]
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
        mv = stack.moves[ply, bi]
        tt[slot, TT_KEY] = h
        tt[slot, TT_DEPTH] = depth
        tt[slot, TT_SCORE] = stored
        tt[slot, TT_FLAG] = flag
        tt[slot, TT_MOVE] = mv[M_FROM] * 64 + mv[M_TO]
        tt[slot, TT_CAP] = mv[M_CAPTURED]


@njit(cache=True, _nrt=False)
def _negamax(depth, stack, tables, root, net, scratch, nstack):
    """Principal-variation negamax from ``stack.states[0]`` with an explicit stack.

    Each turn of the loop either opens the next child of the node at ``ply`` or, with
    ``have_value``, takes the value ``v`` a child returned: a null-window child that
    failed high is searched again with the full window; otherwise the score is counted
    and the node is closed (stored, its value passed up) after a cut-off or its last
    move. (The research has its own ``_enter`` call: with one call site for both the
    search is about 2% slower.)
    """
    leaf, v = _enter(0, depth, -INF, INF, stack, tables, root, net, scratch, nstack)
    if leaf:
        return v
    ply = 0
    have_value = False
    while True:
        if stack.ctl[C_ABORT]:
            return 0
        fr = stack.frames[ply]
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
                    stack,
                    tables,
                    root,
                    net,
                    scratch,
                    nstack,
                )
                if leaf:
                    have_value = True
                else:
                    ply += 1
                continue
            cutoff = _take_score(ply, s, stack, tables.history)
            if cutoff or fr[F_J] + 1 >= fr[F_N]:
                _store(ply, stack, tables.tt)
                v = fr[F_BEST]
                if ply == 0:
                    return v
                ply -= 1
                have_value = True
                continue
            fr[F_J] += 1
        a, b = _next_child(ply, stack, root.params, nstack)
        cd = fr[F_DEPTH] - 1 if fr[F_DEPTH] > 0 else 0
        leaf, v = _enter(ply + 1, cd, a, b, stack, tables, root, net, scratch, nstack)
        if leaf:
            have_value = True
        else:
            ply += 1


@njit(cache=True, _nrt=False, nogil=True)  # a server answers others meanwhile
def search_root(root, depth, stack, tables, net, scratch, nstack):
    """Search ``root.state`` to ``depth`` plies (plus forced captures).

    ``root``, ``stack``, ``tables``, ``net``, ``scratch`` and ``nstack`` may be passed as
    plain tuples of their fields (``tuple(stack)``), as
    :class:`~drl.agents.alphabeta.AlphaBetaAgent` does: numba reads the types of a plain
    tuple of arrays in compiled code but those of a NamedTuple in Python, about a
    microsecond per structure on every call (the six would double the cost of a depth-1
    search).

    Args:
        root: :class:`SearchRoot`, the position, its rules, its game's history and the
            root moves' tie-break ranks.
        depth: nominal depth in plies (>= 1).
        stack: :class:`SearchStack`; ``stack.ctl[C_LIMIT]`` is the node budget. On
            return ``ctl[C_NODES]`` counts the nodes, ``ctl[C_ABORT]`` is 1 if the
            budget ran out, ``ctl[C_BEST]`` is the row of the best move in
            ``stack.moves[0]`` (the root moves are reordered in place).
        tables: :class:`SearchTables`, updated.
        net: the learned evaluation (:class:`~drl.encode.sparse_net.SparseWeights`), used
            at the leaves when ``net.w1`` has rows; :data:`NO_NET` for the static
            evaluation.
        scratch: the :class:`~drl.encode.sparse_net.SparseScratch` work arrays of ``net``
            (:data:`NO_SCRATCH` with :data:`NO_NET`).
        nstack: the first-layer accumulators of ``net``
            (:class:`~drl.agents._nnue.NetStack`, ``MAX_PLY + 1`` plies;
            :data:`NO_NET_STACK` with :data:`NO_NET`).

    Returns:
        The score of the root for the side to move (centi-men, or ``NET_SCALE`` times
        the network's value; ``±(WIN - plies)`` for a forced win/loss).
    """
    root = SearchRoot(*root)
    stack = SearchStack(*stack)
    tables = SearchTables(*tables)
    net = SparseWeights(*net)
    scratch = SparseScratch(*scratch)
    nstack = NetStack(*nstack)
    if nstack.valid.shape[0] <= MAX_PLY:
        raise ValueError("nstack: one row per ply of the search stack is needed")
    for i in range(STATE_SIZE):
        stack.states[0, i] = root.state[i]
    if net.w1.shape[0] != 0 and nstack.ctl[N_INCREMENTAL]:
        refresh(stack.states[0], root.params, net, nstack.acc[0])
        nstack.valid[0] = 1
    stack.ctl[C_ABORT] = 0
    stack.ctl[C_BEST] = 0
    stack.ctl[C_SELDEPTH] = 0
    return _negamax(depth, stack, tables, root, net, scratch, nstack)
