"""Endgame databases: build, open, probe and count.

A database holds every position with at most ``pieces`` pieces of one variant's rules
(both role assignments of Give and Take in one file), one file per rules in the folder
:func:`egtb_dir` (``DRL_EGTB_DIR``, default ``~/.cache/drl/egtb``). Building it again
with more pieces replaces the file with a larger one that holds the smaller one.

>>> from drl.egtb import probe
>>> probe("english", ["W:WK1:B5,K6"])            # doctest: +SKIP
[Probe(value='loss', plies=...)]
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from drl.egtb import _store
from drl.egtb._build import level_stats, solve_levels
from drl.egtb._index import BINOM, S_OFFSET, S_PIECES, S_SIZE, Layout
from drl.egtb._probe import NOT_FOUND, exact_code, lookup
from drl.egtb._rules import FORMAT, EgtbError, Rules, rules_of
from drl.rules.variant import Variant

__all__ = [
    "Database",
    "Estimate",
    "Probe",
    "build",
    "egtb_dir",
    "estimate",
    "open_database",
    "probe",
    "stats",
]

#: Entries solved per second on one core, for the estimate printed before a build
#: (``benchmarks/egtb_build.py``: English 4 pieces, 227,000 entries/s on a shared,
#: loaded core; a guess on other machines and for flying kings).
RATE = {8: 2.5e5, 10: 1.0e5}


def egtb_dir(directory: str | os.PathLike | None = None) -> Path:
    """The database folder: ``directory``, else ``$DRL_EGTB_DIR``, else the user's cache.

    The user's cache is ``$XDG_CACHE_HOME/drl/egtb`` (``~/.cache/drl/egtb`` by default).
    """
    if directory is not None:
        return Path(directory).expanduser()
    env = os.environ.get("DRL_EGTB_DIR")
    if env:
        return Path(env).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join("~", ".cache")
    return Path(cache).expanduser() / "drl" / "egtb"


class Probe(NamedTuple):
    """The value of a position for the side to move.

    Attributes:
        value: ``"win"``, ``"loss"`` or ``"draw"``.
        plies: plies to the end of the game under best play (the winner ending it as
            soon as it can, the loser as late as it can); 0 for a draw.
    """

    value: str
    plies: int

    def __str__(self) -> str:
        return f"{self.value} {self.plies}" if self.value != "draw" else "draw"


def _decode(code: int) -> Probe:
    if code == 0:
        return Probe("draw", 0)
    return Probe("win" if code % 2 == 0 else "loss", (code - 2) // 2)


@dataclass(frozen=True)
class Estimate:
    """What a build will take.

    Attributes:
        entries: index entries to solve (positions, plus a few invalid entries).
        file_bytes: size of the finished file.
        memory_bytes: memory the build needs at its peak.
        seconds: expected build time on one core (``RATE``).
    """

    entries: int
    file_bytes: int
    memory_bytes: int
    seconds: float

    def __str__(self) -> str:
        return (
            f"{self.entries:,} positions, file about {_human(self.file_bytes)}, "
            f"memory about {_human(self.memory_bytes)}, time about {_duration(self.seconds)}"
        )


def _human(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000:
            return f"{n:.0f} {unit}"
        n /= 1000
    return f"{n:.1f} TB"


def _duration(s: float) -> str:
    if s < 60:
        return f"{max(s, 1):.0f} s"
    if s < 3600:
        return f"{s / 60:.0f} min"
    return f"{s / 3600:.1f} h"


class Database:
    """An opened database: checksum-verified, memory-mapped, read-only.

    Build or open one with :func:`open_database`. Attributes: ``rules`` (the
    :class:`~drl.egtb._rules.Rules`), ``pieces``, ``path``, ``header``.
    """

    def __init__(
        self, rules: Rules, path: Path, header: dict[str, Any], data: np.ndarray, start: int
    ) -> None:
        self.rules = rules
        self.path = path
        self.header = header
        self.pieces = int(header["pieces"])
        self.layout = rules.layout(self.pieces)
        slices = np.array(header["slices"], dtype=np.int64).reshape(-1, 8)
        self._slices = slices
        starts = np.ascontiguousarray(slices[:, _store.T_OFFSET] + start)
        widths = np.ascontiguousarray(slices[:, _store.T_WIDTH])
        geo = self.layout.geo
        self.kernel = (geo, self.layout.slice_of, BINOM, data, starts, widths, int(rules.flip))
        self._data = data
        self._start = start

    @property
    def variant(self) -> Variant:
        """The variant this database was opened for."""
        return self.rules.variant

    def stats(self) -> list[dict[str, int]]:
        """Per number of pieces: ``positions``, ``won``, ``drawn``, ``lost``, ``longest``.

        ``positions`` counts the stored entries (Black to move only where the colours
        share an objective: one per placement of the pieces; both sides to move in Give
        and Take); won / drawn / lost are for the side to move; ``longest`` is the
        longest win or loss in plies.
        """
        return [dict(row) for row in self.header["stats"]]

    def codes(self, sid: int) -> np.ndarray:
        """The value codes of slice row ``sid`` (``uint16`` copy)."""
        size, off, width = (int(v) for v in self._slices[sid, [5, 6, 7]])
        raw = self._data[self._start + off : self._start + off + size * width]
        return raw.view("<u2").astype(np.uint16) if width == 2 else raw.astype(np.uint16)

    def probe_state(self, state: np.ndarray) -> Probe | None:
        """Value of a kernel state (``int64[STATE_SIZE]``), counters ignored.

        Returns:
            The :class:`Probe`, or None when the position has more pieces than the
            database.
        """
        s = np.asarray(state, dtype=np.int64)
        code = lookup(s[0], s[1], s[2], s[3], s[4], self.kernel)
        return None if code == NOT_FOUND else _decode(code)

    def exact(self, state: np.ndarray) -> Probe | None:
        """The game's exact result from ``state`` (with its counters), or None.

        None where the database does not give it: more pieces than it holds, or a
        counter that could still draw the game first (see :mod:`drl.egtb._probe`).
        """
        s = np.asarray(state, dtype=np.int64)
        code = exact_code(s, self.rules.variant.params, self.kernel)
        return None if code == NOT_FOUND else _decode(code)

    def probe(self, position: Any) -> Probe | None:
        """Value of a :class:`~drl.rules.Board` or a FEN string (counters ignored).

        Raises:
            FENError: the FEN cannot be read.
        """
        from drl.rules.board import Board

        board = position if isinstance(position, Board) else Board(self.variant, fen=position)
        return self.probe_state(board.state)


_OPEN: dict[tuple[str, str], tuple[tuple[int, int, int], Database]] = {}


def _path(rules: Rules, directory: str | os.PathLike | None) -> Path:
    return egtb_dir(directory) / f"{rules.key}.egtb"


def _load(rules: Rules, path: Path, log: Callable[[str], None]) -> Database | None:
    """The database at ``path`` (cached while the file is unchanged); None if none or damaged."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    sig = (st.st_ino, st.st_size, st.st_mtime_ns)
    cached = _OPEN.get((str(path), str(rules.variant)))
    if cached is not None and cached[0] == sig:
        return cached[1]
    try:
        header, data, start = _store.read_file(path)
    except _store.DamagedFile as err:
        log(f"damaged database, rebuilding: {err}")
        return None
    if header.get("format") != FORMAT or header.get("rules") != str(rules.canonical):
        log(f"{path}: written for other rules or an older format; rebuilding")
        return None
    db = Database(rules, path, header, data, start)
    _OPEN[(str(path), str(rules.variant))] = (sig, db)
    return db


