"""An external engine process, read line by line and shut down on every exit path.

The engine is started in its own process group, and its output is read with timeouts.

The engine runs in a new session (its own process group), so a Ctrl-C in the terminal
reaches only drl, which then stops the engine itself; on Linux the engine also gets
SIGKILL when the thread that started it dies (``PR_SET_DEATHSIG``), so even a drl
process killed with SIGKILL leaves no engine behind. :meth:`EngineProcess.close` is
idempotent and also runs from a ``weakref`` finalizer (at garbage collection or at
interpreter exit).

Closing never waits on the engine's pipes: the threads that read them are daemon threads
that own their streams (only they close them), and :meth:`EngineProcess.close` stops
the engine's process group and every descendant found under ``/proc`` before it (one
that left the group with ``setsid`` too), then waits a moment for its output to end. A
pipe still held open by a process it could not reach is named in :attr:`EngineProcess.
close_note` instead of hanging drl.

Each line the engine writes is read through :class:`~drl.agents.engines.records.RecordReader`
with the cap :data:`~drl.agents.engines.records.HUB_LINE_LIMIT`: an endless line stops at the
cap with an error (stdout) or is cut to an excerpt (stderr), and memory stays bounded.
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
from pathlib import Path
from typing import IO, Any

from drl.agents.engines.records import HUB_LINE_LIMIT, RecordReader, RecordTooLong, quote_record

__all__ = ["EngineError", "EngineProcess"]


class EngineError(RuntimeError):
    """An external engine misbehaved: garbage or an illegal move, too slow, or exited.

    The message names the engine (and the position, when there is one).
    """


def _deathsig() -> None:  # pragma: no cover - runs in the child between fork and exec
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_DEATHSIG
    except (OSError, AttributeError):
        pass


def _stat(pid: int | str) -> tuple[str, int, int, int] | None:
    """``(state, ppid, pgid, start time)`` of a process from ``/proc``, or None."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
        fields = text[text.rindex(")") + 2 :].split()
        return fields[0], int(fields[1]), int(fields[2]), int(fields[19])
    except (OSError, ValueError, IndexError):
        return None


def _descendants(pid: int) -> dict[int, int]:
    """Live descendants of ``pid`` -> their start time (to tell a reused pid).

    Found in one pass over ``/proc``; empty where there is no ``/proc``.
    """
    children: dict[int, list[tuple[int, int]]] = collections.defaultdict(list)
    try:
        entries = [e for e in os.listdir("/proc") if e.isdigit()]
    except OSError:
        return {}
    for entry in entries:
        st = _stat(entry)
        if st is not None and st[0] != "Z":
            children[st[1]].append((int(entry), st[3]))
    found: dict[int, int] = {}
    frontier = [pid]
    while frontier:
        for child, start in children.get(frontier.pop(), ()):
            if child not in found:
                found[child] = start
                frontier.append(child)
    return found


def _kill_tree(tree: dict[int, int], pgid: int) -> list[str]:
    """SIGKILL the processes of ``tree`` (pid -> start time) that are still the same.

    Returns a note for each process that could not be signalled.
    """
    missed = []
    for pid, start in tree.items():
        st = _stat(pid)
        if st is None or st[3] != start or st[0] == "Z":
            continue  # gone (or the pid was reused)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        except PermissionError:
            missed.append(f"pid {pid} (not permitted to stop it)")
    return missed


def _kill_group(proc: subprocess.Popen, pgid: int, tree: dict[int, int]) -> None:
    """SIGKILL the engine's process group and its descendants, then reap the engine.

    The descendants are those in ``tree`` (found by :meth:`EngineProcess.close`) or found
    now. This is the finalizer's action. The engine's stdout and stderr are left to the
    threads that read them.
    """
    if proc.poll() is None:
        tree.update(_descendants(pgid))
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    _kill_tree(tree, pgid)
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:  # pragma: no cover - a process that ignores SIGKILL
        pass
    try:
        if proc.stdin is not None:
            proc.stdin.close()
    except OSError:
        pass


