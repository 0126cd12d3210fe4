"""A run folder's own bookkeeping: its lock, its session log, and the checks that decide
whether a configuration may continue what the folder holds.

- ``.lock``: one training process at a time. :func:`lock_run_dir` takes an exclusive
  ``fcntl.flock`` on it (the kernel drops the lock when the process ends, however it
  ends) and writes the holder's pid and start time into it for the message a second
  process gets.
- ``sessions.jsonl``: one line per start of training in the folder (``session``,
  ``pid``, ``started``, ``resumed_from``, ``iteration``, ``learner_steps``, ``games``).
  The session number is part of every self-play seed, so that no two starts of a run
  ever play from the same seed.
- :func:`check_checkpoint` and :func:`check_config_file` refuse to continue a folder
  under another game, encoding or network; :func:`refuse_without_checkpoint` refuses to
  start a folder afresh when it holds work that a new network would be mixed with.
"""

from __future__ import annotations

import dataclasses
import errno
import fcntl
import json
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "RunFolderError",
    "RunLock",
    "check_checkpoint",
    "check_config_file",
    "encoding_of",
    "lock_run_dir",
    "refuse_without_checkpoint",
    "start_session",
]

LOCK_NAME = ".lock"
SESSIONS_NAME = "sessions.jsonl"


class RunFolderError(RuntimeError):
    """The run folder cannot be used: not creatable or writable, or in use by another
    training process."""


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


class RunLock:
    """The exclusive lock of one run folder, held from :func:`lock_run_dir` until
    :meth:`release` (or the end of the process). Use it as a context manager."""

    def __init__(self, run_dir: Path, fd: int) -> None:
        self.run_dir = run_dir
        self.path = run_dir / LOCK_NAME
        self._fd: int | None = fd

    def release(self) -> None:
        """Drop the lock (the ``.lock`` file stays; it is taken over by the next holder)."""
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> RunLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _os_message(err: OSError) -> str:
    return err.strerror or str(err)


