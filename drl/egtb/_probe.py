"""Compiled probing of a mapped database, and the value of a position in a real game.

A database's values ignore the counters (as Chinook's do): win, loss or draw and the
plies to the end are those of the game with no repetition, no-progress or endgame-rule
draw, where a position that neither side can force to an end is drawn (repetition being
a draw in every preset). In a game, :func:`exact_code` turns a database value into the
game's exact result where the counters cannot change it:

- a draw stays a draw: the counters only ever add draws;
- a win or loss in ``d`` plies is exact when the game ends before any counter can
  draw it: ``d`` is at most the plies the no-progress rule leaves
  (``no_progress_plies - ST_NOPROG``; a capture or man move only restarts it), and,
  under an endgame rule, at most the plies left in the position's class and at most
  the shortest class of the rule (5 moves, 10 plies: a class entered later starts its
  count at 0). Along a line of best play the plies to the end fall by one each ply, so
  no position on it repeats; a position of the line that the game history already
  holds twice is not looked for (the searches score repetitions themselves).

Sources: ``docs/rules.md`` "Win, loss and draw" and "Russian endgame draw rules";
FMJD art. 6 and 8 for the international rules.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from drl.egtb._index import G_MAXP, G_NSQ, mirror
from drl.egtb._index import locate as _locate
from drl.rules._bits import popcount
from drl.rules.core import ENDGAME_PLIES, ST_ENDGAME, ST_NOPROG, endgame_kind
from drl.rules.variant import P_ENDGAME_RULE, P_NO_PROGRESS

__all__ = ["lookup", "lookup_batch", "exact_code", "no_database", "NOT_FOUND", "SHORTEST_CLASS"]

NOT_FOUND = -1
#: Plies of the shortest endgame-rule class (FMJD and Russian 5-move rules).
SHORTEST_CLASS = 10


@njit(cache=True)
def lookup(bm, bk, wm, wk, turn, db):
    """Value code of a position in a mapped database, or ``NOT_FOUND``.

    Args:
        bm: int64 bitboard of the black men.
        bk: of the black kings.
        wm: of the white men.
        wk: of the white kings.
        turn: 0 Black to move, 1 White.
        db: ``(geo, slice_of, binom, data, starts, widths, flip)``: the layout's
            arrays, the file as ``uint8[:]``, each slice's first byte and code width,
            and ``flip`` (1 when the variant's Taker is White: the position is looked up
            turned round with the colours swapped).

    Returns:
        The code (0 draw, ``2 + 2 d`` win, ``3 + 2 d`` loss in ``d`` plies, for the side
        to move), or ``NOT_FOUND`` when the position has more pieces than the database.
    """
    geo, slice_of, binom, data, starts, widths, flip = db
    if popcount(bm | bk | wm | wk) > geo[G_MAXP]:
        return NOT_FOUND
    if flip:
        nsq = geo[G_NSQ]
        bm, bk, wm, wk = mirror(wm, nsq), mirror(wk, nsq), mirror(bm, nsq), mirror(bk, nsq)
        turn = 1 - turn
    sid, idx = _locate(bm, bk, wm, wk, turn, geo, slice_of, binom)
    if sid < 0:
        return NOT_FOUND
    if widths[sid] == 1:
        return np.int64(data[starts[sid] + idx])
    at = starts[sid] + 2 * idx
    return np.int64(data[at]) | (np.int64(data[at + 1]) << 8)


@njit(cache=True)
def exact_code(state, params, db):
    """The database value of ``state`` where it is the game's exact result, else ``NOT_FOUND``.

    Args:
        state: ``int64[STATE_SIZE]`` the position with its counters.
        params: ``int64[PARAMS_SIZE]`` the variant played (its counters' limits).
        db: as for :func:`lookup`.

    Returns:
        The value code (see :func:`lookup`), or ``NOT_FOUND`` when the position is not in
        the database or a counter could still draw the game first (module text).
    """
    code = lookup(state[0], state[1], state[2], state[3], state[4], db)
    if code <= 1:  # not found (-1) or a draw (0); no position (1) cannot be reached
        return code if code <= 0 else NOT_FOUND
    d = (code - 2) // 2
    limit = params[P_NO_PROGRESS]
    if limit > 0 and d > limit - state[ST_NOPROG]:
        return NOT_FOUND
    if params[P_ENDGAME_RULE] != 0:
        room = SHORTEST_CLASS
        kind = endgame_kind(state, params)
        if kind != 0:
            room = min(room, ENDGAME_PLIES[kind] - state[ST_ENDGAME])
        if d > room:
            return NOT_FOUND
    return code


def no_database() -> tuple:
    """A kernel tuple of the same types as an opened database's that holds no position.

    For compiled searches run without a database: :func:`lookup` answers ``NOT_FOUND``
    for every position.
    """
    geo = np.array([32, 4, 28, 1, 0], dtype=np.int64)
    slice_of = np.full(2, -1, dtype=np.int64)
    for a in (geo, slice_of):
        a.setflags(write=False)
    from drl.egtb._index import BINOM

    data = np.frombuffer(b"\0", dtype=np.uint8)
    return (geo, slice_of, BINOM, data, np.zeros(1, np.int64), np.zeros(1, np.int64), 0)


@njit(cache=True)
def lookup_batch(positions, db, out):
    """:func:`lookup` of many positions, written to ``out`` (``int64[n]``).

    ``positions`` is ``int64[n, 5]``: black men, black kings, white men, white kings,
    side to move.
    """
    for i in range(positions.shape[0]):
        p = positions[i]
        out[i] = lookup(p[0], p[1], p[2], p[3], p[4], db)
