"""The run folder's lock: one training process at a time.

:func:`lock_run_dir` takes an exclusive ``fcntl.flock`` on the run folder itself (a
folder opened read-only), which no file deletion can undo, and one on ``.lock``, into
which it writes the holder's pid and start time for the message a second process gets
(the kernel drops both when the process ends, however it ends). :meth:`RunLock.check`,
called before each write of games and checkpoints, writes ``.lock`` again if it was
deleted, and stops the run if the folder lock could not be taken (a file system without
``flock`` on folders) and ``.lock`` is no longer the file this process locked.
"""

from __future__ import annotations

import errno
import fcntl
import json
import logging
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    pass

__all__ = ["LOCK_NAME", "RunFolderError", "RunLock", "lock_run_dir"]

log = logging.getLogger(__name__)

LOCK_NAME = ".lock"


class RunFolderError(RuntimeError):
    """The run folder cannot be used.

    It cannot be created or written, or another training process is using it.
    """


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


class RunLock:
    """The exclusive lock of one run folder.

    Held from :func:`lock_run_dir` until :meth:`release` (or the end of the process). Use it
    as a context manager.
    """

    def __init__(
        self, run_dir: Path, fd: int, dir_fd: int | None = None, started: str | None = None
    ) -> None:
        self.run_dir = run_dir
        self.path = run_dir / LOCK_NAME
        self._fd: int | None = fd
        self._dir_fd = dir_fd
        self.started = started or _now()  # kept when .lock is written again

    @property
    def holds_folder(self) -> bool:
        """Whether the folder itself is locked (not only ``.lock``)."""
        return self._dir_fd is not None

    def check(self) -> None:
        """Make sure this process still holds the folder: call before writing into it.

        A ``.lock`` that was deleted or replaced is written again when the folder itself
        is locked (no other training process can have started in it).

        Raises:
            RunFolderError: ``.lock`` was deleted or replaced and only ``.lock`` was
                locked, so another process may be training in the folder; or it cannot
                be written again.
        """
        if self._fd is None:
            raise RunFolderError(f"run folder {self.run_dir} is no longer locked by this process")
        if _same_file(self._fd, self.path):
            return
        if self._dir_fd is None:
            raise RunFolderError(
                f"the lock file {self.path} was deleted or replaced while this process "
                f"trained in {self.run_dir}, so another training process may have started "
                "in it; stopping here (every finished game and checkpoint is saved). Make "
                "sure one process at a time trains in the folder, then run again"
            )
        try:
            fd = _take_lock_file(self.run_dir, self.started)
        except RunFolderError as err:
            raise RunFolderError(
                f"the lock file {self.path} was deleted while this process trained in "
                f"{self.run_dir}, and it cannot be written again: {err}"
            ) from None
        os.close(self._fd)
        self._fd = fd
        log.warning("%s was deleted; written again (this process holds the folder)", self.path)

    def release(self) -> None:
        """Drop the lock (the ``.lock`` file stays; it is taken over by the next holder)."""
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
        if self._dir_fd is not None:
            fcntl.flock(self._dir_fd, fcntl.LOCK_UN)
            os.close(self._dir_fd)
            self._dir_fd = None

    def __enter__(self) -> RunLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _os_message(err: OSError) -> str:
    return err.strerror or str(err)


def _same_file(fd: int, path: Path) -> bool:
    try:
        st = os.stat(path)
    except OSError:
        return False
    own = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (own.st_dev, own.st_ino)


def _busy(err: OSError) -> bool:
    return err.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES)


def _holder(d: Path, dir_stat: os.stat_result | None) -> str:
    """Who holds the folder's lock.

    Read from ``.lock``, else (the file deleted) from the kernel's table of locks on the
    folder itself (Linux).
    """
    try:
        info = json.loads((d / LOCK_NAME).read_text(encoding="utf-8"))
        return f"pid {info['pid']}, started {info['started']}"
    except (OSError, ValueError, KeyError, TypeError):
        pass
    if dir_stat is not None:
        dev = f"{os.major(dir_stat.st_dev):02x}:{os.minor(dir_stat.st_dev):02x}:{dir_stat.st_ino}"
        try:
            with open("/proc/locks", encoding="ascii") as fh:
                for line in fh:
                    parts = line.split()
                    if "->" not in parts and len(parts) >= 6 and parts[5] == dev:
                        return f"pid {parts[4]}"
        except OSError:
            pass
    return "pid unknown"


def _in_use(d: Path, dir_stat: os.stat_result | None) -> RunFolderError:
    return RunFolderError(
        f"run folder {d} is in use by another training process ({_holder(d, dir_stat)}); "
        f"wait for it to end or stop it, or pass another run_dir (lock file {d / LOCK_NAME})"
    )


def _take_lock_file(d: Path, started: str | None = None) -> int:
    """Open, lock and fill in ``d/.lock``; the locked file descriptor."""
    path = d / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as err:
        raise RunFolderError(f"cannot write in run folder {d}: {_os_message(err)}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as err:
        os.close(fd)
        if not _busy(err):
            raise RunFolderError(f"cannot lock run folder {d}: {_os_message(err)}") from None
        raise _in_use(d, None) from None
    try:
        os.ftruncate(fd, 0)
        info = {"pid": os.getpid(), "started": started or _now()}
        os.pwrite(fd, (json.dumps(info) + "\n").encode(), 0)
    except OSError as err:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
        raise RunFolderError(f"cannot write in run folder {d}: {_os_message(err)}") from None
    return fd


def _lock_folder(d: Path) -> int | None:
    """Lock the folder itself; None where its file system cannot lock a folder."""
    try:
        fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as err:
        log.warning("cannot open run folder %s to lock it (%s); locking %s only", d, err, LOCK_NAME)
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as err:
        st = os.fstat(fd)
        os.close(fd)
        if _busy(err):
            raise _in_use(d, st) from None
        log.warning("cannot lock run folder %s itself (%s); locking %s only", d, err, LOCK_NAME)
        return None
    return fd


def lock_run_dir(run_dir: str | os.PathLike) -> RunLock:
    """Create ``run_dir`` if missing and lock it for this process.

    The folder itself is locked (deleting ``.lock`` does not unlock it), and ``.lock``,
    which names the holder.

    Args:
        run_dir: the run folder.

    Returns:
        The held :class:`RunLock`.

    Raises:
        RunFolderError: the folder cannot be created or written (the message names the
            path and the reason), or another process holds its lock (the message names
            the folder and the holder's pid and start time).
    """
    d = Path(run_dir)
    for p in (d, *d.parents):
        if p.exists():
            if not p.is_dir():
                what = "exists but is a file" if p == d else f"lies under {p}, which is a file"
                raise RunFolderError(f"run folder {d} {what}, not a folder; pass another run_dir")
            break
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise RunFolderError(f"cannot create run folder {d}: {_os_message(err)}") from None
    dir_fd = _lock_folder(d)
    started = _now()
    try:
        fd = _take_lock_file(d, started)
    except BaseException:
        if dir_fd is not None:
            os.close(dir_fd)
        raise
    return RunLock(d, fd, dir_fd, started)


#: Largest session, game or iteration number a run folder's files may hold; a larger one
#: (a damaged or hand-edited file) is not a number the run wrote, and is skipped.
