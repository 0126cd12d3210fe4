"""Recorded games to step through on the page: PDN files uploaded or read from a folder.

A file is read whole with drl's PDN reader (a file that does not parse is refused with the
reader's message, naming the game and the line); each game is replayed when the page asks
for it, under the variant of its ``Variant`` or ``GameType`` tag
(``drl.rules.pdn.variant_for_game``). A game with a move that cannot be played shows the
moves before it and the reason.

Files are read only from the folder the server was started with (:class:`ReplayFolder`);
a path that leads outside it is refused.
"""

from __future__ import annotations

import contextlib
import dataclasses
import secrets
import threading
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from drl.rules import Board, PDNError, Variant, read_games, replay
from drl.rules.pdn import Game, variant_for_game
from drl.web.board import board_layout, file_result_text, players_text, position_text
from drl.web.settings import GameError, NotFound

__all__ = ["MAX_FILE_BYTES", "ReplayFile", "ReplayFolder", "ReplayStore", "open_pdn"]

MAX_FILE_BYTES = 16 * 2**20
"""Largest PDN file read (16 MiB: tens of thousands of games)."""

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
        """Game ``index`` replayed: its positions, ply by ply.

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


def open_pdn(data: bytes | str, source: str) -> ReplayFile:
    """Read every game of a PDN file's contents.

    Args:
        data: the file's bytes (decoded as drl's reader does) or text.
        source: the name shown on the page and in messages.

    Returns:
        The file's games, in file order.

    Raises:
        GameError: the file is too big, does not parse (the reader's message) or holds no
            game.
    """
    size = len(data.encode() if isinstance(data, str) else data)
    if size > MAX_FILE_BYTES:
        raise GameError(f"{source}: {size} bytes; at most {MAX_FILE_BYTES} are read")
    raw = data if isinstance(data, bytes) else data.encode("utf-8")
    try:
        games = [dataclasses.replace(g, source=source) for g in read_games(raw)]
    except PDNError as err:
        raise GameError(f"{source} is not PDN that drl can read: {err}") from None
    if not games:
        raise GameError(f"{source} holds no game")
    return ReplayFile(source, games)


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

    def open(self, relative: str) -> ReplayFile:
        """Read the PDN file at ``relative`` (a path inside the folder).

        Args:
            relative: the file's path relative to the folder.

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
        return open_pdn(data, relative)


class ReplayStore:
    """The files opened by the pages of one server, by id.

    Args:
        keep: most files kept (at least 1); the oldest are dropped beyond it.

    Raises:
        ValueError: ``keep`` below 1 (every file would be dropped as it is added).
    """

    def __init__(self, keep: int = 16) -> None:
        if keep < 1:
            raise ValueError(f"keep={keep}: a replay store keeps at least 1 file")
        self.keep = keep
        self._files: OrderedDict[str, ReplayFile] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, replay_file: ReplayFile) -> str:
        """Keep ``replay_file``, dropping the oldest files beyond ``keep``.

        Args:
            replay_file: the file opened.

        Returns:
            Its id (16 hex digits).
        """
        key = secrets.token_hex(8)
        with self._lock:
            self._files[key] = replay_file
            while len(self._files) > self.keep:
                self._files.popitem(last=False)
        return key

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
