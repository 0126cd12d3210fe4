"""Finished arena games as plain records, and their PDN.

Each game is a plain record (JSON-friendly, no board objects), made from its board by
:func:`record_game`, and written as PDN (:func:`write_pdn`, :class:`PDNWriter`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from drl._atomic import write_atomic
from drl.rules import Board, Outcome
from drl.rules.pdn import board_to_pdn

if TYPE_CHECKING:
    from drl.egtb import Probe
    from drl.eval.tasks import GameTask

__all__ = ["GameRecord", "COLORS", "record_game", "write_pdn", "PDNWriter"]

COLORS = ("black", "white")


@dataclass(frozen=True)
class GameRecord:
    """The result of one game.

    Attributes:
        index: game number within its match (0-based).
        black, white: the names of the players of the dark and light pieces (agent spec
            strings, made unique within a match).
        variant: the full variant string the game was played under (Give and Take: with
            its ``taker`` flag).
        roles: ``(black role, white role)``, each ``"taker"``/``"giver"``, or ``None``
            outside Give and Take.
        opening: FEN of the position the game started from.
        opening_index: which opening of the match this was.
        moves: the moves in PDN text, in playing order.
        result: ``"1-0"`` (White won), ``"0-1"`` (Black won), ``"1/2-1/2"`` or ``"*"``
            (truncated), as in PDN.
        winner: ``"black"``, ``"white"`` or ``None``.
        termination: the rule that ended the game (``drl.rules.Termination`` name in lower
            case, e.g. ``"no_pieces"``), ``"database"`` for a game ended at a position
            whose exact result the endgame database gives (:mod:`drl.eval.endings`), or
            ``"max_plies"`` for a truncated game.
        plies: plies played from the opening.
        seed: the seed the agents were reset with.
        pdn: PDN text of the game.
        seconds: wall time of the game.
        extra: anything else a caller attaches (not written by the arena).
        clock: each side's thinking time, ``{"black": [moves, seconds, most seconds of
            one move], "white": [...]}``: the wall time of each ``select_move`` call (a
            batched agent's ``select_moves`` call is shared equally between the games it
            moved in); empty when not measured.
    """

    index: int
    black: str
    white: str
    variant: str
    roles: tuple[str | None, str | None]
    opening: str
    opening_index: int
    moves: tuple[str, ...]
    result: str
    winner: str | None
    termination: str
    plies: int
    seed: int
    pdn: str = ""
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)
    clock: dict = field(default_factory=dict)

    @property
    def truncated(self) -> bool:
        """True if the game hit the ``max_plies`` cap (not a draw by rule)."""
        return self.termination == "max_plies"

    @property
    def by_database(self) -> bool:
        """True if the game ended at a position the endgame database decides."""
        return self.termination == "database"

    def color_of(self, player: str) -> str:
        """``"black"`` or ``"white"`` for a player of this game.

        Raises:
            ValueError: the player did not play this game.
        """
        if player == self.black:
            return "black"
        if player == self.white:
            return "white"
        raise ValueError(
            f"{player!r} did not play game {self.index} ({self.black} vs {self.white})"
        )

    def role_of(self, player: str) -> str | None:
        """``"taker"``/``"giver"`` of a player in Give and Take, else None."""
        return self.roles[COLORS.index(self.color_of(player))]

    def score_of(self, player: str) -> float:
        """Points of a player: 1 win, 1/2 draw or truncation, 0 loss."""
        color = self.color_of(player)
        if self.winner is None:
            return 0.5
        return 1.0 if self.winner == color else 0.0

    def opponent_of(self, player: str) -> str:
        """The other player of this game."""
        return self.white if self.color_of(player) == "black" else self.black

    def clock_of(self, player: str) -> tuple[int, float, float] | None:
        """``(moves, seconds, most seconds of one move)`` of ``player``, or None if not timed."""
        entry = self.clock.get(self.color_of(player))
        return None if entry is None else (int(entry[0]), float(entry[1]), float(entry[2]))

    def to_dict(self) -> dict:
        """JSON-friendly dict of every field."""
        d = asdict(self)
        d["roles"] = list(self.roles)
        d["moves"] = list(self.moves)
        return d


def record_game(
    task: GameTask,
    board: Board,
    opening_fen: str,
    seconds: float,
    clock: dict | None = None,
    database: Probe | None = None,
) -> GameRecord:
    """The record of a finished (or truncated) game, with its PDN.

    Args:
        task: the game's task (names, variant, seed, PDN ``Event``/``Round``).
        board: the board after the last move; its root is the opening.
        opening_fen: FEN of the opening.
        seconds: wall time of the game.
        clock: each side's thinking time (see :class:`GameRecord`), or None.
        database: the exact result from the last position for its side to move, when the
            endgame database ended the game there (:func:`drl.eval.endings.database_result`;
            only while no rule has ended it): termination ``"database"``, the result
            that value gives, and the PDN tags ``Termination "database"`` and
            ``Database`` (the winner, ``"black"`` or ``"white"``, or ``"draw"``, as
            self-play's ``Adjudicated``).
    """
    outcome = board.outcome()
    root = board.root()
    roles = (root.role(0), root.role(1))
    extra_tags: dict[str, str] = {}
    written: Outcome | str
    if outcome is not None:
        result = outcome.result
        winner = None if outcome.winner is None else COLORS[int(outcome.winner)]
        termination = outcome.termination.name.lower()
        written = outcome
    elif database is not None:
        mover = int(board.turn)
        winner = {"win": COLORS[mover], "loss": COLORS[1 - mover]}.get(database.value)
        result = {None: "1/2-1/2", "black": "0-1", "white": "1-0"}[winner]
        termination = "database"
        extra_tags["Database"] = winner or "draw"
        written = result
    else:
        result, winner, termination = "*", None, "max_plies"
        written = "*"
    tags = {
        "Event": task.event,
        "Round": task.round or str(task.index + 1),
        "Black": task.black_name,
        "White": task.white_name,
        "Variant": task.variant,
        "SetUp": "1",
        "FEN": opening_fen,
        "Termination": termination,
    }
    if roles[0] is not None and roles[1] is not None:  # a variant gives both or none
        tags["BlackRole"], tags["WhiteRole"] = roles[0], roles[1]
    tags.update(extra_tags)
    # The Outcome or its White-first text: the writer puts the result in the file's
    # convention (English-board GameType 21 gives Black's score first).
    pdn = board_to_pdn(board, tags, written)
    return GameRecord(
        index=task.index,
        black=task.black_name,
        white=task.white_name,
        variant=task.variant,
        roles=roles,
        opening=opening_fen,
        opening_index=task.opening_index,
        moves=tuple(str(m) for m in board.move_stack),
        result=result,
        winner=winner,
        termination=termination,
        plies=board.ply,
        seed=task.seed,
        pdn=pdn,
        seconds=seconds,
        clock={} if clock is None else {k: list(v) for k, v in clock.items()},
    )


def write_pdn(records: Sequence[GameRecord], path: str | os.PathLike) -> Path:
    """Write the games' PDN, concatenated, to ``path``, replacing the file atomically.

    Parent folders are created. A reader sees the old file or the new one, never a part;
    when it cannot be written, the old file stays and ``<name>.tmp`` is removed (the
    ``OSError`` names ``path``).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        write_atomic(path, "".join(r.pdn for r in records), fsync=False)
    except OSError as err:  # (a full disk): the old file stays, no partial one is left
        raise OSError(err.errno, err.strerror, str(path)) from None
    return path


class PDNWriter:
    """Appends each finished game's PDN to a file as the game finishes.

    Each game is flushed, so that an interrupted match keeps every game it finished.

    The file is created (or emptied) when the writer is made, so an unwritable path fails
    before the first game. Use as a context manager, or call :meth:`close`.

    Args:
        path: the PDN file (parent folders are created).

    Attributes:
        path: the file.
        games: games written so far.

    Raises:
        OSError: the file cannot be created.
    """

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "w", encoding="utf-8")  # noqa: SIM115 - closed in close()
        self.games = 0

    def add(self, record: GameRecord) -> None:
        """Append one game and flush it to the file."""
        self._fh.write(record.pdn)
        self._fh.flush()
        self.games += 1

    def close(self) -> None:
        """Close the file; the games written so far stay in it."""
        self._fh.close()

    def __enter__(self) -> PDNWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
