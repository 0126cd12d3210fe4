"""The run folder's session log, and the inventory of the work a folder holds.

``sessions.jsonl`` has one line per start of training in the folder (``session``,
``pid``, ``started``, ``resumed_from``, ``iteration``, ``learner_steps``, ``games``).
The session number is part of every self-play seed, so that no two starts of a run ever
play from the same seed. It is also recorded in each checkpoint, replay shard and PDN
game (:func:`sessions_after`), so that a deleted log cannot make it go back.
:func:`work_in` lists what a folder holds besides its checkpoints.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import re
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass
from drl.train.run_folder.lock import _now

__all__ = [
    "GamesFound",
    "MAX_COUNT",
    "SESSIONS_NAME",
    "json_count",
    "sessions_after",
    "start_session",
    "work_in",
]

log = logging.getLogger(__name__)

SESSIONS_NAME = "sessions.jsonl"

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