def estimate(variant: Variant | str, pieces: int, done: int = 0) -> Estimate:
    """What building ``variant`` up to ``pieces`` pieces takes, with ``done`` pieces built.

    Raises:
        EgtbError: as :func:`build`.
    """
    rules = rules_of(variant)
    layout = _checked_layout(rules, pieces)
    table = layout.table
    todo = table[table[:, S_PIECES] > done]
    entries = int(todo[:, S_SIZE].sum())
    largest = max(
        (int(table[a:b, S_SIZE].sum()) for a, b in layout.groups() if table[a, S_PIECES] > done),
        default=0,
    )
    file_bytes = layout.total + 64 * len(table) + 4096
    memory = 2 * layout.total + 90 * largest
    seconds = entries / RATE[rules.canonical.board_size]
    return Estimate(entries, file_bytes, memory, seconds)


def _checked_layout(rules: Rules, pieces: int) -> Layout:
    if isinstance(pieces, bool) or not isinstance(pieces, int) or pieces < 1:
        raise EgtbError(f"pieces must be a whole number >= 1, got {pieces!r}")
    if pieces > 12:
        raise EgtbError(f"pieces={pieces}: databases of more than 12 pieces cannot be built here")
    return rules.layout(pieces)


def _check_room(est: Estimate, folder: Path) -> None:
    free = shutil.disk_usage(folder).free
    if est.file_bytes + (16 << 20) > free:
        raise EgtbError(
            f"not enough disk space in {folder}: the database needs {_human(est.file_bytes)}, "
            f"{_human(free)} is free (set DRL_EGTB_DIR to another folder)"
        )
    try:
        ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        return
    if est.memory_bytes > 0.9 * ram:
        raise EgtbError(
            f"not enough memory: the build needs about {_human(est.memory_bytes)}, "
            f"the machine has {_human(ram)}"
        )


