"""The one game core: a draughts game played one step (one hop of a move) at a time.

:mod:`drl.game.kernels` holds the compiled step game (apply a step, legal-step mask,
repetition history and count, end of the game and its value from a named player's view);
:class:`StepGame` and :class:`StepState` are its Python front ends. The end-of-game rule
itself is ``drl.rules.core.end_code`` (decoded by ``drl.rules.Outcome.from_code``).
"""
