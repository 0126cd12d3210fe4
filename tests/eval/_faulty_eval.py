"""Run ``drl-eval`` (its ``main``) with one fault injected at a named function, so that a
test can stop it at an exact point instead of racing it with timers.

Environment (all optional):

- ``FAULT_AT=module:Qualified.name``: the function to wrap.
- ``FAULT=INT`` / ``FAULT=TERM``: on the first matching call, send this signal to this
  process, then call the function (the handler runs at once, as for a real Ctrl-C at
  that moment); ``FAULT=ENOSPC``: raise "No space left on device" instead of calling it
  (on every matching call, as on a full disk).
- ``FAULT_IF=regex``: only calls whose arguments' ``repr`` match.
- ``FAULT_OPEN=text``: ``open`` for writing of a path containing ``text`` raises ENOSPC.
- ``FAULT_NOW=YYYY-mm-ddTHH:MM:SS``: the time Hydra's ``${now:...}`` reads.

Usage: ``python _faulty_eval.py drl-eval-arguments...``
"""

import builtins
import datetime
import errno
import functools
import importlib
import os
import re
import signal
import sys


def _enospc(path):
    return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))


def _wrap_function():
    where, fault = os.environ.get("FAULT_AT"), os.environ.get("FAULT")
    if not where or not fault:
        return
    module_name, qualname = where.split(":")
    owner = importlib.import_module(module_name)
    *parents, name = qualname.split(".")
    for part in parents:
        owner = getattr(owner, part)
    original = getattr(owner, name)
    pattern = re.compile(os.environ.get("FAULT_IF", ""), re.S)
    fired = []

    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        if pattern.search(repr((args, kwargs))):
            if fault == "ENOSPC":
                paths = [a for a in args if isinstance(a, os.PathLike)]
                raise _enospc(paths[0] if paths else f"<{qualname}>")
            if not fired:
                fired.append(True)
                os.kill(os.getpid(), getattr(signal, "SIG" + fault))
        return original(*args, **kwargs)

    setattr(owner, name, wrapper)


def _wrap_open():
    text = os.environ.get("FAULT_OPEN")
    if not text:
        return
    original = builtins.open

    def faulty_open(file, mode="r", *args, **kwargs):
        if text in str(file) and any(c in mode for c in "wax+"):
            raise _enospc(file)
        return original(file, mode, *args, **kwargs)

    builtins.open = faulty_open


def _fix_now():
    when = os.environ.get("FAULT_NOW")
    if not when:
        return
    import hydra.core.utils

    fixed = datetime.datetime.fromisoformat(when)

    class Fixed(datetime.datetime):
        @classmethod
        def now(cls, tz=None):
            return fixed

    hydra.core.utils.datetime = Fixed


if __name__ == "__main__":
    import drl.cli.eval

    _wrap_function()
    _wrap_open()
    _fix_now()
    sys.argv[0] = "drl-eval"
    drl.cli.eval.main()
