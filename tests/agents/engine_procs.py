"""Helpers of the external-engine tests: no process may outlive a test.

``no_leftover_processes`` is used as an autouse fixture by the test modules of the
``hub`` and ``dxp`` agents: it records the test process's descendants before the test
and fails, naming every survivor (pid and command line), if new ones are still running
a few seconds after it; survivors are then killed so that one failure does not spill
into the next test.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

DRL_HUB = [sys.executable, "-m", "drl.cli.hub"]
"""The command line of ``drl-hub`` for these tests (the interpreter running them)."""

ROOT = Path(__file__).resolve().parents[2]


def hub_cmd(*args: str) -> str:
    """A ``cmd=`` value: ``drl-hub`` with ``args`` (quoted for :func:`shlex.split`)."""
    import shlex

    return " ".join(shlex.quote(a) for a in [*DRL_HUB, *args])


def descendants(pid: int) -> dict[int, str]:
    """Live (non-zombie) descendants of ``pid``: pid -> command line, read from /proc."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            fields = stat[stat.rindex(")") + 2 :].split()
            if fields[0] == "Z":
                continue
            parents[int(entry.name)] = int(fields[1])
        except (OSError, ValueError, IndexError):
            continue
    found: dict[int, str] = {}
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        for child, ppid in parents.items():
            if ppid == parent and child not in found:
                try:
                    cmd = (Path("/proc") / str(child) / "cmdline").read_bytes()
                    found[child] = cmd.replace(b"\0", b" ").decode(errors="replace").strip()
                except OSError:
                    found[child] = "?"
                frontier.append(child)
    return found


def alive(pid: int) -> bool:
    """True if ``pid`` is a running (non-zombie) process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2 :].split()[0] != "Z"


def wait_gone(pid: int, seconds: float = 5.0) -> bool:
    """Wait until ``pid`` has exited; True if it did."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return not alive(pid)


@pytest.fixture
def no_leftover_processes():
    if not Path("/proc/self/stat").exists():
        pytest.skip("needs /proc")
    me = os.getpid()
    before = set(descendants(me))
    yield
    deadline = time.monotonic() + 5.0
    while True:
        new = {p: c for p, c in descendants(me).items() if p not in before}
        if not new or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    for pid in new:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    assert not new, f"processes left running after the test: {new}"