def build(
    variant: Variant | str,
    pieces: int,
    *,
    directory: str | os.PathLike | None = None,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
) -> Database:
    """Build (or extend) the database of ``variant`` up to ``pieces`` pieces and open it.

    Nothing is solved that is on disk already: a file with at least ``pieces`` pieces is
    opened as it is, a smaller one is extended. Before solving, the size and time
    estimate is logged; the build is refused when the disk or the memory will not hold
    it. The file is written atomically.

    Args:
        variant: a variant or variant string (any preset and flags, Give and Take with
            either Taker or both Givers).
        pieces: the most pieces on the board, >= 1.
        directory: the database folder (default :func:`egtb_dir`).
        progress: show a progress bar (tqdm, on stderr).
        log: where the estimate and notes go (default: print to stderr).

    Raises:
        EgtbError: an invalid variant or piece count, a variant with
            ``role_swap_after_captures``, or too little disk space or memory.
        OSError: the file could not be written (nothing is left half-written).
    """
    say = log or (lambda msg: print(msg, file=sys.stderr))
    rules = rules_of(variant)
    layout = _checked_layout(rules, pieces)
    path = _path(rules, directory)
    old = _load(rules, path, say)
    if old is not None and old.pieces >= pieces:
        return old
    done = old.pieces if old is not None else 0
    path.parent.mkdir(parents=True, exist_ok=True)
    est = estimate(variant, pieces, done)
    say(f"building the {rules.variant} endgame database up to {pieces} pieces ({path}): {est}")
    _check_room(est, path.parent)
    vals = np.zeros(layout.total, dtype=np.uint16)
    if old is not None:
        for sid in range(len(old.layout.table)):
            off = int(layout.table[sid, S_OFFSET])
            vals[off : off + int(layout.table[sid, S_SIZE])] = old.codes(sid)
    from tqdm.auto import tqdm

    start = time.perf_counter()
    with tqdm(
        total=2 * est.entries, unit="pos", unit_scale=True, disable=not progress, desc="egtb"
    ) as bar:
        solve_levels(layout, rules.params, vals, done + 1 if done else 0, bar.update)
    seconds = time.perf_counter() - start
    header: dict[str, Any] = {
        "format": FORMAT,
        "rules": str(rules.canonical),
        "pieces": pieces,
        "board_size": rules.canonical.board_size,
        "symmetric": rules.symmetric,
        "stats": level_stats(layout, vals),
        "build_seconds": [
            *(old.header["build_seconds"] if old else []),
            [done + 1, pieces, round(seconds, 3)],
        ],
    }
    _store.write_file(path, header, layout.table, vals)
    del vals
    db = _load(rules, path, say)
    if db is None:  # pragma: no cover - the file was just written and checked
        raise EgtbError(f"{path}: the database just written cannot be read back")
    return db


def open_database(
    variant: Variant | str,
    pieces: int | None = None,
    *,
    directory: str | os.PathLike | None = None,
    build_missing: bool = False,
    progress: bool = True,
) -> Database | None:
    """The database of ``variant`` on disk, or None when there is none (or too small).

    Args:
        variant: a variant or variant string.
        pieces: the fewest pieces it must hold (None: any).
        directory: the database folder (default :func:`egtb_dir`).
        build_missing: build what is missing (:func:`build`) instead of returning None.
        progress: show a progress bar while building.

    Raises:
        EgtbError: as :func:`build`.
    """
    rules = rules_of(variant)
    db = _load(rules, _path(rules, directory), lambda msg: print(msg, file=sys.stderr))
    if db is not None and (pieces is None or db.pieces >= pieces):
        return db
    if not build_missing or pieces is None:
        return None
    return build(variant, pieces, directory=directory, progress=progress)


def stats(
    variant: Variant | str,
    pieces: int,
    *,
    directory: str | os.PathLike | None = None,
    progress: bool = True,
) -> list[dict[str, int]]:
    """Per number of pieces up to ``pieces``: positions, won, drawn, lost, longest.

    Builds what is missing first. See :meth:`Database.stats`.
    """
    db = build(variant, pieces, directory=directory, progress=progress)
    return db.stats()[:pieces]


def probe(
    variant: Variant | str,
    fens: Iterable[str],
    *,
    directory: str | os.PathLike | None = None,
    progress: bool = True,
) -> list[Probe]:
    """The value of each FEN's position for its side to move, in order.

    Builds the database up to the largest number of pieces among the positions first.

    Raises:
        FENError: a FEN cannot be read (nothing is built).
        EgtbError: as :func:`build`.
    """
    from drl.rules.board import Board

    boards = [Board(variant, fen=fen) for fen in fens]
    if not boards:
        return []
    most = max(sum(int(v).bit_count() for v in b.state[:4]) for b in boards)
    db = build(variant, max(most, 1), directory=directory, progress=progress)
    out = []
    for b in boards:
        result = db.probe(b)
        assert result is not None  # the database holds up to `most` pieces
        out.append(result)
    return out
