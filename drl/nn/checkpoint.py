"""Atomic checkpoints with integrity checks and fallback to the last good one.

A checkpoint ``ckpt-00000012.pt`` is a ``torch.save`` payload: model and optimizer
state, the network's architecture (``arch``; absent in checkpoints written before there
was a choice, which hold a ``resnet``) and config (``net_config``, see
:func:`drl.nn.describe`; :func:`drl.nn.load` rebuilds the network), counters, RNG
states, the replay-buffer position and the resolved config as YAML. The number in the
name orders the checkpoints of a folder (newest = largest); the training loop numbers
them by iteration (12 = written after iteration 12, 0 = the network before any
training) and keeps the learner steps in ``counters``. Next to it,
``ckpt-00000012.pt.sha256`` holds its SHA-256. Both are written to a temporary name and
renamed into place, the digest last, so a checkpoint without a matching digest is
incomplete or damaged and is never trusted. A write that fails (a full disk) removes its
temporary file; one left by a kill is removed by the next save, and by the training
loop's next start.
"""

from __future__ import annotations

import hashlib
import io
import logging
import os
import re
from pathlib import Path
from typing import Any

import torch

from drl._atomic import remove_partials, set_aside, write_atomic

__all__ = [
    "CheckpointError",
    "list_checkpoints",
    "load_source",
    "load_checkpoint",
    "load_latest",
    "save_checkpoint",
]

log = logging.getLogger(__name__)

_CKPT_RE = re.compile(r"^ckpt-(\d{8,})\.pt$")
_REQUIRED = ("model", "net_config", "counters")


class CheckpointError(RuntimeError):
    """A checkpoint file is missing, truncated, corrupt or not a drl checkpoint."""


def _write_atomic(path: Path, data: bytes) -> None:
    write_atomic(path, data)  # a failed write (e.g. a full disk) leaves no .tmp


def list_checkpoints(directory: str | os.PathLike) -> list[Path]:
    """Checkpoint files ``ckpt-<number>.pt`` in ``directory``, oldest (smallest number) first.

    Damaged ones are listed too (see :func:`load_checkpoint`).
    """
    d = Path(directory)
    if not d.is_dir():
        return []
    found = [(int(m.group(1)), p) for p in d.iterdir() if (m := _CKPT_RE.match(p.name))]
    return [p for _, p in sorted(found)]


def save_checkpoint(
    directory: str | os.PathLike, number: int, payload: dict[str, Any], keep: int = 3
) -> Path:
    """Write ``payload`` as checkpoint ``number`` and delete all but the newest ``keep``.

    Args:
        directory: checkpoint folder (created if missing).
        number: the checkpoint's number in its file name ``ckpt-<number:08d>.pt``
            (>= 0; the training loop passes its iteration). A checkpoint of the same
            number is replaced.
        payload: must hold at least ``model``, ``net_config`` and ``counters``.
        keep: number of checkpoints to keep (>= 1).

    Returns:
        Path of the new checkpoint.

    Raises:
        ValueError: if a required key is missing, ``number < 0`` or ``keep < 1``.
    """
    missing = [k for k in _REQUIRED if k not in payload]
    if missing:
        raise ValueError(f"checkpoint payload lacks {missing}")
    if keep < 1:
        raise ValueError(f"keep must be >= 1, got {keep}")
    if number < 0:
        raise ValueError(f"checkpoint number must be >= 0, got {number}")
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    torch.save(payload, buf)
    data = buf.getvalue()
    path = d / f"ckpt-{number:08d}.pt"
    _write_atomic(path, data)
    _write_atomic(
        path.with_name(path.name + ".sha256"), (hashlib.sha256(data).hexdigest() + "\n").encode()
    )
    for old in list_checkpoints(d)[:-keep]:
        old.unlink(missing_ok=True)
        old.with_name(old.name + ".sha256").unlink(missing_ok=True)
    remove_partials(d)  # left by a process killed inside a write
    return path


