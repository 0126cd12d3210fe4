"""An external engine process: started in its own process group, read line by line
with timeouts, and shut down on every exit path.

The engine runs in a new session (its own process group), so a Ctrl-C in the terminal
reaches only drl, which then stops the engine itself; on Linux the engine also gets
SIGKILL when the thread that started it dies (``PR_SET_DEATHSIG``), so even a drl
process killed with SIGKILL leaves no engine behind. :meth:`EngineProcess.close` is
idempotent and also runs from a ``weakref`` finalizer (at garbage collection or at
interpreter exit).
"""

from __future__ import annotations

import collections
import ctypes
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Sequence
from typing import Any

__all__ = ["EngineError", "EngineProcess"]


class EngineError(RuntimeError):
    """An external engine misbehaved: it replied with garbage or an illegal move, was
    too slow, or exited. The message names the engine (and the position, when there is
    one)."""


def _deathsig() -> None:  # pragma: no cover - runs in the child between fork and exec
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_DEATHSIG
    except (OSError, AttributeError):
        pass


def _kill_group(proc: subprocess.Popen, pgid: int) -> None:
    """SIGKILL the engine's process group and reap the engine (the finalizer's action)."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:  # pragma: no cover - a process that ignores SIGKILL
        pass
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        try:
            if stream is not None:
                stream.close()
        except OSError:
            pass


class _Tail:
    """A queue-like sink that keeps the last lines only."""

    def __init__(self, lines: collections.deque[str]) -> None:
        self.lines = lines

    def put(self, line: str | None) -> None:
        if line is not None:
            self.lines.append(line)


class EngineProcess:
    """A running engine: ``send`` lines to its stdin, ``readline`` from its stdout.

    Args:
        argv: the program and its arguments.
        cwd: working folder (None: the current one).
        label: how error messages name the engine (e.g. its spec string).
        keep_output: queue stdout lines for :meth:`readline`; False keeps only the last
            20 (an engine whose stdout is a log, e.g. a DXP engine).

    Raises:
        EngineError: the program cannot be started (missing, not executable).
    """

    def __init__(
        self, argv: Sequence[str], cwd: str | None, label: str, keep_output: bool = True
    ) -> None:
        self.label = label
        self.keep_output = keep_output
        self.argv = list(argv)
        try:
            self.proc = subprocess.Popen(
                self.argv,
                cwd=cwd or None,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                preexec_fn=_deathsig if sys.platform.startswith("linux") else None,
            )
        except OSError as err:
            raise EngineError(
                f"engine {label}: cannot start {' '.join(self.argv)!r} "
                f"(cwd {cwd or os.getcwd()!r}): {err}"
            ) from None
        self.pid = self.proc.pid
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=20)
        self._stdout_tail: collections.deque[str] = collections.deque(maxlen=20)
        self._finalizer = weakref.finalize(self, _kill_group, self.proc, self.pid)
        sink: Any = self._lines if keep_output else _Tail(self._stdout_tail)
        threading.Thread(target=self._pump, args=(self.proc.stdout, sink), daemon=True).start()
        threading.Thread(
            target=self._pump_err, args=(self.proc.stderr, self._stderr), daemon=True
        ).start()  # the threads hold no reference to self: the finalizer can run at GC

    @staticmethod
    def _pump(stream, lines: queue.Queue) -> None:
        try:
            for raw in iter(stream.readline, b""):
                lines.put(raw.decode("utf-8", "replace").rstrip("\r\n"))
        except (OSError, ValueError):
            pass
        lines.put(None)  # end of output

    @staticmethod
    def _pump_err(stream, tail: collections.deque) -> None:
        try:
            for raw in iter(stream.readline, b""):
                tail.append(raw.decode("utf-8", "replace").rstrip("\r\n"))
        except (OSError, ValueError):
            pass

    def stderr_tail(self) -> str:
        """The engine's last stderr lines (at most 20), for error messages."""
        return " | ".join(self._stderr)

    def alive(self) -> bool:
        """True while the engine process runs."""
        return self.proc.poll() is None

    def exit_text(self) -> str:
        """``exited with status N`` / ``killed by SIGX``, with the stderr tail."""
        code = self.proc.poll()
        if code is None:
            text = "is running"
        elif code < 0:
            text = f"was killed by {signal.Signals(-code).name}"
        else:
            text = f"exited with status {code}"
        tail = self.stderr_tail() or " | ".join(self._stdout_tail)
        return text + (f" (stderr: {tail})" if tail else "")

    def send(self, line: str) -> None:
        """Write one line (a newline is added) to the engine's stdin.

        Raises:
            EngineError: the engine has exited or closed its stdin.
        """
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(line.encode("utf-8") + b"\n")
            self.proc.stdin.flush()
        except (OSError, ValueError):
            time.sleep(0.05)  # let the exit status arrive
            raise EngineError(
                f"engine {self.label} {self.exit_text()}; cannot send {line!r}"
            ) from None

    def readline(self, timeout: float, waiting_for: str) -> str:
        """The next line of the engine's output (without its newline).

        Args:
            timeout: seconds to wait.
            waiting_for: what the caller expects, for the error message.

        Raises:
            EngineError: no line within ``timeout`` seconds, or the engine's output
                ended (the engine exited).
        """
        try:
            line = self._lines.get(timeout=max(0.0, timeout))
        except queue.Empty:
            raise EngineError(
                f"engine {self.label}: no reply within {timeout:.1f} s while waiting for "
                f"{waiting_for}"
            ) from None
        if line is None:
            self._lines.put(None)
            try:
                self.proc.wait(timeout=1)
            except subprocess.TimeoutExpired:
                pass
            raise EngineError(
                f"engine {self.label} {self.exit_text()} while drl waited for {waiting_for}"
            )
        return line

    def close(self, goodbye: str | None = None, wait: float = 1.0) -> None:
        """Stop the engine: send ``goodbye`` (e.g. ``quit``), close its stdin, wait up to
        ``wait`` seconds, then SIGTERM and finally SIGKILL its process group. Safe to
        call more than once."""
        if not self._finalizer.alive:
            return
        if self.proc.poll() is None:
            try:
                if goodbye is not None:
                    self.send(goodbye)
                assert self.proc.stdin is not None
                self.proc.stdin.close()
            except (EngineError, OSError, ValueError):
                pass
            try:
                self.proc.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(self.pid, signal.SIGTERM)
                    self.proc.wait(timeout=1)
                except (ProcessLookupError, PermissionError, subprocess.TimeoutExpired):
                    pass
        self._finalizer()  # SIGKILL whatever is left of the group, reap, close pipes
