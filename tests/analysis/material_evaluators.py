"""A hand-made value function of known material values (imported by name: a module
called ``conftest`` would be whichever conftest pytest imported first)."""

from __future__ import annotations

import numpy as np

from drl.rules.core import ST_BK, ST_BM, ST_TURN, ST_WK, ST_WM


def material_evaluator(man: float = 0.1, king: float = 0.3, sign_of=None):
    """``evaluate(boards)``: ``tanh(sign * (man * men + king * kings) difference)``, the
    mover's material minus the opponent's; ``sign_of(board)`` (default +1) flips it."""

    def evaluate(boards):
        out = []
        for b in boards:
            s = b.state
            mine = (
                (int(s[ST_BM]), int(s[ST_BK]))
                if int(s[ST_TURN]) == 0
                else (int(s[ST_WM]), int(s[ST_WK]))
            )
            theirs = (
                (int(s[ST_WM]), int(s[ST_WK]))
                if int(s[ST_TURN]) == 0
                else (int(s[ST_BM]), int(s[ST_BK]))
            )
            worth = [man * bin(m).count("1") + king * bin(k).count("1") for m, k in (mine, theirs)]
            sign = 1.0 if sign_of is None else sign_of(b)
            out.append(np.tanh(sign * (worth[0] - worth[1])))
        return np.array(out)

    return evaluate