class _Tail:
    """A queue-like sink that keeps the last lines only."""

    def __init__(self, lines: collections.deque[str]) -> None:
        self.lines = lines

    def put(self, line: str | RecordTooLong | None) -> None:
        if isinstance(line, RecordTooLong):
            self.lines.append(line.describe())
        elif line is not None:
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
        self.close_note = ""
        """After :meth:`close`: what it could not reach (a process it could not stop, an
        output pipe still held open), else ``""``."""
        self._sent: collections.deque[str] = collections.deque(maxlen=8)
        self._lines: queue.Queue[str | RecordTooLong | None] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=20)
        self._stdout_tail: collections.deque[str] = collections.deque(maxlen=20)
        self._tree: dict[int, int] = {}
        self._finalizer = weakref.finalize(self, _kill_group, self.proc, self.pid, self._tree)
        sink: Any = self._lines if keep_output else _Tail(self._stdout_tail)
        self._threads = [
            threading.Thread(
                target=self._pump, args=(self.proc.stdout, sink, keep_output), daemon=True
            ),
            threading.Thread(
                target=self._pump, args=(self.proc.stderr, _Tail(self._stderr), False), daemon=True
            ),
        ]  # the threads hold no reference to self: the finalizer can run at GC
        for thread in self._threads:
            thread.start()

    @staticmethod
    def _pump(stream: IO[bytes], sink: Any, stop_at_long: bool = True) -> None:
        """Put each line of ``stream`` into ``sink``, then None at its end.

        A line over the cap is put as its :class:`RecordTooLong`; with ``stop_at_long`` the
        reading then ends (the reader of the queue stops the engine), else the rest of the
        line is skipped. Only this thread closes ``stream``.
        """
        reader = RecordReader(stream.read1, b"\n", HUB_LINE_LIMIT, "line")  # type: ignore[attr-defined]
        try:
            while True:
                try:
                    raw = reader.next()
                except RecordTooLong as err:
                    sink.put(err)
                    if stop_at_long:
                        break
                    if not err.complete:
                        reader.skip()
                    continue
                if raw is None:
                    break
                sink.put(raw.decode("utf-8", "replace").rstrip("\r"))
        except (OSError, ValueError):
            pass
        sink.put(None)  # end of output
        try:
            stream.close()
        except OSError:
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
                f"engine {self.label} {self.exit_text()}; cannot send {quote_record(line)}"
            ) from None
        self._sent.append(line.strip())

    def readline(self, timeout: float, waiting_for: str, budget: float | None = None) -> str:
        """The next line of the engine's output (without its newline).

        Args:
            timeout: seconds to wait (0 or less: only a line already read).
            waiting_for: what the caller expects, for the error message.
            budget: the seconds the message names (default ``timeout``): the caller's
                whole allowance when ``timeout`` is what is left of it.

        Raises:
            EngineError: no line within ``timeout`` seconds; the engine's output ended
                (the engine exited); a line over :data:`~drl.agents.engines.records.
                HUB_LINE_LIMIT` bytes (quoted as an excerpt); or a line that is one of
                the last lines drl sent (an engine that echoes its input, e.g.
                ``cat``: it would never answer).
        """
        try:
            line = self._lines.get(timeout=max(0.0, timeout))
        except queue.Empty:
            shown = max(0.0, timeout if budget is None else budget)
            raise EngineError(
                f"engine {self.label}: no reply within {shown:.1f} s while waiting for "
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
        if isinstance(line, RecordTooLong):
            self._lines.put(None)  # the reading stopped there
            raise EngineError(
                f"engine {self.label} sent a {line.describe()} while drl waited for {waiting_for}"
            )
        if line.strip() and line.strip() in self._sent:
            raise EngineError(
                f"engine {self.label} echoes its input (it sent back {quote_record(line)}) "
                f"while drl waited for {waiting_for}; is it an engine speaking this protocol?"
            )
        return line

    def close(self, goodbye: str | None = None, wait: float = 1.0) -> str:
        """Stop the engine, its process group and every descendant; safe to call more than once.

        Sends ``goodbye`` (e.g. ``quit``), closes the engine's stdin, waits up to ``wait``
        seconds, then sends SIGTERM and finally SIGKILL to its process group and every
        descendant (found under ``/proc`` before the engine is told to stop, so one that
        left the group is found too). Then waits at most a second for the engine's output
        to end; this never blocks on a pipe that a process out of reach still holds.

        Args:
            goodbye: a line sent to the engine first, or None.
            wait: seconds the engine is given to exit on its own.

        Returns:
            :attr:`close_note`: ``""``, or what could not be reached (for messages).
        """
        if not self._finalizer.alive:
            return self.close_note
        if self.proc.poll() is None:
            self._tree.update(_descendants(self.pid))
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
        missed = _kill_tree(self._tree, self.pid) if self._tree else []
        self._finalizer()  # SIGKILL the group and the descendants found, reap
        deadline = time.monotonic() + 1.0
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        if any(thread.is_alive() for thread in self._threads):
            missed.append(
                "its output pipes, still held open by a process outside its process group "
                "(drl stopped reading them)"
            )
        if missed:
            self.close_note = (
                f"engine {self.label} (pid {self.pid}): stopping it did not reach "
                + "; ".join(missed)
            )
        return self.close_note
