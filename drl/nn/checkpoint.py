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
renamed into place, the digest last, so a checkpoint whose digest disagrees is
damaged and is never trusted. In a run folder a checkpoint without its digest is taken as
incomplete too; a checkpoint file a user names (:func:`load_source`), e.g. shared as a
single file, is accepted without its digest, with a warning, when it loads and its
payload passes the checks. Every payload read is checked key by key
(:func:`drl.nn._payload.check_payload`) before anything uses it; a malformed one is one
:class:`CheckpointError` naming the file and the key. Every checkpoint written records
the drl version (``drl_version``) and the code version (``code_version``: the git commit
of the source tree, with ``+dirty`` when it has uncommitted changes, or ``unknown``). A
write that fails (a full disk) removes its temporary file; one left by a kill is removed
by the next save, and by the training loop's next start.
"""

from __future__ import annotations

import hashlib
import io
import logging
import os
import re
import warnings
from pathlib import Path
from typing import Any

import torch

from drl._atomic import remove_partials, set_aside, write_atomic
from drl.nn._payload import check_payload
from drl.nn.errors import CheckpointError
from drl.nn.versions import code_version, drl_version

__all__ = [
    "CheckpointError",
    "describe_checkpoint",
    "list_checkpoints",
    "load_source",
    "load_checkpoint",
    "load_latest",
    "save_checkpoint",
]

log = logging.getLogger(__name__)

_CKPT_RE = re.compile(r"^ckpt-(\d{8,})\.pt$")
_REQUIRED = ("model", "net_config", "counters")


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
        payload: must hold at least ``model``, ``net_config`` and ``counters``;
            ``drl_version`` and ``code_version`` are added when it has none.
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
    payload = {"drl_version": drl_version(), "code_version": code_version(), **payload}
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
    path: str | os.PathLike,
    map_location: str | torch.device = "cpu",
    verify: bool = True,
    *,
    require_digest: bool = True,
) -> dict[str, Any]:
    """Read and check one checkpoint.

    Args:
        path: the ``.pt`` file.
        map_location: device for the tensors.
        verify: compare against the ``.sha256`` digest written with it (False: do not
            look at the digest at all).
        require_digest: refuse a file without its digest (as in a run folder, where it
            means a write cut short); False accepts it with a warning once it has
            loaded and passed the checks (a checkpoint shared as a single file).

    Returns:
        The payload dict.

    Raises:
        CheckpointError: if the file is missing, its digest differs (truncated or
            corrupt) or is missing (with ``require_digest``), it cannot be unpickled, a
            required key is absent, or a key holds the wrong kind of value (see
            :func:`drl.nn._payload.check_payload`); the message names the file and the key.
    """
    p = Path(path).expanduser()
    if p.is_dir():
        raise CheckpointError(f"checkpoint {p} is a folder, not a checkpoint file")
    if not p.is_file():
        raise CheckpointError(f"checkpoint {p} does not exist")
    data = p.read_bytes()
    digest_file = p.with_name(p.name + ".sha256")
    unchecked = verify and not digest_file.is_file()
    if unchecked and require_digest:
        raise CheckpointError(
            f"checkpoint {p} has no {digest_file.name}: its write was "
            "cut short or the file was copied without it"
        )
    if verify and not unchecked:
        expected = digest_file.read_text(errors="replace").strip()
        actual = hashlib.sha256(data).hexdigest()
        if actual != expected:
            raise CheckpointError(
                f"checkpoint {p} is truncated or corrupt ({len(data)} bytes, "
                f"SHA-256 {actual[:12]}... differs from the recorded "
                f"{expected[:12]}...)"
            )
    if unchecked:
        _check_archive_crcs(p, data)
    try:
        payload = torch.load(io.BytesIO(data), map_location=map_location, weights_only=True)
    except Exception as exc:  # torch raises several types for damaged archives
        raise CheckpointError(f"checkpoint {p} is truncated or corrupt: {exc}") from exc
    check_payload(payload, f"checkpoint {p}", _REQUIRED)
    if unchecked:
        warnings.warn(
            f"checkpoint {p} has no {digest_file.name}: its archive's own checksums "
            "and its payload's fields were checked, not its SHA-256",
            UserWarning,
            stacklevel=2,
        )
    return payload


def _check_archive_crcs(p: Path, data: bytes) -> None:
    """Check the CRC-32 of every entry of a checkpoint's zip archive (torch does not).

    Raises:
        CheckpointError: an entry's bytes do not match its CRC-32, or the archive cannot
            be read.
    """
    import zipfile

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            bad = archive.testzip()
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise CheckpointError(f"checkpoint {p} is truncated or corrupt: {exc}") from None
    if bad is not None:
        raise CheckpointError(
            f"checkpoint {p} is corrupt: entry {bad} does not match its CRC-32 (and the "
            "file has no digest to say more)"
        )


def describe_checkpoint(path: str | os.PathLike, payload: dict[str, Any]) -> str:
    """One line saying what a checkpoint holds and which code wrote it.

    ``checkpoint runs/x/agent.pt: arch sparse, trained on english, iteration 36,
    drl 0.1.0, code 3f2a9c1`` (``unknown`` for what an older checkpoint does not record).
    """
    counters = payload.get("counters") or {}
    parts = [f"arch {payload.get('arch') or 'resnet'}"]
    if payload.get("variant"):
        parts.append(f"trained on {payload['variant']}")
    if counters.get("iteration") is not None:
        parts.append(f"iteration {counters['iteration']}")
    parts.append(f"drl {payload.get('drl_version') or 'unknown'}")
    parts.append(f"code {payload.get('code_version') or 'unknown'}")
    return f"checkpoint {path}: " + ", ".join(parts)


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

    ``~`` is expanded. A checkpoint file named without its ``.sha256`` beside it is
    accepted with a warning when it loads and passes the checks; a digest that disagrees
    is refused.

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
        return path, load_checkpoint(path, map_location, require_digest=False)
    folder = path / "checkpoints" if (path / "checkpoints").is_dir() else path
    found = load_latest(folder, map_location)
    if found is None:
        raise CheckpointError(f"no checkpoint in {path} (looked for ckpt-*.pt in {folder})")
    return found
