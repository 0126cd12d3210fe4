"""Recorded games to step through on the page: PDN files uploaded or read from a folder.

A file is read whole with drl's PDN reader (a file that does not parse is refused with the
reader's message, naming the game and the line); each game is replayed when the page asks
for it, under the variant of its ``Variant`` or ``GameType`` tag
(``drl.rules.pdn.variant_for_game``). A game with a move that cannot be played shows the
moves before it and the reason.

Files are read only from the folder the server was started with (:class:`ReplayFolder`);
a path that leads outside it is refused.

What a file may cost is bounded, not only its bytes: at most :data:`MAX_GAMES` games and
:data:`MAX_PLIES` plies per file (reading stops at the first game past either), at most
:data:`MAX_GAME_PLIES` plies of a game replayed, and each game's positions are computed
once and kept (:meth:`ReplayFile.frames_json`). The :class:`ReplayStore` keeps files
within a share of the server's memory budget, dropping the oldest first.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import secrets
import threading
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from drl.rules import Board, PDNError, Variant, read_games, replay
from drl.rules.pdn import Game, variant_for_game
from drl.web.board import board_layout, file_result_text, players_text, position_text
from drl.web.budget import BudgetFull, MemoryBudget, gib
from drl.web.settings import GameError, NotFound

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_GAMES",
    "MAX_GAME_PLIES",
    "MAX_PLIES",
    "ReplayFile",
    "ReplayFolder",
    "ReplayStore",
    "open_pdn",
]

MAX_FILE_BYTES = 8 * 2**20
"""Largest PDN file read (8 MiB: thousands of games)."""

MAX_GAMES = 10_000
"""Most games read from one file."""

MAX_PLIES = 200_000
"""Most plies (moves of one side) read from one file, all its games together."""

MAX_GAME_PLIES = 2_000
"""Most plies of one game replayed on the page (positions in one answer: this plus 1)."""

BYTES_PER_GAME = 1024
"""Memory of one game read, besides its moves (tags, objects; measured about 600)."""

BYTES_PER_PLY = 160
"""Memory of one move read (measured about 120)."""

PARSE_BYTES_PER_BYTE = 24
"""Memory that reading a file may take per byte of it, while it is read."""

FRAMES_KEPT = 8
"""Replayed games whose answer each file keeps."""

FRAMES_BYTES = FRAMES_KEPT * (MAX_GAME_PLIES + 1) * 200
"""Memory those answers may hold per file (about 200 bytes per position)."""

MAX_LISTED = 2000
"""Most files :meth:`ReplayFolder.files` lists."""


@dataclasses.dataclass
class ReplayFile:
    """The games of one PDN file.

    Attributes:
        source: the file's name as shown on the page.
        games: the games read, in file order.
    """

    source: str
    games: list[Game]
    _answers: OrderedDict[int, bytes] = dataclasses.field(
        default_factory=OrderedDict, repr=False, compare=False
    )
    _lock: threading.Lock = dataclasses.field(
        default_factory=threading.Lock, repr=False, compare=False
    )

    @property
    def cost(self) -> int:
        """The memory this file holds, in bytes (an estimate that bounds it from above)."""
        plies = sum(len(g.moves) for g in self.games)
        return len(self.games) * BYTES_PER_GAME + plies * BYTES_PER_PLY + FRAMES_BYTES

    def frames_json(self, index: int) -> bytes:
        """:meth:`frames` of game ``index`` as JSON, computed once and kept.

        The last :data:`FRAMES_KEPT` games asked for are kept (at most
        :data:`FRAMES_BYTES` in all).

        Raises:
            GameError: as :meth:`frames`.
        """
        with self._lock:
            kept = self._answers.get(index)
            if kept is not None:
                self._answers.move_to_end(index)
                return kept
            answer = json.dumps(self.frames(index), separators=(",", ":")).encode()
            self._answers[index] = answer
            while len(self._answers) > FRAMES_KEPT:
                self._answers.popitem(last=False)
            return answer

    def summary(self) -> list[dict[str, Any]]:
        """List the file's games, one line each.

        Returns:
            One dict per game: ``index``, ``white``, ``black``, ``event``, ``result`` (as
            the file writes it), ``players`` (both names, the one whose score the file's
            result gives first first: ``Black - White`` in English-board files),
            ``outcome`` (the result in words, e.g. ``"1-0: Black wins"``), ``plies``
            (moves recorded).
        """
        found = []
        for i, g in enumerate(self.games):
            try:
                variant: Variant | None = variant_for_game(g)
            except PDNError:
                variant = None
            white, black = g.tags.get("White", "?"), g.tags.get("Black", "?")
            result = g.result or g.tags.get("Result", "*")
            found.append(
                {
                    "index": i,
                    "white": white,
                    "black": black,
                    "players": players_text(black, white, variant),
                    "event": g.tags.get("Event", ""),
                    "result": result,
                    "outcome": file_result_text(result, variant),
                    "plies": len(g.moves),
                }
            )
        return found

    def frames(self, index: int) -> dict[str, Any]:
        """Game ``index`` replayed: its positions, ply by ply (at most :data:`MAX_GAME_PLIES`).

        Args:
            index: the game's place in the file (0-based).

        Returns:
            ``variant``, ``size``, ``layout`` (see :func:`~drl.web.board.board_layout`),
            ``positions`` (one per ply, the start first; see
            :func:`~drl.web.board.position_text`), ``moves`` (texts), ``paths`` (squares
            of each move), ``start`` (the colour to move at the start), ``first`` (the
            colour that moves first in the variant: a move number's first half), ``tags``,
            ``error`` (why the game stops early, or None).

        Raises:
            GameError: no game ``index``, or a game whose variant cannot be known (no
                usable ``GameType`` or ``Variant`` tag) or whose FEN is bad.
        """
        if not isinstance(index, int) or not 0 <= index < len(self.games):
            raise GameError(f"{self.source} has games 0..{len(self.games) - 1}, not {index!r}")
        game = self.games[index]
        try:
            variant = variant_for_game(game)
        except PDNError as err:
            raise GameError(str(err)) from None
        if len(game.moves) > MAX_GAME_PLIES:
            game = dataclasses.replace(game, moves=game.moves[:MAX_GAME_PLIES], error=None)
            board, error = _replay_prefix(game)
            error = error or (
                f"{game.name}: only its first {MAX_GAME_PLIES} plies are replayed here"
            )
        else:
            board, error = _replay_prefix(game)
        if board is None:
            raise GameError(error or f"{game.name}: cannot be replayed")
        played = board.move_stack
        walk = board.root()
        start = ("black", "white")[int(walk.turn)]
        positions = [position_text(walk)]
        for move in played:
            walk.push(move)
            positions.append(position_text(walk))
        return {
            "variant": str(variant),
            "size": variant.board_size,
            "layout": board_layout(variant),
            "positions": positions,
            "moves": [str(m) for m in played],
            "paths": [list(m.path) for m in played],
            "start": start,
            "first": variant.first_player,
            "tags": game.tags,
            "error": error,
        }


def _replay_prefix(game: Game) -> tuple[Board | None, str | None]:
    """Replay the longest playable start of ``game``.

    Returns:
        ``(board, reason)``: the board after that start and why the game stops there
        (None when the whole game plays); ``(None, reason)`` when not even the start
        position can be set up.
    """
    try:
        return replay(game), None
    except PDNError as err:
        reason = str(err)

    def plays(k: int) -> Board | None:
        try:
            return replay(dataclasses.replace(game, moves=game.moves[:k], error=None))
        except PDNError:
            return None

    best = plays(0)
    if best is None:
        return None, reason
    low, high = 0, len(game.moves)  # the first `low` moves play, the first `high` do not
    while high - low > 1:
        mid = (low + high) // 2
        trial = plays(mid)
        if trial is None:
            high = mid
        else:
            low, best = mid, trial
    return best, reason


def open_pdn(data: bytes | str, source: str, budget: MemoryBudget | None = None) -> ReplayFile:
    """Read every game of a PDN file's contents.

    Args:
        data: the file's bytes (decoded as drl's reader does) or text.
        source: the name shown on the page and in messages.
        budget: when given, the memory of the reading (:data:`PARSE_BYTES_PER_BYTE` per
            byte) is reserved in it while the file is read.

    Returns:
        The file's games, in file order.

    Raises:
        GameError: the file is too big (bytes, games or plies: reading stops at the first
            game past a bound), does not parse (the reader's message) or holds no game;
            :class:`~drl.web.budget.BudgetFull` when the budget cannot hold the reading.
    """
    raw = data if isinstance(data, bytes) else data.encode("utf-8")
    if len(raw) > MAX_FILE_BYTES:
        raise GameError(f"{source}: {len(raw)} bytes; at most {MAX_FILE_BYTES} are read")
    reading = len(raw) * PARSE_BYTES_PER_BYTE
    if budget is not None:
        budget.reserve(reading, f"reading {source}")
    try:
        games = _read_bounded(raw, source)
    finally:
        if budget is not None:
            budget.release(reading)
    if not games:
        raise GameError(f"{source} holds no game")
    return ReplayFile(source, games)


def _read_bounded(raw: bytes, source: str) -> list[Game]:
    """The games of ``raw``, at most :data:`MAX_GAMES` and :data:`MAX_PLIES` in all.

    Raises:
        GameError: a bound passed, or text that does not parse.
    """
    games: list[Game] = []
    plies = 0
    try:
        for game in read_games(raw):
            plies += len(game.moves)
            if len(games) >= MAX_GAMES or plies > MAX_PLIES:
                raise GameError(
                    f"{source}: more than {MAX_GAMES} games or {MAX_PLIES} plies; "
                    "at most that many are read from one file (split it)"
                )
            games.append(dataclasses.replace(game, source=source))
    except PDNError as err:
        raise GameError(f"{source} is not PDN that drl can read: {err}") from None
    return games


@contextlib.contextmanager
def _usable_path(relative: str) -> Iterator[None]:
    """Turn the system's refusal of a path into a :class:`GameError` that names it.

    A NUL byte, a name too long, no permission...; a :class:`GameError` passes through.

    Raises:
        GameError: ``ValueError`` or ``OSError`` in the block.
    """
    try:
        yield
    except GameError:
        raise
    except (ValueError, OSError) as err:
        why = getattr(err, "strerror", None) or err
        raise GameError(f"{relative!r} cannot be opened ({why})") from None


class ReplayFolder:
    """The folder the server may read PDN files from.

    Args:
        root: the folder (e.g. a run folder, or its ``games/``).

    Raises:
        NotADirectoryError: ``root`` is not a folder.
    """

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root).expanduser().resolve()
        if not self.root.is_dir():
            raise NotADirectoryError(f"{root} is not a folder")

    def files(self) -> list[str]:
        """List the folder's ``*.pdn`` files.

        Returns:
            Paths relative to the folder, ``/``-separated, sorted; at most
            :data:`MAX_LISTED`.
        """
        found: list[str] = []
        with _usable_path(str(self.root)):
            for path in sorted(self.root.rglob("*.pdn")):
                if path.is_file() and self._inside(path):
                    found.append(path.relative_to(self.root).as_posix())
                if len(found) >= MAX_LISTED:
                    break
        return found

    def _inside(self, path: Path) -> bool:
        return path.resolve().is_relative_to(self.root)

    def open(self, relative: str, budget: MemoryBudget | None = None) -> ReplayFile:
        """Read the PDN file at ``relative`` (a path inside the folder).

        Args:
            relative: the file's path relative to the folder.
            budget: the server's memory budget (see :func:`open_pdn`).

        Returns:
            The file's games.

        Raises:
            GameError: the path leads outside the folder (``..``, an absolute path, a
                link), is not a file, is one the system refuses (a NUL byte, too long),
                cannot be read, or does not parse.
        """
        if not isinstance(relative, str) or not relative.strip():
            raise GameError("give the path of a PDN file inside the folder")
        with _usable_path(relative):
            path = self.root / relative
            if not self._inside(path):
                raise GameError(f"{relative!r} is outside the folder {self.root}: refused")
            if not path.resolve().is_file():
                raise GameError(f"{relative!r}: no such file in {self.root}")
            if path.stat().st_size > MAX_FILE_BYTES:
                raise GameError(f"{relative}: larger than {MAX_FILE_BYTES} bytes")
            data = path.read_bytes()
        return open_pdn(data, relative, budget)


class ReplayStore:
    """The files opened by the pages of one server, by id, within a memory share.

    Args:
        keep: most files kept (at least 1); the oldest are dropped beyond it.
        budget: the server's memory budget; each file kept reserves its
            :attr:`ReplayFile.cost` in it (None: a budget of its own of ``max_bytes``).
        max_bytes: most bytes the files kept may hold together (default: a quarter of
            ``budget``, or 1 GiB); the oldest are dropped to make room, and a file that
            alone holds more is refused.

    Raises:
        ValueError: ``keep`` below 1 (every file would be dropped as it is added).
    """

    def __init__(
        self, keep: int = 16, budget: MemoryBudget | None = None, max_bytes: int | None = None
    ) -> None:
        if keep < 1:
            raise ValueError(f"keep={keep}: a replay store keeps at least 1 file")
        self.keep = keep
        if max_bytes is None:
            max_bytes = 1 << 30 if budget is None else budget.limit // 4
        self.max_bytes = int(max_bytes)
        self.budget = budget if budget is not None else MemoryBudget(self.max_bytes)
        self._files: OrderedDict[str, ReplayFile] = OrderedDict()
        self._costs: dict[str, int] = {}
        self._lock = threading.Lock()

    @property
    def held(self) -> int:
        """Bytes the files kept hold (their :attr:`ReplayFile.cost`)."""
        with self._lock:
            return sum(self._costs.values())

    def add(self, replay_file: ReplayFile) -> str:
        """Keep ``replay_file``, dropping the oldest files to stay within the bounds.

        Args:
            replay_file: the file opened.

        Returns:
            Its id (16 hex digits).

        Raises:
            BudgetFull: the file alone holds more than :attr:`max_bytes`, or the server's
                budget cannot hold it even with every other file dropped.
        """
        cost = replay_file.cost
        if cost > self.max_bytes:
            raise BudgetFull(
                f"{replay_file.source} would hold about {gib(cost)}; this server keeps at "
                f"most {gib(self.max_bytes)} of replays (split the file)"
            )
        key = secrets.token_hex(8)
        with self._lock:
            while self._files and (
                len(self._files) >= self.keep or sum(self._costs.values()) + cost > self.max_bytes
            ):
                self._drop_oldest()
            while True:
                try:
                    self.budget.reserve(cost, f"replaying {replay_file.source}")
                    break
                except BudgetFull:
                    if not self._files:
                        raise
                    self._drop_oldest()
            self._files[key] = replay_file
            self._costs[key] = cost
        return key

    def _drop_oldest(self) -> None:
        old, _ = self._files.popitem(last=False)
        self.budget.release(self._costs.pop(old))

    def get(self, key: str) -> ReplayFile:
        """The file of id ``key``.

        Args:
            key: an id from :meth:`add`.

        Returns:
            The file.

        Raises:
            NotFound: no such file (dropped, or from an earlier server): open it again.
        """
        with self._lock:
            found = self._files.get(key)
        if found is None:
            raise NotFound(f"no open PDN file {key!r}: open it again")
        return found