def lock_run_dir(run_dir: str | os.PathLike) -> RunLock:
    """Create ``run_dir`` if missing and lock it for this process.

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
    path = d / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as err:
        raise RunFolderError(f"cannot write in run folder {d}: {_os_message(err)}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as err:
        if err.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            os.close(fd)
            raise RunFolderError(f"cannot lock run folder {d}: {_os_message(err)}") from None
        holder = os.pread(fd, 4096, 0).decode("utf-8", "replace")
        os.close(fd)
        try:
            info = json.loads(holder)
            who = f"pid {info['pid']}, started {info['started']}"
        except (ValueError, KeyError, TypeError):
            who = "pid unknown"
        raise RunFolderError(
            f"run folder {d} is in use by another training process ({who}); wait for it "
            f"to end or stop it, or pass another run_dir (lock file {path})"
        ) from None
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps({"pid": os.getpid(), "started": _now()}) + "\n").encode(), 0)
    except OSError as err:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
        raise RunFolderError(f"cannot write in run folder {d}: {_os_message(err)}") from None
    return RunLock(d, fd)


def start_session(run_dir: Path, at_least: int, record: Mapping[str, Any]) -> int:
    """Log a new session in ``run_dir/sessions.jsonl`` and return its number.

    The number is one more than any session logged before (a line cut short by a kill
    counts too) and at least ``at_least`` (the training loop passes one more than the
    session its checkpoint was written in, which holds even if the log was deleted).
    Call it with the folder locked.

    Args:
        run_dir: the run folder.
        at_least: smallest number allowed (>= 0).
        record: more fields for the line (JSON-serialisable).

    Returns:
        The session number (0 for the first start of a run).
    """
    path = run_dir / SESSIONS_NAME
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    number = max(at_least, len(lines))
    for ln in lines:
        try:
            number = max(number, int(json.loads(ln)["session"]) + 1)
        except (ValueError, KeyError, TypeError):
            continue
    line = json.dumps({"session": number, "pid": os.getpid(), "started": _now(), **record})
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(("\n" if text and not text.endswith("\n") else "") + line + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    return number


def encoding_of(payload: Mapping[str, Any]) -> dict[str, int]:
    """The position encoding a checkpoint's network reads and writes: ``board_size``,
    ``channels`` (observation planes) and ``actions`` (policy outputs), from its
    ``encoding`` entry or else its ``net_config``; a value it does not record is -1."""
    enc = payload.get("encoding")
    if isinstance(enc, Mapping):
        return {k: int(enc.get(k, -1)) for k in ("board_size", "channels", "actions")}
    net = payload.get("net_config") or {}
    return {
        "board_size": int(net.get("board_size", -1)),
        "channels": int(net.get("in_channels", -1)),
        "actions": int(net.get("num_actions", -1)),
    }


def _fmt_encoding(enc: Mapping[str, int]) -> str:
    n = enc["board_size"]
    return f"{n}x{n} boards, {enc['channels']} observation planes, {enc['actions']} actions"


def _rules(spec: str) -> dict[str, Any]:
    """The rule flags of a variant string (the preset's name left out: two spellings of
    one game are the same game)."""
    from drl.rules import Variant

    v = Variant.parse(spec)
    return {f.name: getattr(v, f.name) for f in dataclasses.fields(v) if f.name != "name"}


def _check_variant(source: str, stored: str, wanted: str) -> None:
    try:
        same = _rules(stored) == _rules(wanted)
    except ValueError as err:
        raise ValueError(
            f"{source} records variant {stored!r}, which does not parse: {err}"
        ) from None
    if not same:
        raise ValueError(
            f"{source} is a run of variant {stored!r}; this config asks for "
            f"variant.spec={wanted!r}. A run keeps its game: use another run_dir, or "
            f"variant.spec={stored!r}"
        )


def check_checkpoint(
    path: Path,
    payload: Mapping[str, Any],
    variant_spec: str,
    encoding: Mapping[str, int],
    arch: str,
    net_config: Mapping[str, Any],
) -> None:
    """Check that the checkpoint a run would continue from is of this run's game,
    encoding and network.

    Args:
        path: the checkpoint (for messages).
        payload: its payload (``variant``, ``encoding`` or ``net_config``, ``arch``).
        variant_spec: the config's ``variant.spec``.
        encoding: this run's ``board_size``, ``channels`` and ``actions``.
        arch, net_config: the network this run asks for (see :func:`drl.nn.describe`).

    Raises:
        ValueError: naming the checkpoint, what it holds and what the config asks for
            (variant rules, encoding, architecture or network fields).
    """
    from drl.nn import check_compatible

    stored = payload.get("variant")
    if isinstance(stored, str):
        _check_variant(f"checkpoint {path}", stored, variant_spec)
    got = encoding_of(payload)
    if any(got[k] not in (-1, encoding[k]) for k in got):
        raise ValueError(
            f"checkpoint {path} encodes positions as {_fmt_encoding(got)}; this run "
            f"encodes {_fmt_encoding(encoding)}; a network of one encoding cannot continue "
            "in the other: use another run_dir"
        )
    try:
        check_compatible(payload, arch, net_config)
    except ValueError as err:
        raise ValueError(
            f"{path}: {err}; use another run_dir or the run's own model settings"
        ) from None


def check_config_file(path: Path, variant_spec: str, model: Mapping[str, Any]) -> None:
    """Check a run folder's ``config.yaml`` (when it has no checkpoint to go by) against
    the config that would continue it: the same variant rules, model architecture and
    model fields (the preset's ``name`` aside; a field one side lacks is not compared).

    Args:
        path: the folder's ``config.yaml``.
        variant_spec: the config's ``variant.spec``.
        model: the config's ``model`` node as a plain dict.

    Raises:
        ValueError: naming the file, the key and both values; or the file is unreadable.
    """
    from omegaconf import OmegaConf

    try:
        old = OmegaConf.to_container(OmegaConf.load(path))
    except Exception as err:  # omegaconf and yaml raise several types
        raise ValueError(f"{path} is unreadable ({err}); cannot tell which run it holds") from None
    if not isinstance(old, dict):
        raise ValueError(f"{path} does not hold a configuration; cannot tell which run it is")
    stored = (old.get("variant") or {}).get("spec")
    if isinstance(stored, str):
        _check_variant(str(path), stored, variant_spec)
    old_model = old.get("model") or {}
    for key in sorted(set(old_model) & set(model)):
        if key != "name" and old_model[key] != model[key]:
            raise ValueError(
                f"{path} is a run with model.{key}={old_model[key]!r}; this config asks for "
                f"model.{key}={model[key]!r}. Use another run_dir or the run's own model "
                "settings"
            )


def refuse_without_checkpoint(
    run_dir: Path, shards: list[Path], damaged: list[str], set_aside: list[Path]
) -> None:
    """Refuse to start a run folder afresh that holds work but no good checkpoint.

    A new network trained into such a folder would mix its games with the old ones and
    number its checkpoints over theirs.

    Args:
        run_dir: the run folder.
        shards: its replay shards.
        damaged: messages of the damaged checkpoints found (why each is damaged).
        set_aside: checkpoints set aside earlier as ``*.corrupt``.

    Raises:
        CheckpointError: always, saying what is there and what to do.
    """
    from drl.nn.checkpoint import CheckpointError

    parts = []
    if shards:
        parts.append(f"{len(shards)} replay shards ({shards[0].name} .. {shards[-1].name})")
    if damaged:
        parts.append("damaged checkpoints:\n  " + "\n  ".join(damaged) + "\n")
    if set_aside:
        parts.append("checkpoints set aside as damaged: " + ", ".join(p.name for p in set_aside))
    raise CheckpointError(
        f"run folder {run_dir} holds " + "; ".join(parts) + " but no good checkpoint, so "
        "it cannot be continued, and starting it afresh would mix a new network's games "
        f"with these. Put a good checkpoint (with its .sha256) back into "
        f"{run_dir / 'checkpoints'}, or train in another run_dir."
    )
