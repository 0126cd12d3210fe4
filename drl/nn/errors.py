"""The errors of a diverged network and of a bad checkpoint (this module does not import torch).

Training that diverges (a learning rate too high, a damaged replay position, a loss
scale that divides by zero) shows as NaN or infinite numbers: first in a loss term or
the gradients of a learner step, or in the outputs of the network afterwards. Left
alone, they pass on silently (``loss: inf``) or surface far away (a search that "tried
an illegal step" because every prior is NaN). :class:`TrainingDiverged` is raised where
they first appear instead: by :func:`drl.train.train_step` (a loss term or the gradient
norm) and by :class:`drl.nn.NetworkEvaluator` (a network output).

:class:`CheckpointError` is what every reader of a checkpoint raises for a file that is
missing, damaged or malformed (see :mod:`drl.nn.checkpoint`).
"""

from __future__ import annotations

__all__ = ["CheckpointError", "TrainingDiverged"]


class TrainingDiverged(FloatingPointError, RuntimeError):
    """A loss, a gradient or a network output is NaN or infinite.

    It is a :class:`RuntimeError` too, so that every command which reports a failed run
    in one line (drl-play, drl-eval, drl-hub, drl-analyze) reports this one the same way.

    The message says what diverged, where (the learner step, the iteration) and, for a
    learner step, the learning rate, and how to go on.

    Args:
        message: the full message.
        what: the quantity that is not finite, e.g. ``"loss term value_loss"``,
            ``"gradient norm"``, ``"network output value"``.
        step: the learner step (1-based count over the run) it happened at, if known.
        lr: the learning rate of that step, if known.

    Attributes:
        what, step, lr: as given.
    """

    def __init__(
        self, message: str, *, what: str, step: int | None = None, lr: float | None = None
    ) -> None:
        super().__init__(message)
        self.what = what
        self.step = step
        self.lr = lr


class CheckpointError(ValueError, RuntimeError):
    """A checkpoint file is missing, truncated, corrupt, malformed or not a drl checkpoint.

    The message names the file and, for a malformed payload, the key that is wrong
    (``checkpoint runs/x/agent.pt: net_config must be a mapping ..., got a list``). It is
    a :class:`ValueError` (bad input) and a :class:`RuntimeError`, so that every command
    that reports bad input in one line reports this one the same way.
    """
