"""An independent check of a solved database: every value agrees with its children's.

For each position the check generates the moves again and recomputes the value from
the children's stored values, with no retrograde bookkeeping:

- a finished game (no move, no pieces): the rules' result (``status``) in 0 plies;
- some child lost for the opponent: a win in ``1 +`` the shortest such loss;
- else some child drawn: a draw;
- else (every child won for the opponent): a loss in ``1 +`` the longest such win.

These equations, with the finished games fixed, have one solution (wins and losses
count down to a finished game along their plies; what is left is drawn), so a database
that passes the check holds the exact values.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from drl.egtb._index import BINOM, S_OFFSET, S_SIZE, Layout, rank, unrank
from drl.egtb._solve import DRAW, INVALID, new_buffers
from drl.rules._movegen import CTX_SIZE, MAX_MOVES, MOVE_WIDTH, generate_at
from drl.rules.core import _apply_at, status

__all__ = ["verify", "search_value"]


@njit(cache=True)
def _expected(sid, idx, ix, params, vals, buf):
    """The value code entry ``idx`` of slice ``sid`` should hold, from its children."""
    geo, table, slice_of, binom = ix
    states, moves, ctx = buf
    bm, bk, wm, wk, turn, ok = unrank(sid, idx, geo, table, binom)
    if not ok:
        return INVALID
    states[0, :] = 0
    states[0, 0] = bm
    states[0, 1] = bk
    states[0, 2] = wm
    states[0, 3] = wk
    states[0, 4] = turn
    n = generate_at(states, 0, params, moves, 0, ctx)
    code = status(states[0], params, n)
    if code >= 0:
        winner = code % 4
        return DRAW if winner == 2 else (2 if winner == turn else 3)
    best_win = -1
    worst_loss = -1
    draw = False
    for i in range(n):
        _apply_at(states, 0, params, moves, 0, i, states, 1)
        r = rank(
            states[1, 0], states[1, 1], states[1, 2], states[1, 3], states[1, 4],
            geo, table, slice_of, binom,
        )  # fmt: skip
        v = vals[r]
        if v == DRAW:
            draw = True
        elif v & 1:
            d = (v - 3) // 2 + 1
            if best_win < 0 or d < best_win:
                best_win = d
        else:
            worst_loss = max(worst_loss, (v - 2) // 2 + 1)
    if best_win >= 0:
        return 2 + 2 * best_win
    if draw:
        return DRAW
    return 3 + 2 * worst_loss


@njit(cache=True)
def _check_slice(sid, ix, params, vals, bad, buf):
    table = ix[1]
    base = table[sid, S_OFFSET]
    wrong = 0
    for idx in range(table[sid, S_SIZE]):
        if _expected(sid, idx, ix, params, vals, buf) != vals[base + idx]:
            if wrong < bad.shape[0]:
                bad[wrong] = base + idx
            wrong += 1
    return wrong


def verify(layout: Layout, params: np.ndarray, vals: np.ndarray, limit: int = 10) -> list[int]:
    """Entries of ``vals`` (``uint16[layout.total]``) that disagree with their children.

    Returns:
        Up to ``limit`` global entry indices of wrong values (empty when all agree).
    """
    ix = (layout.geo, layout.table, layout.slice_of, BINOM)
    buf = new_buffers(layout.nsq)
    bad = np.zeros(limit, dtype=np.int64)
    found: list[int] = []
    for sid in range(len(layout.table)):
        wrong = _check_slice(sid, ix, params, vals, bad, buf)
        found.extend(int(b) for b in bad[: min(wrong, limit)])
        if len(found) >= limit:
            break
    return found[:limit]


@njit(cache=True)
def search_value(state, params, depth):
    """Value of ``state`` found by a full-width search of ``depth`` plies, or -1.

    An exhaustive search to the end of the game, independent of the database: a
    finished game is scored by the rules (``status``, counters as in ``state``); a
    position at the horizon is unknown; else a child lost for the opponent gives a win
    in one ply more than the shortest such loss, and when every child is won for the
    opponent the position is lost in one ply more than the longest such win; anything
    else is unknown. So a win or loss is reported exactly when it ends within ``depth``
    plies, and -1 otherwise (longer, or drawn).

    Args:
        state: ``int64[STATE_SIZE]``.
        params: ``int64[PARAMS_SIZE]`` (the database's solving parameters, counters off).
        depth: plies, 0..64.

    Returns:
        A value code (``2 + 2 d`` win, ``3 + 2 d`` loss in ``d`` plies) or -1.
    """
    top = depth + 1
    states = np.zeros((top, state.shape[0]), dtype=np.int64)
    moves = np.zeros((top, MAX_MOVES, MOVE_WIDTH), dtype=np.int64)
    ctx = np.zeros(CTX_SIZE, dtype=np.int64)
    n = np.zeros(top, dtype=np.int64)
    nxt = np.zeros(top, dtype=np.int64)
    win = np.zeros(top, dtype=np.int64)  # shortest win so far (-1 none)
    loss = np.zeros(top, dtype=np.int64)  # longest loss so far
    open_ = np.zeros(top, dtype=np.bool_)  # some child unknown: no loss
    states[0] = state
    ply = 0
    result = -2  # -2: entering states[ply]
    while True:
        if result == -2:
            n[ply] = generate_at(states, ply, params, moves, ply, ctx)
            code = status(states[ply], params, n[ply])
            if code >= 0:
                w = code % 4
                result = -1 if w == 2 else (2 if w == states[ply, 4] else 3)
            elif ply == depth:
                result = -1
            else:
                nxt[ply] = 0
                win[ply] = -1
                loss[ply] = -1
                open_[ply] = False
        if result != -2:
            if ply == 0:
                return result
            ply -= 1
            if result == -1:
                open_[ply] = True
            elif result & 1:
                d = (result - 3) // 2 + 1
                win[ply] = d if win[ply] < 0 else min(win[ply], d)
            else:
                loss[ply] = max(loss[ply], (result - 2) // 2 + 1)
            result = -2
            if nxt[ply] >= n[ply]:
                if win[ply] >= 0:
                    result = 2 + 2 * win[ply]
                elif open_[ply]:
                    result = -1
                else:
                    result = 3 + 2 * loss[ply]
                continue
        i = nxt[ply]
        nxt[ply] = i + 1
        _apply_at(states, ply, params, moves, ply, i, states, ply + 1)
        ply += 1
        result = -2
