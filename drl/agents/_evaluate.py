"""Static evaluation aware of each side's objective and win conditions (compiled).

The score is from the point of view of the side to move, in centi-men (a man = 100):
``score = T(mover) - T(opponent)``, where for a colour ``c``

``T(c) = keep(c) * (material(c) - start_material)``
``      + [c takes] * (ADVANCE * advancement(c) + MOBILITY * mobility(c))``
``      - [c gives] * block(c) * BLOCKING * mobility(c)``

- ``keep(c)`` is +1 when the colour needs its pieces and -1 when it wants to be rid of
  them. A *take* player keeps (standard draughts). A *give* player sheds them when losing
  all its pieces wins (losing draughts and giveaway; Give and Take with
  ``elimination_winner=giver``), but keeps them in Give and Take under the default
  ``elimination_winner=taker``, where the Giver's last piece captured is a loss and the
  Giver's road to victory is the block (rule 11; ``docs/rules.md``, "Win, loss and draw").
- ``block(c)`` is +1 when a blocked giver wins (fewer free moves is better), -1 under
  ``blocked_giver=loses`` (the Losing Draughts house rule: then mobility is wanted).
- Material subtracts the start material of a side (men on ``rows_of_men`` rows) so
  that the score is near zero at the start in every variant and a draw (0) is not
  mistaken for a good result by a side whose material terms are all negative.

Advancement counts rows moved by men from their own back row; mobility counts (piece,
direction) pairs with an empty neighbouring square (captures and flying distances
ignored), a few bitboard shifts.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from drl.rules._bits import popcount, step
from drl.rules.core import ST_BK, ST_BM, ST_TURN, ST_WK, ST_WM, objective
from drl.rules.geometry import BOARD_SIZES, FULL, ROW
from drl.rules.variant import (
    P_ASYMMETRIC,
    P_BLOCKED_GIVER,
    P_BOARD_SIZE,
    P_ELIM_WINNER,
    P_FLYING,
    P_ROWS,
    P_SIZE_IDX,
)

MAN = 100
KING_SHORT = 150
KING_FLYING = 300
ADVANCE = 3
MOBILITY = 2
BLOCKING = 4


def _advance_planes() -> np.ndarray:
    """``ADVANCE_PLANE[z, c, k]``: bitboards of the squares by advancement bit.

    Plane ``k`` holds the squares where a man of colour c has advanced a number of rows
    with bit k set (rows from its own back row), so that the advancement of a set of men is
    ``sum_k 2**k * popcount(men & plane_k)``.
    """
    planes = np.zeros((2, 2, 4), dtype=np.int64)
    for z, n in enumerate(BOARD_SIZES):
        for s in range(n * n // 2):
            r = int(ROW[z, s])
            for c, adv in ((0, r), (1, n - 1 - r)):
                for k in range(4):
                    if adv >> k & 1:
                        planes[z, c, k] |= 1 << s
    planes.setflags(write=False)
    return planes


ADVANCE_PLANE = _advance_planes()


@njit(cache=True, _nrt=False)
def side_terms(state, params, color):
    """(material, advancement, mobility) of ``color`` in ``state``.

    Returns:
        material in centi-men, advancement in rows (sum over men of rows moved from the
        own back row), mobility in (piece, direction) pairs with an empty neighbour.
    """
    z = params[P_SIZE_IDX]
    king_value = KING_FLYING if params[P_FLYING] else KING_SHORT
    if color == 0:
        men, kings = state[ST_BM], state[ST_BK]
    else:
        men, kings = state[ST_WM], state[ST_WK]
    empty = FULL[z] & ~(state[ST_BM] | state[ST_BK] | state[ST_WM] | state[ST_WK])
    material = MAN * popcount(men) + king_value * popcount(kings)
    advance = (
        popcount(men & ADVANCE_PLANE[z, color, 0])
        + 2 * popcount(men & ADVANCE_PLANE[z, color, 1])
        + 4 * popcount(men & ADVANCE_PLANE[z, color, 2])
        + 8 * popcount(men & ADVANCE_PLANE[z, color, 3])
    )
    mobility = 0
    for d in range(4):
        forward = (d >= 2) if color == 0 else (d < 2)
        movers = kings | men if forward else kings
        if movers:
            mobility += popcount(step(movers, z, d) & empty)
    return material, advance, mobility


@njit(cache=True, _nrt=False)
def keeps_pieces(params, objective_of_color):
    """+1 if a side with this objective (0 take, 1 give) needs its pieces, else -1."""
    if objective_of_color == 0:
        return 1
    if params[P_ASYMMETRIC] and params[P_ELIM_WINNER] == 0:
        return 1
    return -1


@njit(cache=True, _nrt=False)
def _side_value(state, params, color):
    mat, adv, mob = side_terms(state, params, color)
    start = MAN * params[P_ROWS] * (params[P_BOARD_SIZE] // 2)
    obj = objective(state, params, color)
    value = keeps_pieces(params, obj) * (mat - start)
    if obj == 0:
        value += ADVANCE * adv + MOBILITY * mob
    elif params[P_BLOCKED_GIVER] == 0:
        value -= BLOCKING * mob
    else:
        value += BLOCKING * mob
    return value


@njit(cache=True, _nrt=False)
def evaluate(state, params):
    """Heuristic value of a live position for the side to move (centi-men, int)."""
    me = state[ST_TURN]
    return _side_value(state, params, me) - _side_value(state, params, 1 - me)
