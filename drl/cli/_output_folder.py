"""``drl-eval``'s output folder: made unique and locked for one run.

It is never one holding an earlier evaluation's results.

A folder is locked with ``flock`` on the folder itself (deleting ``.lock`` cannot unlock
it; ``.lock`` only names the pid for the message); where folders cannot be locked (some
network file systems), ``.lock`` is. This module imports nothing of drl's but
:func:`drl._atomic.error_line`.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from drl._atomic import error_line

__all__ = [
    "LOCK_NAME",
    "claim_output_dir",
    "fresh_folder",
    "refuse_earlier_results",
    "release_output_dir",
    "release_output_dirs",
]

LOCK_NAME = ".lock"

# Output folders this process holds: path -> (open file descriptor, the ``.lock`` file is
# the lock itself).
_CLAIMS: dict[str, tuple[int, bool]] = {}


def _holder(folder: str) -> str:
    try:
        pid = int(Path(folder, LOCK_NAME).read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return "another drl-eval"
    return f"another drl-eval (pid {pid})"


def claim_output_dir(folder: str | os.PathLike, key: str | None = None) -> bool:
    """Lock the output folder ``folder`` (existing) for this process.

    It stays locked until :func:`release_output_dir` or the end of the process.

    Returns:
        True if it was locked now, False if this process already held it.

    Raises:
        ValueError: ``"{key}={folder}: another drl-eval (pid N) is writing its results
            there; ..."``, or the folder cannot be opened.
    """
    try:
        import fcntl
    except ImportError:  # (no flock: nothing to lock with)
        return False
    path = os.path.realpath(folder)
    if path in _CLAIMS:
        return False
    label = f"{key}={folder}" if key else str(folder)
    lock_file = False
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as err:
        raise ValueError(f"{label}: cannot open this folder ({error_line(err)})") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise
        except OSError:  # folders cannot be locked here: lock the .lock file
            os.close(fd)
            fd = os.open(os.path.join(path, LOCK_NAME), os.O_RDWR | os.O_CREAT, 0o644)
            lock_file = True
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise ValueError(
            f"{label}: {_holder(path)} is writing its results there; choose another "
            "folder (hydra.run.dir=...)"
        ) from None
    except OSError as err:
        os.close(fd)
        raise ValueError(f"{label}: cannot lock this folder ({error_line(err)})") from None
    _CLAIMS[path] = (fd, lock_file)
    with contextlib.suppress(OSError):  # (only for the message of a refused run)
        if lock_file:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        else:
            Path(path, LOCK_NAME).write_text(f"{os.getpid()}\n")
    return True


def release_output_dir(folder: str | os.PathLike) -> None:
    """Unlock a folder locked by :func:`claim_output_dir` (and remove its ``.lock``)."""
    fd, lock_file = _CLAIMS.pop(os.path.realpath(folder), (-1, False))
    if fd < 0:
        return
    if not lock_file:  # (the lock is the folder: the file only named the pid)
        with contextlib.suppress(OSError):
            Path(folder, LOCK_NAME).unlink()
    os.close(fd)


def release_output_dirs() -> None:
    """Unlock every folder this process holds."""
    for folder in list(_CLAIMS):
        release_output_dir(folder)


def fresh_folder(folder: str, key: str) -> Path:
    """Create the first of ``folder``, ``folder-1``, ``folder-2``, ... that did not exist.

    Returns the folder created. ``mkdir`` fails on an existing one, so two runs started in
    the same second never get the same folder.

    Raises:
        ValueError: naming ``key``: the folder cannot be made, or 10,000 exist.
    """
    base = Path(folder).expanduser()
    try:
        base.parent.mkdir(parents=True, exist_ok=True)
        for i in range(10_000):
            path = base if i == 0 else base.with_name(f"{base.name}-{i}")
            try:
                path.mkdir()
            except FileExistsError:
                continue
            return path
    except OSError as err:
        raise ValueError(
            f"{key}={folder}: cannot write in this folder ({error_line(err)})"
        ) from None
    raise ValueError(f"{key}={folder}: 10,000 folders of that name exist already")


def refuse_earlier_results(folder: str, key: str) -> None:
    """A folder holding an earlier evaluation's ``results.json`` is not written over.

    Raises:
        ValueError: naming ``key``, the file's status and its games.
    """
    found = Path(folder, "results.json")
    if not found.exists():
        return
    try:
        body = json.loads(found.read_text(encoding="utf-8"))
        what = f"status {body['status']}, {body['games_finished']} games"
    except (OSError, ValueError, KeyError, TypeError):
        what = "unreadable"
    raise ValueError(
        f"{key}={folder}: holds the results of an earlier evaluation (results.json, {what}); "
        "choose another folder (hydra.run.dir=...), or move its files away first"
    )
