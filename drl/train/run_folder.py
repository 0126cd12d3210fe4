"""A run folder's own bookkeeping: its lock, its session log, and its continuation checks.

The checks decide whether a configuration may continue what the folder holds.

- The lock: one training process at a time. :func:`lock_run_dir` takes an exclusive
  ``fcntl.flock`` on the run folder itself (a folder opened read-only), which no file
  deletion can undo, and one on ``.lock``, into which it writes the holder's pid and
  start time for the message a second process gets (the kernel drops both when the
  process ends, however it ends). :meth:`RunLock.check`, called before each write of
  games and checkpoints, writes ``.lock`` again if it was deleted, and stops the run if
  the folder lock could not be taken (a file system without ``flock`` on folders) and
  ``.lock`` is no longer the file this process locked.
- ``sessions.jsonl``: one line per start of training in the folder (``session``,
  ``pid``, ``started``, ``resumed_from``, ``iteration``, ``learner_steps``, ``games``).
  The session number is part of every self-play seed, so that no two starts of a run
  ever play from the same seed. It is also recorded in each checkpoint, replay shard and
  PDN game (:func:`sessions_after`), so that a deleted log cannot make it go back.
- :func:`check_checkpoint` and :func:`check_config_file` refuse to continue a folder
  under another game, encoding or network; :func:`refuse_without_checkpoint` refuses to
  start a folder afresh when it holds work (:func:`work_in`) that a new network would be
  mixed with.
- :func:`open_run` makes those checks before anything is written, then continues the run
  (or starts one): it clears what a kill cut short, sets aside damaged checkpoints, drops
  the metrics of work to be redone, opens the replay buffer and starts a session; what it
  found is a :class:`Resumed`.
"""

from __future__ import annotations

import dataclasses
import errno
import fcntl
import json
import logging
import os
import re
import time
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from drl._atomic import remove_partials, set_aside, write_atomic
from drl.nn.checkpoint import CheckpointError, list_checkpoints, load_checkpoint, load_latest
from drl.train.buffer import ReplayBuffer, load_shard

if TYPE_CHECKING:
    import torch

__all__ = [
    "GamesFound",
    "Resumed",
    "RunFolderError",
    "RunLock",
    "RunSpec",
    "check_checkpoint",
    "check_config_file",
    "encoding_of",
    "lock_run_dir",
    "open_run",
    "refuse_without_checkpoint",
    "sessions_after",
    "start_session",
    "work_in",
]

log = logging.getLogger(__name__)

LOCK_NAME = ".lock"
SESSIONS_NAME = "sessions.jsonl"


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
MAX_COUNT = 2**31 - 1


def _count(value: object) -> int:
    """``value`` as a count in [0, MAX_COUNT], or -1 when it is not one.

    Not one: too large, negative, infinite, not a number.
    """
    try:
        n = int(value)  # type: ignore[call-overload]
    except (ValueError, TypeError, OverflowError):
        return -1
    return n if 0 <= n <= MAX_COUNT else -1


