"""Checks that output paths can be written, made before the work that fills them starts.

A command that plays for minutes or hours must not find out at the end that it cannot
write what it played. These checks create missing parent folders (as the writers do) and
leave existing files unchanged. This module imports nothing else of drl.
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

__all__ = ["check_writable_dir", "check_writable_file"]


def _reason(err: OSError) -> str:
    return err.strerror or str(err)


def _check_parents(p: Path) -> None:
    """``mkdir(parents=True)`` says "File exists" when a parent is a file: say which."""
    for parent in p.parents:
        if parent.exists():
            if not parent.is_dir():
                raise NotADirectoryError(errno.ENOTDIR, f"{parent} is a file, not a folder")
            return


def _label(path: str | os.PathLike, key: str | None) -> str:
    return f"{key}={path}" if key else str(path)


def check_writable_file(path: str | os.PathLike, key: str | None = None) -> Path:
    """Make sure a file can be written at ``path``.

    Missing parent folders are created; an existing file is opened for appending and
    left as it is; a file made by the check is removed again.

    Args:
        path: the file.
        key: the setting that named it, for the message (e.g. ``"pdn"``), or None.

    Returns:
        The path.

    Raises:
        ValueError: ``"{key}={path}: cannot write this file (reason)"`` (without a key:
            ``"{path}: ..."``), e.g. when the path is a folder, a parent is a file, or
            the folder is not writable.
    """
    p = Path(path).expanduser()
    try:
        if p.is_dir():
            raise IsADirectoryError(errno.EISDIR, "it is a folder", str(p))
        _check_parents(p)
        p.parent.mkdir(parents=True, exist_ok=True)
        existed = p.exists()
        with open(p, "a", encoding="utf-8"):
            pass
        if not existed:
            p.unlink()
    except OSError as err:
        raise ValueError(f"{_label(path, key)}: cannot write this file ({_reason(err)})") from None
    return p


def check_writable_dir(path: str | os.PathLike, key: str | None = None) -> Path:
    """Make sure files can be written in the folder ``path`` (created if missing).

    Args:
        path: the folder.
        key: the setting that named it, for the message (e.g. ``"hydra.run.dir"``), or
            None.

    Returns:
        The path.

    Raises:
        ValueError: ``"{key}={path}: cannot write in this folder (reason)"`` (without a
            key: ``"{path}: ..."``).
    """
    p = Path(path).expanduser()
    try:
        if p.exists() and not p.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, "it is a file, not a folder")
        _check_parents(p)
        p.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=p, prefix=".write-check-"):
            pass
    except OSError as err:
        raise ValueError(
            f"{_label(path, key)}: cannot write in this folder ({_reason(err)})"
        ) from None
    return p
