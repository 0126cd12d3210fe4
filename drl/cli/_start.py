"""Console entry points that answer a signal from the process's first moment.

``drl-eval`` installs its SIGINT / SIGTERM handler first thing in its ``main``, but
importing its module (numpy, the config schemas) takes a fraction of a second, longer on
a loaded machine; a Ctrl-C in that window printed a ``KeyboardInterrupt`` traceback from
inside an import, and a SIGTERM ended the process without a word. The entry point here
imports nothing of drl's before its handler is in place but :mod:`drl.cli._signals`
(standard library only), where the line it prints is kept for both.
"""

from __future__ import annotations

import signal
import sys

from drl.cli._signals import INTERRUPTED_AT_START

__all__ = ["eval_main"]


def _stopped_while_starting(signum: int, frame: object) -> None:
    print(INTERRUPTED_AT_START, file=sys.stderr)
    raise SystemExit(128 + signum)


def eval_main() -> None:
    """``drl-eval``: :func:`drl.cli.eval.main`, stopped cleanly by a signal during its imports.

    Such a signal ends it with one line and status 130 (SIGINT) or 143 (SIGTERM).
    """
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _stopped_while_starting)
    from drl.cli.eval import main  # installs drl-eval's own handler first thing

    main()