def json_count(line: str, key: str) -> int:
    """The count ``key`` of one JSON line of a run folder's log, or -1.

    The logs are ``sessions.jsonl`` and ``metrics.jsonl``. -1 when the line is cut short,
    lacks the key, or holds no count in [0, MAX_COUNT] there.
    """
    try:
        row = json.loads(line)
    except ValueError:
        return -1
    return _count(row.get(key)) if isinstance(row, dict) else -1


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
        number = max(number, json_count(ln, "session") + 1)
    line = json.dumps({"session": number, "pid": os.getpid(), "started": _now(), **record})
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(("\n" if text and not text.endswith("\n") else "") + line + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    return number


def encoding_of(payload: Mapping[str, Any]) -> dict[str, int]:
    """The position encoding a checkpoint's network reads and writes.

    ``board_size``, ``channels`` (observation planes) and ``actions`` (policy outputs), from
    its ``encoding`` entry or else its ``net_config``; a value it does not record is -1.
    """
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
    """The rule flags of a variant string.

    The preset's name is left out: two spellings of one game are the same game.
    """
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
    """Check that the checkpoint a run continues from is of this run's game, encoding and network.

    Args:
        path: the checkpoint (for messages).
        payload: its payload (``variant``, ``encoding`` or ``net_config``, ``arch``).
        variant_spec: the config's ``variant.spec``.
        encoding: this run's ``board_size``, ``channels`` and ``actions``.
        arch: the architecture this run asks for (``model.arch``).
        net_config: the network fields this run asks for (see :func:`drl.nn.describe`).

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
    """Check a run folder's ``config.yaml`` against the config that would continue it.

    Used when the folder has no checkpoint to go by. It must have the same variant rules,
    model architecture and model fields (the preset's ``name`` aside; a field one side lacks
    is not compared).

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


_NUMBERED_RE = re.compile(r"^(shard|selfplay)-(\d{6,})\.(npz|pdn)(?:\.\d+)?(?:\.corrupt)?$")
_SESSION_TAG_RE = re.compile(r'^\[Session "(\d+)"\]$', re.MULTILINE)
_ROUND_TAG_RE = re.compile(r'^\[Round "(\d+)"\]$', re.MULTILINE)


def _numbered(run_dir: Path) -> list[tuple[int, str, Path]]:
    """The replay shards (set aside or not) and self-play PDN files of a run folder.

    Each as ``(number, "shard" | "selfplay", path)``.
    """
    out = []
    for sub in ("replay", "games"):
        d = run_dir / sub
        if d.is_dir():
            for p in d.iterdir():
                m = _NUMBERED_RE.match(p.name)
                if m and (m.group(1) == "shard") == (sub == "replay"):
                    out.append((int(m.group(2)), m.group(1), p))
    return sorted(out)


@dataclasses.dataclass(frozen=True)
class GamesFound:
    """What the games files of a run folder numbered from some shard number on say.

    Attributes:
        session: the highest session number recorded in them (-1: none recorded).
        next_game_index: one past the highest game number (``Round`` - 1) in their PDN
            files (0: none).
        next_shard: one past the highest shard or PDN number in the whole folder, the
            number the next shard may take without overwriting anything (0: none).
    """

    session: int
    next_game_index: int
    next_shard: int


def sessions_after(run_dir: Path, first: int) -> GamesFound:
    """The sessions and games recorded in the newer replay shards and PDN files of ``run_dir``.

    Reads the session and game numbers of those numbered ``first`` or more (written after
    the checkpoint that recorded ``shards == first``), and the highest number of any of
    them.

    A shard or PDN that cannot be read, or that records no session (written by an
    earlier version), adds nothing.
    """
    import numpy as np

    session, next_index, next_shard = -1, 0, 0
    for number, kind, path in _numbered(run_dir):
        next_shard = max(next_shard, number + 1)
        if number < first:
            continue
        try:
            if kind == "shard":
                with np.load(path) as z:
                    if "session" in z.files:
                        session = max(session, _count(np.max(z["session"])))
            else:
                text = path.read_text(encoding="utf-8", errors="replace")
                for m in _SESSION_TAG_RE.finditer(text):
                    session = max(session, _count(m.group(1)))
                for m in _ROUND_TAG_RE.finditer(text):
                    next_index = max(next_index, _count(m.group(1)))
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
            continue
    return GamesFound(session, next_index, next_shard)


def work_in(run_dir: Path) -> list[str]:
    """What of a run's work a folder holds besides its checkpoints, one phrase each.

    Replay shards (set aside or not), self-play games, metrics, evaluations, TensorBoard
    logs; none for a folder that never got past the start of a run.
    """
    found: dict[str, list[Path]] = {}
    for _number, kind, path in _numbered(run_dir):
        key = "set aside" if kind == "shard" and path.name.endswith(".corrupt") else kind
        found.setdefault(key, []).append(path)
    parts = []
    if "shard" in found:
        shards = found["shard"]
        parts.append(f"{len(shards)} replay shards ({shards[0].name} .. {shards[-1].name})")
    if "set aside" in found:
        parts.append(f"{len(found['set aside'])} replay shards set aside as damaged")
    if "selfplay" in found:
        pdns = found["selfplay"]
        parts.append(f"{len(pdns)} self-play game files ({pdns[0].name} .. {pdns[-1].name})")
    metrics = run_dir / "metrics.jsonl"
    try:
        has_lines = bool(metrics.read_text(encoding="utf-8").strip())
    except OSError:
        has_lines = False
    if has_lines:
        parts.append(f"metrics ({metrics.name})")
    for sub, what in (("eval", "evaluation results"), ("tb", "TensorBoard logs")):
        d = run_dir / sub
        if d.is_dir() and any(p.is_file() for p in d.rglob("*")):
            parts.append(f"{what} ({sub}/)")
    return parts


def refuse_without_checkpoint(
    run_dir: Path, work: list[str], damaged: list[str], set_aside: list[Path]
) -> None:
    """Refuse to start a run folder afresh that holds work but no good checkpoint.

    A new network trained into such a folder would mix its games with the old ones,
    number its checkpoints, games and metrics over theirs, and play its first session's
    games from their seeds.

    Args:
        run_dir: the run folder.
        work: what it holds (:func:`work_in`).
        damaged: messages of the damaged checkpoints found (why each is damaged).
        set_aside: checkpoints set aside earlier as ``*.corrupt``.

    Raises:
        CheckpointError: always, saying what is there and what to do.
    """
    parts = list(work)
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


# -- opening a run: check the folder, then continue its run or start one ---------------


@dataclasses.dataclass(frozen=True)
class RunSpec:
    """What a training configuration asks of the run folder it trains in.

    Attributes:
        variant_spec: the config's ``variant.spec``.
        encoding: the run's ``board_size``, ``channels`` and ``actions``.
        arch: the network's architecture (see :func:`drl.nn.describe`).
        net_config: the network's config fields (see :func:`drl.nn.describe`).
        model: the config's ``model`` node as a plain dict, checked against the folder's
            ``config.yaml`` when it has no checkpoint.
        config_yaml: the resolved configuration, written to ``config.yaml``.
        iterations: the iterations the run is to reach.
        max_minutes: the run's training time budget in minutes (0: none).
        final_eval: whether a final evaluation is configured (games and baselines).
        replay_window: positions the replay buffer samples from (>= 1).
    """

    variant_spec: str
    encoding: Mapping[str, int]
    arch: str
    net_config: Mapping[str, Any]
    model: Mapping[str, Any]
    config_yaml: str
    iterations: int
    max_minutes: float
    final_eval: bool
    replay_window: int


@dataclasses.dataclass(frozen=True)
class Resumed:
    """What :func:`open_run` found in a run folder, and the replay buffer it opened.

    Attributes:
        checkpoint: the checkpoint the run continues from (named by its iteration); None
            for a run that starts afresh.
        payload: its payload (``model``, ``optimizer``, ``rng``, ``counters``, ...); None
            without one.
        iteration: the checkpoint's iteration (0 without one).
        learner_steps: the checkpoint's learner steps (0 without one).
        games: games finished up to the checkpoint: those in the replay folder less
            those of the shards written after it (the iteration in progress); for a
            finished run, the checkpoint's count.
        positions: the positions the checkpoint counts (0 without one).
        session: this start's session number; for a finished run, the session its
            checkpoint was written in (no session is started).
        wall_minutes: the run's training wall time before this start, in minutes.
        cpu_minutes: the run's training CPU time before this start, in minutes.
        finished: the run was already finished (its iterations or time budget done and
            its final evaluation recorded, or none configured): nothing was written.
        replay: the replay buffer over the folder's shards, the next shard and game
            numbered past every one found; None for a finished run.
    """

    checkpoint: Path | None
    payload: Mapping[str, Any] | None
    iteration: int
    learner_steps: int
    games: int
    positions: int
    session: int
    wall_minutes: float
    cpu_minutes: float
    finished: bool
    replay: ReplayBuffer | None


def open_run(run_dir: Path, spec: RunSpec, device: str | torch.device = "cpu") -> Resumed:
    """Check a run folder against ``spec``, then continue its run, or start one.

    Call it with the folder locked (:func:`lock_run_dir`). Before anything is written,
    the newest good checkpoint (or, without one, ``config.yaml``) must be of the
    config's variant, encoding and network, and a folder holding work but no good
    checkpoint is refused (a lone damaged first checkpoint is set aside). A finished run
    is left as it is. Otherwise the writes a kill cut short are removed (or, for a PDN
    whose shard was written, completed), ``config.yaml`` is written, checkpoints newer
    than the one continued from are set aside as ``*.corrupt``, checkpoints named by
    learner steps get iteration names, metrics lines after its iteration are dropped,
    the replay buffer is opened and a session is started in ``sessions.jsonl``.

    Args:
        run_dir: the run folder.
        spec: what the configuration asks of it.
        device: where the checkpoint's tensors are loaded.

    Returns:
        :class:`Resumed`.

    Raises:
        ValueError: the folder is a run of another variant, encoding or network (the
            message names both values).
        CheckpointError: the folder holds work or damaged checkpoints but no good
            checkpoint.
        RunFolderError: ``config.yaml`` or ``games/`` cannot be written.
    """
    # -- what the folder holds, checked before anything is written
    found = _checked_checkpoint(run_dir, spec, device)
    c: Mapping[str, Any] = found[1]["counters"] if found is not None else {}
    iteration = int(c.get("iteration", 0))
    if found is not None and _is_finished(run_dir, c, spec):
        log.info(
            "nothing to do: the run is finished (iteration %d of %d)", iteration, spec.iterations
        )
        return _resumed(found, c, int(c["games"]), int(c.get("session", 0)), finished=True)

    # -- the checks passed: this process continues (or starts) the run
    _settle_writes(run_dir, spec.config_yaml)
    if found is not None:
        found = (_continue_from(run_dir / "checkpoints", found[0], iteration), found[1])
        _trim_metrics(run_dir / "metrics.jsonl", iteration)
        log.info(
            "resumed from %s (iteration %d, %d learner steps)",
            found[0],
            iteration,
            int(c["learner_steps"]),
        )
    replay, games, last_session = _open_replay(run_dir, spec, found)
    session = start_session(
        run_dir,
        max(int(c.get("session", -1)), last_session) + 1,
        {
            "resumed_from": None if found is None else found[0].name,
            "iteration": iteration,
            "learner_steps": int(c.get("learner_steps", 0)),
            "games": replay.num_games,
        },
    )
    return _resumed(found, c, games, session, replay=replay)


def _resumed(
    found: tuple[Path, Mapping[str, Any]] | None,
    c: Mapping[str, Any],
    games: int,
    session: int,
    finished: bool = False,
    replay: ReplayBuffer | None = None,
) -> Resumed:
    return Resumed(
        checkpoint=None if found is None else found[0],
        payload=None if found is None else found[1],
        iteration=int(c.get("iteration", 0)),
        learner_steps=int(c.get("learner_steps", 0)),
        games=games,
        positions=int(c.get("positions", 0)),
        session=session,
        wall_minutes=float(c.get("wall_minutes", 0.0)),
        cpu_minutes=float(c.get("cpu_minutes", 0.0)),
        finished=finished,
        replay=replay,
    )


def _checked_checkpoint(
    run_dir: Path, spec: RunSpec, device: str | torch.device
) -> tuple[Path, dict[str, Any]] | None:
    """The newest good checkpoint, checked against ``spec``; None when there is none.

    Without a checkpoint, ``config.yaml`` is checked; None is for a folder whose run never
    got past its start.
    """
    ckpt_dir = run_dir / "checkpoints"
    damaged: list[str] = []
    try:
        found = load_latest(ckpt_dir, map_location=device)
    except CheckpointError as err:
        found = None
        damaged = str(err).splitlines()[1:]
    if found is not None:
        check_checkpoint(
            found[0], found[1], spec.variant_spec, spec.encoding, spec.arch, spec.net_config
        )
        return found
    if (run_dir / "config.yaml").exists():
        check_config_file(run_dir / "config.yaml", spec.variant_spec, spec.model)
    # Games, metrics or evaluations without a checkpoint: the checkpoints were lost
    # (the first is written before the first game), not a run that never began.
    work = work_in(run_dir)
    bad = list_checkpoints(ckpt_dir)
    put_aside = sorted(ckpt_dir.glob("ckpt-*.pt.corrupt")) if ckpt_dir.is_dir() else []
    if work or any(_checkpoint_number(p) > 0 for p in bad + put_aside):
        refuse_without_checkpoint(run_dir, work, [d.strip() for d in damaged], put_aside)
    # Only the first checkpoint was cut short: nothing was trained or played yet.
    for p in bad:
        _set_aside_checkpoint(p)
    return None


def _is_finished(run_dir: Path, c: Mapping[str, Any], spec: RunSpec) -> bool:
    """Whether the run of a checkpoint with counters ``c`` has nothing left to do."""
    done = int(c["iteration"]) >= spec.iterations or (
        spec.max_minutes > 0 and float(c.get("wall_minutes", 0.0)) >= spec.max_minutes
    )
    return done and (
        not spec.final_eval or _final_eval_recorded(run_dir / "metrics.jsonl", c["iteration"])
    )


def _final_eval_recorded(path: Path, iteration: int) -> bool:
    """Whether ``metrics.jsonl`` holds the final evaluation of ``iteration``."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return False
    for line in lines:
        if json_count(line, "iteration") == iteration and any(
            key.startswith("final_eval/") for key in json.loads(line)
        ):
            return True
    return False


def _settle_writes(run_dir: Path, config_yaml: str) -> None:
    """Clear the writes a kill or a full disk cut short, then write ``config.yaml``.

    The cut writes are removed (or completed); ``games/`` is made.
    """
    for d in (run_dir, run_dir / "checkpoints", run_dir / "replay", run_dir / "eval"):
        remove_partials(d)
    if (run_dir / "games").is_dir():
        _settle_pdns(run_dir / "games", run_dir / "replay")
    try:
        write_atomic(run_dir / "config.yaml", config_yaml)
        (run_dir / "games").mkdir(exist_ok=True)
    except OSError as err:
        raise RunFolderError(f"cannot write in run folder {run_dir}: {err}") from None


def _settle_pdns(games_dir: Path, replay_dir: Path) -> None:
    """Finish or remove the PDN writes a kill cut short.

    A shard's PDN is renamed into place only after the shard is: a ``selfplay-N.pdn.tmp``
    whose shard N was written is complete and is renamed into place; one without its shard
    is of games never saved and is removed. A PDN in place is never removed (its shard was
    written; if the shard is gone, the PDN is the only record of its games).
    """

    def shard_written(tmp: Path) -> bool:
        stem = tmp.name[: -len(".pdn.tmp")]
        if not (stem.startswith("selfplay-") and tmp.name.endswith(".pdn.tmp")):
            return False
        shard = replay_dir / f"shard-{stem.split('-', 1)[1]}.npz"
        done = shard.exists() or any(replay_dir.glob(shard.name + ".*corrupt"))
        return done and not games_dir.joinpath(stem + ".pdn").exists()

    for tmp in sorted(games_dir.glob("selfplay-*.pdn.tmp")):
        if shard_written(tmp):
            os.replace(tmp, tmp.with_name(tmp.name[: -len(".tmp")]))
            log.info("completed %s (its shard was written before a kill)", tmp.name[:-4])
    remove_partials(games_dir)


def _checkpoint_number(path: Path) -> int:
    """The number in ``ckpt-<number>.pt`` (also of ``ckpt-<number>.pt.corrupt``)."""
    return int(path.name.split("-", 1)[1].split(".", 1)[0])


def _set_aside_checkpoint(path: Path) -> None:
    log.warning("setting damaged checkpoint %s aside as %s.corrupt", path, path.name)
    set_aside(path, overwrite=True)


def _continue_from(ckpt_dir: Path, checkpoint: Path, iteration: int) -> Path:
    """Set aside the checkpoints newer than ``checkpoint`` and name the rest by iteration.

    The newer ones are damaged (``checkpoint`` is the newest good one). Returns
    ``checkpoint``'s name after the renaming.
    """
    for p in list_checkpoints(ckpt_dir):
        if _checkpoint_number(p) > _checkpoint_number(checkpoint):
            _set_aside_checkpoint(p)
    if _checkpoint_number(checkpoint) != iteration:
        _number_by_iteration(ckpt_dir)
        checkpoint = ckpt_dir / f"ckpt-{iteration:08d}.pt"
    return checkpoint


def _number_by_iteration(directory: Path) -> None:
    """Rename checkpoints named by learner steps (earlier versions) by iteration.

    So the newest is again the largest number. Hard links first, then the old names go: a
    kill leaves both names of a good checkpoint, never none.
    """
    for p in list_checkpoints(directory):
        try:
            it = int(load_checkpoint(p)["counters"]["iteration"])
        except (CheckpointError, KeyError, TypeError, ValueError):
            continue
        target = p.with_name(f"ckpt-{it:08d}.pt")
        if target == p:
            continue
        digest, new_digest = (q.with_name(q.name + ".sha256") for q in (p, target))
        if target.exists() and not os.path.samefile(p, target):
            os.replace(p, p.with_name(p.name + ".old"))  # out of the way of the ordering
            digest.unlink(missing_ok=True)
            continue
        if not target.exists():
            os.link(p, target)
        if not new_digest.exists():
            os.link(digest, new_digest)
        digest.unlink()
        p.unlink()
        log.info("renamed checkpoint %s to %s (numbered by iteration)", p.name, target.name)


def _trim_metrics(path: Path, iteration: int) -> None:
    """Drop the metrics lines of iterations after ``iteration`` and lines cut short by a kill.

    The iterations after ``iteration`` are redone from there.
    """
    if not path.exists():
        return
    keep, dropped = [], 0
    for line in path.read_text(encoding="utf-8").splitlines():
        if 0 <= json_count(line, "iteration") <= iteration:
            keep.append(line + "\n")
        else:
            dropped += 1
    if dropped:
        write_atomic(path, "".join(keep))


def _open_replay(
    run_dir: Path, spec: RunSpec, found: tuple[Path, Mapping[str, Any]] | None
) -> tuple[ReplayBuffer, int, int]:
    """The replay buffer, the games finished up to the checkpoint, and the sessions after it.

    The last is the highest session recorded in the games written after the checkpoint (-1:
    none).

    The sessions recorded in those games keep a deleted ``sessions.jsonl`` from making
    the session number go back and replay their seeds; their numbers (and the
    checkpoint's) keep a PDN whose shard was deleted from having its Rounds given again.
    """
    replay = ReplayBuffer(run_dir / "replay", spec.replay_window, int(spec.encoding["actions"]))
    c: Mapping[str, Any] = found[1]["counters"] if found is not None else {}
    ckpt_shards = int(c["shards"]) if "shards" in c else replay.num_shards
    after = sessions_after(run_dir, ckpt_shards)
    replay.num_shards = max(replay.num_shards, after.next_shard)  # never over an old file
    replay.next_game_index = max(
        replay.next_game_index, after.next_game_index, int(c.get("next_game_index", 0))
    )
    if found is None or "shards" not in c:
        return replay, int(c.get("games", 0)), after.session
    kept = sum(1 for p in replay.shard_paths() if int(p.name[6:-4]) < ckpt_shards)
    if kept < ckpt_shards:
        log.warning(
            "%s holds %d of the %d replay shards written before %s (%d missing, deleted "
            "or set aside): the learner trains on the %d positions found",
            run_dir / "replay",
            kept,
            ckpt_shards,
            found[0].name,
            ckpt_shards - kept,
            replay.num_positions,
        )
    # The games of the iteration in progress are those in the shards written after the
    # checkpoint (older shards deleted to free space do not count).
    games = replay.num_games - sum(
        load_shard(p).num_games for p in replay.shard_paths() if int(p.name[6:-4]) >= ckpt_shards
    )
    return replay, games, after.session
