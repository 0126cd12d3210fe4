"""torch's statistics at exit stay out of the commands' output.

``import torch`` registers an ``atexit`` function that logs FakeTensor cache statistics
(``FakeTensor cache stats: cache_hits: 0 ...``) at INFO level on the logger
``torch._subclasses.fake_tensor``. The Hydra commands log at INFO to stdout, so whenever
that logger's level is not set (torch leaves it unset and relies on its parent), a
command that ends early, e.g. an interrupted evaluation, printed those lines after its
own last word. :func:`quiet_torch_exit_logs` sets the level before the exit functions
run; ``TORCH_LOGS`` (torch's own switch for its logs) still turns them on.
"""

from __future__ import annotations

import logging
import os

__all__ = ["TORCH_EXIT_LOGGERS", "quiet_torch_exit_logs"]

TORCH_EXIT_LOGGERS = ("torch._subclasses.fake_tensor",)
"""Loggers torch writes to from its ``atexit`` functions."""


def quiet_torch_exit_logs() -> None:
    """Raise the loggers of :data:`TORCH_EXIT_LOGGERS` to WARNING, unless ``TORCH_LOGS`` is set."""
    if os.environ.get("TORCH_LOGS"):
        return
    for name in TORCH_EXIT_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
