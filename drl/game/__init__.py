"""The one game core: a draughts game played one step (one hop of a move) at a time.

:mod:`drl.game.kernels` holds the compiled step game (apply a step, legal-step mask,
repetition history and count, end of the game and its value from a named player's view);
:class:`StepState` is its Python front end. The envs' game against random replies,
``StepGame``, is :class:`drl.envs.StepGame`. The end-of-game rule
itself is ``drl.rules.core.end_code`` (decoded by ``drl.rules.Outcome.from_code``).
"""

import numpy as np

from drl.game.step_state import StepState

__all__ = ["StepState", "winners"]


def winners(codes: np.ndarray) -> np.ndarray:
    """Winners of result codes, vectorised: ``int64[B]`` of 0 black, 1 white, 2 draw.

    -1 where the game goes on. The codes are in the ``drl.rules.core.end_code`` layout.
    """
    codes = np.asarray(codes, dtype=np.int64)
    return np.where(codes >= 0, codes % 4, -1)
