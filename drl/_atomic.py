"""Atomic file writes: the one helper behind every file that a run folder replaces whole.

:func:`write_atomic` writes ``<name>.tmp`` beside the target, flushes it to disk and
renames it into place (``os.replace``), so a reader (or a process started after a kill)
sees the old file or the new one, never a part. A write that fails (the disk is full, a
signal turns into an exception) removes its ``.tmp`` before the error goes on; a
``.tmp`` left by a process killed inside the write is removed by the next start of
whatever owns the folder (:func:`remove_partials`). A file found damaged is renamed
out of the way, not deleted (:func:`set_aside`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

__all__ = [
    "CORRUPT_SUFFIX",
    "TMP_SUFFIX",
    "error_line",
    "remove_partials",
    "set_aside",
    "tmp_path",
    "write_atomic",
]

TMP_SUFFIX = ".tmp"
CORRUPT_SUFFIX = ".corrupt"


def tmp_path(path: str | os.PathLike) -> Path:
    """The temporary name ``path`` is written under: ``<name>.tmp`` beside it."""
    p = Path(path)
    return p.with_name(p.name + TMP_SUFFIX)


def error_line(err: BaseException) -> str:
    """One line for an error: ``PATH: reason`` for a file error, else ``str(err)``.

    ``PATH: reason`` is for an ``OSError`` naming the file that could not be read or
    written; any other error gives ``str(err)``.
    """
    if isinstance(err, OSError) and err.filename and err.strerror:
        return f"{err.filename}: {err.strerror}"
    return str(err)


def write_atomic(
    path: str | os.PathLike,
    data: bytes | str | Callable[[BinaryIO], object],
    *,
    fsync: bool = True,
    rename: bool = True,
) -> Path:
    """Write ``data`` to ``path`` atomically.

    Args:
        path: the target file (its folder must exist).
        data: bytes, text (written as UTF-8), or a function that writes to the open
            binary file it is given.
        fsync: flush the file to disk before the rename.
        rename: rename the temporary file into place; with False the caller renames it
            (``os.replace(returned, path)``) once something else is written, and removes
            it if that fails.

    Returns:
        ``path``, or the temporary file when ``rename`` is False.

    Raises:
        OSError: the write failed; the temporary file is removed and ``path`` is left
            as it was.
    """
    target = Path(path)
    tmp = tmp_path(target)
    try:
        with open(tmp, "wb") as fh:
            if isinstance(data, str):
                fh.write(data.encode("utf-8"))
            elif isinstance(data, bytes | bytearray | memoryview):
                fh.write(data)
            else:
                data(fh)
            fh.flush()
            if fsync:
                os.fsync(fh.fileno())
        if not rename:
            return tmp
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return target


def remove_partials(
    directory: str | os.PathLike, keep: Callable[[Path], bool] | None = None
) -> list[Path]:
    """Remove the ``*.tmp`` files (writes cut short) in ``directory``; returns the removed paths.

    Those ``keep`` says to keep stay; nothing is removed if the folder does not exist.
    """
    d = Path(directory)
    if not d.is_dir():
        return []
    removed = []
    for p in sorted(d.glob("*" + TMP_SUFFIX)):
        if p.is_file() and not (keep is not None and keep(p)):
            p.unlink(missing_ok=True)
            removed.append(p)
    return removed


def set_aside(path: str | os.PathLike, *, overwrite: bool = False) -> Path:
    """Rename a damaged file to ``<name>.corrupt`` beside it; returns the new path.

    Later scans no longer read it, and what it held is kept to look at.

    Args:
        path: the damaged file.
        overwrite: replace an earlier ``<name>.corrupt``; without it the first free
            ``<name>.K.corrupt`` (K = 1, 2, ...) is taken, so nothing set aside is lost.
    """
    p = Path(path)
    target = p.with_name(p.name + CORRUPT_SUFFIX)
    k = 1
    while not overwrite and target.exists():
        target = p.with_name(f"{p.name}.{k}{CORRUPT_SUFFIX}")
        k += 1
    os.replace(p, target)
    return target
