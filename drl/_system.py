"""Facts about the machine this process runs on."""

from __future__ import annotations

import os

__all__ = ["usable_cpus"]


def usable_cpus() -> int:
    """The number of CPUs this process may run on; at least 1.

    Its affinity mask where the OS has one, else every CPU of the machine.
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - no affinity mask (macOS, Windows)
        return os.cpu_count() or 1
