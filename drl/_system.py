"""Facts about the machine this process runs on."""

from __future__ import annotations

import os

__all__ = [
    "MAIN_GUARD",
    "available_memory",
    "check_not_in_worker_import",
    "format_bytes",
    "usable_cpus",
]


def usable_cpus() -> int:
    """The number of CPUs this process may run on; at least 1.

    Its affinity mask where the OS has one, else every CPU of the machine.
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - no affinity mask (macOS, Windows)
        return os.cpu_count() or 1


def available_memory() -> tuple[int, str] | None:
    """The bytes of memory this process may still allocate, and where that figure is from.

    psutil's ``available`` memory if psutil is installed, else the kernel's
    ``MemAvailable`` (``/proc/meminfo``), else the free pages of ``os.sysconf``; lowered
    to the room left under this process's cgroup (v2) memory limit, when it has one.

    Returns:
        ``(bytes, source)``, or None when none of them can be read.
    """
    found: tuple[int, str] | None = None
    try:
        import psutil  # type: ignore[import-untyped]

        found = int(psutil.virtual_memory().available), "psutil"
    except (ImportError, OSError, RuntimeError):
        try:
            for line in open("/proc/meminfo", encoding="ascii"):
                if line.startswith("MemAvailable:"):
                    found = int(line.split()[1]) * 1024, "MemAvailable in /proc/meminfo"
        except (OSError, ValueError, IndexError):
            pass
        if found is None:
            try:
                pages = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
                found = int(pages), "free pages, os.sysconf"
            except (ValueError, OSError, AttributeError):
                return None
    try:
        with open("/proc/self/cgroup", encoding="ascii") as fh:
            path = next(ln.split(":", 2)[2].strip() for ln in fh if ln.startswith("0::"))
        base = "/sys/fs/cgroup" + path.rstrip("/")
        with open(base + "/memory.max", encoding="ascii") as fh:
            limit = fh.read().strip()
        if limit != "max":
            with open(base + "/memory.current", encoding="ascii") as fh:
                room = int(limit) - int(fh.read())
            if room < found[0]:
                found = max(room, 0), "the room under the cgroup memory limit"
    except (OSError, ValueError, StopIteration, IndexError):
        pass
    return found


def format_bytes(n: float) -> str:
    """``n`` bytes in the largest unit that keeps it at least 1 (``1.5 GiB``)."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError  # pragma: no cover


MAIN_GUARD = (
    'a script that trains or evaluates must do it under `if __name__ == "__main__":` '
    "(the worker processes import the script)"
)
"""The advice given when a worker process fails at its start."""


def check_not_in_worker_import(what: str) -> None:
    """Refuse to start ``what`` while a worker process imports the script that started it.

    Worker processes are spawned: each imports the main script again (as ``__mp_main__``)
    before it runs its own work.
    A script that calls ``drl.train`` or ``drl.evaluate`` at module level would start
    again in every worker; this stops it with the advice instead.

    Raises:
        RuntimeError: this is a spawned process importing its parent's script.
    """
    import multiprocessing

    # set while a spawned process unpickles its start, which imports the parent's script
    if getattr(multiprocessing.current_process(), "_inheriting", False):
        raise RuntimeError(
            f"{what} was called while a worker process imported the script: {MAIN_GUARD}"
        )
