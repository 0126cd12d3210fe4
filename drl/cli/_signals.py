"""``drl-eval``'s handling of SIGINT and SIGTERM from its first moment to its exit.

A signal raises ``KeyboardInterrupt`` (SIGTERM: :class:`Terminated`) in the main thread,
so that whatever runs stops and the evaluation writes the games it finished; the exit
status is then 128 + the signal (:func:`exit_status`). This module imports nothing of
drl's until a signal has to be ignored without the handler.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

__all__ = ["INTERRUPTED_AT_START", "StopSignals", "Terminated", "exit_status"]

#: drl-eval's line for a signal that comes before the evaluation has started.
INTERRUPTED_AT_START = "drl-eval: interrupted before the evaluation started; nothing written"


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in ``drl-eval``'s main thread to stop the evaluation as Ctrl-C does.

    The evaluation then keeps its games as on Ctrl-C; the exit status is 143 (128 +
    SIGTERM).
    """


def exit_status(err: BaseException) -> int:
    """130 for Ctrl-C (128 + SIGINT), 143 for SIGTERM."""
    return 128 + (signal.SIGTERM if isinstance(err, Terminated) else signal.SIGINT)


class StopSignals:
    """``drl-eval``'s SIGINT and SIGTERM handler, kept until the process exits.

    It is installed first thing in ``main`` (before Hydra, the config and the agents).

    A signal raises ``KeyboardInterrupt`` (SIGTERM: :class:`Terminated`) in the main
    thread, so that whatever runs stops and the evaluation writes what it has. Inside
    :meth:`hold` (writing the results) a signal waits instead: it is recorded, and the
    exit status is still 128 + the signal. Just after one has been raised, the next one
    waits too (it would cut the writing of the games short before :meth:`hold` begins);
    one after that is raised again.

    Without the handler installed (``run`` called as a library), :meth:`hold` ignores
    SIGINT and SIGTERM instead.
    """

    def __init__(self) -> None:
        self.installed = False
        self.holding = False
        self.received: int | None = None  # the first signal, for the exit status
        self.raised = False
        self.waiting = 0
        self.reported = False  # the evaluation wrote and printed what it had played

    def install(self) -> None:
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, self._handle)
        self.installed = True

    def _handle(self, signum: int, frame: object) -> None:
        if self.received is None:
            self.received = signum
        if self.holding or (self.raised and not self.waiting):
            self.waiting += 1
            return
        self.raised, self.waiting = True, 0
        raise Terminated if signum == signal.SIGTERM else KeyboardInterrupt

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        """Signals wait until the block is done (see the class)."""
        if not self.installed or threading.current_thread() is not threading.main_thread():
            from drl.eval.play import IgnoringSignals

            with IgnoringSignals(signal.SIGINT, signal.SIGTERM):
                yield
            return
        before, self.holding = self.holding, True
        try:
            yield
        finally:
            self.holding = before
