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
from drl.rules._movegen import generate_at
from drl.rules.core import _apply_at, status

__all__ = ["verify"]


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