def load_checkpoint(
    path: str | os.PathLike, map_location: str | torch.device = "cpu", verify: bool = True
) -> dict[str, Any]:
    """Read and check one checkpoint.

    Args:
        path: the ``.pt`` file.
        map_location: device for the tensors.
        verify: compare against the ``.sha256`` digest written with it (a file without
            a digest, e.g. copied by hand, is accepted when ``verify=False``).

    Returns:
        The payload dict.

    Raises:
        CheckpointError: if the file is missing, its digest is missing or differs
            (truncated or corrupt), it cannot be unpickled, or required keys are absent.
    """
    p = Path(path).expanduser()
    if p.is_dir():
        raise CheckpointError(f"checkpoint {p} is a folder, not a checkpoint file")
    if not p.is_file():
        raise CheckpointError(f"checkpoint {p} does not exist")
    data = p.read_bytes()
    if verify:
        digest_file = p.with_name(p.name + ".sha256")
        if not digest_file.is_file():
            raise CheckpointError(
                f"checkpoint {p} has no {digest_file.name}: its write was "
                "cut short or the file was copied without it"
            )
        expected = digest_file.read_text().strip()
        actual = hashlib.sha256(data).hexdigest()
        if actual != expected:
            raise CheckpointError(
                f"checkpoint {p} is truncated or corrupt ({len(data)} bytes, "
                f"SHA-256 {actual[:12]}... differs from the recorded "
                f"{expected[:12]}...)"
            )
    try:
        payload = torch.load(io.BytesIO(data), map_location=map_location, weights_only=True)
    except Exception as exc:  # torch raises several types for damaged archives
        raise CheckpointError(f"checkpoint {p} is truncated or corrupt: {exc}") from exc
    if not isinstance(payload, dict) or any(k not in payload for k in _REQUIRED):
        raise CheckpointError(f"{p} is not a drl checkpoint (needs keys {list(_REQUIRED)})")
    return payload


def load_latest(
    directory: str | os.PathLike, map_location: str | torch.device = "cpu", quarantine: bool = False
) -> tuple[Path, dict[str, Any]] | None:
    """Load the newest good checkpoint, falling back past damaged ones.

    When a good checkpoint is found past damaged ones, one warning names each damaged
    one and why; when none is good, the error alone says so.

    Args:
        directory: checkpoint folder.
        map_location: device for the tensors.
        quarantine: once a good checkpoint is found, rename the damaged ones newer than
            it to ``*.corrupt`` so that later saves and loads no longer see them. When
            none is good nothing is renamed, so the folder keeps saying what it holds.

    Returns:
        ``(path, payload)``, or None if the folder holds no checkpoint at all.

    Raises:
        CheckpointError: if checkpoints exist but none of them is good (the message
            names each and why).
    """
    paths = list_checkpoints(directory)
    errors = []
    damaged: list[Path] = []
    for p in reversed(paths):
        try:
            payload = load_checkpoint(p, map_location)
        except CheckpointError as exc:
            errors.append(str(exc))
            damaged.append(p)
            continue
        if errors:
            log.warning("%s; using %s instead", "; ".join(errors), p.name)
        if quarantine:
            for bad in damaged:
                set_aside(bad, overwrite=True)
        return p, payload
    if errors:
        raise CheckpointError(f"no good checkpoint in {directory}:\n  " + "\n  ".join(errors))
    return None


def load_source(
    source: str | os.PathLike, map_location: str | torch.device = "cpu"
) -> tuple[Path, dict[str, Any]]:
    """The checkpoint a user names: a checkpoint file, or a run folder's newest good checkpoint.

    A run folder may also be named by its ``checkpoints/`` folder.

    ``~`` is expanded.

    Returns:
        ``(path, payload)`` of the checkpoint read.

    Raises:
        CheckpointError: the path does not exist, the folder holds no checkpoint, or the
            checkpoint (every checkpoint of the folder) is damaged or not a drl
            checkpoint; the message names the path.
    """
    path = Path(source).expanduser()
    if not path.exists():
        raise CheckpointError(f"{path} does not exist (expected a run folder or a checkpoint file)")
    if not path.is_dir():
        return path, load_checkpoint(path, map_location)
    folder = path / "checkpoints" if (path / "checkpoints").is_dir() else path
    found = load_latest(folder, map_location)
    if found is None:
        raise CheckpointError(f"no checkpoint in {path} (looked for ckpt-*.pt in {folder})")
    return found
