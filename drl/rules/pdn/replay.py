"""Replaying PDN games on a :class:`~drl.rules.Board`.

:func:`replay` replays one game, :func:`replay_file` a whole file (going on after a
failure, with a :class:`ReplayReport`), and :func:`variant_for_game` gives the rules a
game's tags name.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from drl.rules._quote import excerpt
from drl.rules.pdn._common import GAME_TYPES, Game, PDNError
from drl.rules.pdn.read import read_games

if TYPE_CHECKING:
    from drl.rules.board import Board, Move
    from drl.rules.variant import Variant

__all__ = [
    "MAX_GAME_TYPE",
    "MAX_TRIAL_PLIES",
    "ReplayReport",
    "replay",
    "replay_file",
    "variant_for_game",
]

_GAME_TYPE_NAMES = {
    22: "Italian",
    23: "American pool",
    24: "Spanish",
    27: "Canadian",
    28: "Portuguese",
    29: "Czech",
    30: "Turkish",
    31: "Thai",
    40: "Frisian",
    41: "Spantsiretti",
}

#: Largest GameType number read (the PDN standard's numbers are below 100).
MAX_GAME_TYPE = 999


def _game_type(game: Game, where: str) -> Variant:
    """The variant of a game's ``GameType`` tag (``"20"``, ``"20,W,10,10,N1,0"``)."""
    from drl.rules.variant import Variant

    value = game.tags["GameType"]
    fields = [f.strip() for f in value.split(",")]
    head = fields[0]
    if not (head.isascii() and head.isdigit()):
        raise PDNError(f"{where}: GameType {excerpt(value)} does not start with a number")
    if len(head.lstrip("0")) > len(str(MAX_GAME_TYPE)) or int(head) > MAX_GAME_TYPE:
        raise PDNError(
            f"{where}: GameType {excerpt(value)}: the game type number is over the limit "
            f"{MAX_GAME_TYPE}"
        )
    number = int(head)
    if number not in GAME_TYPES:
        name = _GAME_TYPE_NAMES.get(number, "unknown")
        raise PDNError(
            f"{where}: GameType {number} ({name}) is not supported; supported: {sorted(GAME_TYPES)}"
        )
    variant = Variant.preset(GAME_TYPES[number])
    # Optional fields: start colour, board width, board height, notation, invert flag.
    for label, text in zip(("board width", "board height"), fields[2:4], strict=False):
        if not text:
            continue
        if not (text.isascii() and text.isdigit()) or len(text.lstrip("0")) > 2:
            raise PDNError(
                f"{where}: GameType {excerpt(value)}: the {label} {excerpt(text)} is not a "
                f"number of at most 2 digits"
            )
        if int(text) != variant.board_size:
            raise PDNError(
                f"{where}: GameType {excerpt(value)}: the {label} {int(text)} is not that "
                f"of {variant.name} ({variant.board_size}x{variant.board_size})"
            )
    return variant


def variant_for_game(game: Game, default: Variant | str | None = None) -> Variant:
    """The variant a game is played under.

    Its ``Variant`` tag, else its ``GameType``, else ``default``.

    Raises:
        PDNError: an unsupported or malformed GameType (a type number over
            :data:`MAX_GAME_TYPE`, or board width / height fields that are not this
            GameType's board size), a bad Variant tag, or neither tag and no default.
    """
    from drl.rules.variant import Variant, VariantError

    where = f"{game.source}: game {game.index}"
    if "Variant" in game.tags:
        try:
            return Variant.parse(game.tags["Variant"])
        except VariantError as err:
            raise PDNError(f"{where}: bad Variant tag: {err}") from None
    if "GameType" in game.tags:
        return _game_type(game, where)
    if default is None:
        raise PDNError(f"{where}: no GameType or Variant tag; pass a variant")
    return default if isinstance(default, Variant) else Variant.parse(default)


def replay(game: Game, variant: Variant | str | None = None) -> Board:
    """Play every move of a game from its start position (or its ``FEN`` tag).

    Short move text that fits several legal moves (Russian ``hg7`` when a man on h6 and
    a king on h8 can both go to g7) is resolved by the rest of the game: the candidate
    after which every later recorded move is legal is taken; if none or several are
    (or more than :data:`MAX_TRIAL_PLIES` moves would have to be tried to know), the
    move is reported as ambiguous.

    A game without a termination marker (``game.complete`` False, e.g. a truncated
    file) replays as far as it goes; :func:`replay_file` reports it as incomplete.

    Args:
        game: a game from :func:`read_games`.
        variant: the rules to use; default: from the game's tags (:func:`variant_for_game`).

    Returns:
        The board after the last move (its ``move_stack`` holds the game).

    Raises:
        PDNError: a game that was cut short by a syntax error (``Game.error``), a bad FEN,
            or the first move that cannot be played; the message names the file, the game
            number, the move number and text, and why (the legal moves, or the candidates
            of an ambiguous short form).
    """
    board, error = _replay(game, variant)
    if error is not None:
        raise error
    assert board is not None  # _replay returns a board whenever there is no error
    return board


def _replay(game: Game, variant: Variant | str | None) -> tuple[Board | None, PDNError | None]:
    """(board after the legal prefix of the game, the error that stopped it or None)."""
    from drl.rules.board import Board, FENError
    from drl.rules.variant import Variant

    where = f"{game.source}: game {game.index}"
    syntax = game.error
    if syntax is not None and not syntax.startswith(f"{where} "):
        syntax = f"{where}: {syntax}"  # (a hand-made Game; the reader's errors name it)
    try:
        if variant is None:
            var = variant_for_game(game)
        else:
            var = variant if isinstance(variant, Variant) else Variant.parse(variant)
        board = Board(var, fen=game.fen)
    except (FENError, PDNError) as err:
        if syntax is not None:  # the syntax error says more than its consequence
            return None, PDNError(f"unreadable: {syntax}")
        return None, err if isinstance(err, PDNError) else PDNError(f"{where}: {err}")
    board, stop, play_error = _play(board, game.moves)
    if play_error is not None:
        number = game.move_numbers[stop] if stop < len(game.move_numbers) else None
        if number is None:
            number = stop // 2 + 1
        line = game.move_lines[stop] if stop < len(game.move_lines) else game.line
        return board, PDNError(
            f"{where} (line {line}): move {number} (ply {stop + 1}, "
            f"{excerpt(game.moves[stop])}): {play_error}"
        )
    if syntax is not None:
        return board, PDNError(f"unreadable after ply {len(game.moves)}: {syntax}")
    return board, None


#: Most moves pushed, per game, while trying the candidates of ambiguous short moves.
MAX_TRIAL_PLIES = 100_000


@dataclass
class _Choice:
    """An ambiguous move being resolved.

    Holds the board before it, its index, its error, and the boards of the candidates
    tried so far with which the whole game replayed.
    """

    board: Board
    index: int
    error: Exception
    candidates: tuple[Move, ...]
    tried: int = 0
    complete: list[Board] = field(default_factory=list)


def _play(board: Board, moves: Sequence[str]) -> tuple[Board, int, Exception | None]:
    """Push ``moves`` on ``board``, resolving ambiguous text by the rest of the game.

    Returns (board, index of the first move not played, its error or None). An ambiguous
    move is resolved by playing the rest of the game after each candidate; the one
    candidate after which every move is legal is taken. The search runs on an explicit
    stack (a game of many ambiguous moves would exhaust Python's recursion limit) and
    pushes at most :data:`MAX_TRIAL_PLIES` trial moves.
    """
    from drl.rules.board import AmbiguousMoveError, IllegalMoveError

    choices: list[_Choice] = []
    start = 0
    budget = MAX_TRIAL_PLIES
    result: tuple[Board, int, Exception | None] | None = None
    while True:
        if result is None:  # play on from moves[start]
            stop, error = len(moves), None
            for i in range(start, len(moves)):
                if choices:
                    budget -= 1
                    if budget < 0:
                        first = choices[0]
                        return (
                            first.board,
                            first.index,
                            AmbiguousMoveError(
                                f"{first.error} (gave up after {MAX_TRIAL_PLIES} trial moves "
                                "to find which candidate lets the rest of the game replay)",
                                first.candidates,
                            ),
                        )
                try:
                    board.push(moves[i])
                except IllegalMoveError as err:
                    stop, error = i, err
                    break
            if isinstance(error, AmbiguousMoveError) and error.candidates:
                choices.append(_Choice(board, stop, error, error.candidates))
            else:
                result = (board, stop, error)
        if result is not None:
            if not choices:
                return result
            if result[2] is None:
                choices[-1].complete.append(result[0])
            result = None
        choice = choices[-1]
        if choice.tried < len(choice.candidates):
            board = choice.board.copy()
            board.push(choice.candidates[choice.tried])
            choice.tried += 1
            start = choice.index + 1
            continue
        choices.pop()
        if len(choice.complete) == 1:
            result = (choice.complete[0], len(moves), None)
        else:
            why = "none" if not choice.complete else "more than one"
            result = (
                choice.board,
                choice.index,
                AmbiguousMoveError(
                    f"{choice.error} ({why} of the candidates lets the rest of the game replay)",
                    choice.candidates,
                ),
            )


@dataclass
class ReplayReport:
    """What :func:`replay_file` found.

    Attributes:
        source: the file.
        games_ok: games read to their termination marker and replayed to the end.
        moves: plies replayed (in all games, failed ones up to their bad move).
        failures: (game index, message) for each game that failed (unreadable, or a move
            that cannot be played).
        incomplete: (game index, message) for each game whose moves all replayed but
            whose movetext ends without a termination marker (a file cut off, or a game
            that the next tag line starts): its moves may be only the start of the game.
    """

    source: str
    games_ok: int = 0
    moves: int = 0
    failures: list[tuple[int, str]] = field(default_factory=list)
    incomplete: list[tuple[int, str]] = field(default_factory=list)

    @property
    def games(self) -> int:
        """Games read (ok + incomplete + failed)."""
        return self.games_ok + len(self.incomplete) + len(self.failures)

    def __str__(self) -> str:
        head = f"{self.source}: {self.games_ok}/{self.games} games ok"
        if self.incomplete:
            head += f", {len(self.incomplete)} incomplete"
        lines = [f"{head}, {self.moves} moves replayed"]
        problems = sorted(self.failures + self.incomplete)
        lines += [f"  game {i}: {msg}" for i, msg in problems]
        return "\n".join(lines)


def replay_file(
    path: str | os.PathLike,
    variant: Variant | str | None = None,
    games: Iterable[Game] | None = None,
) -> ReplayReport:
    """Replay every game of a PDN file, going on with the next game after a failure.

    Args:
        path: the PDN file.
        variant: the rules for every game (default: each game's tags, see
            :func:`variant_for_game`).
        games: already-read games of ``path`` (default: read the file with
            ``strict=False``, so that a syntax error fails only the game it is in).

    Returns:
        A :class:`ReplayReport`. A game without a termination marker is reported as
        incomplete (``"incomplete: no result marker"``), not as ok. A file in which no
        game can be found (empty, or not PDN) is reported as one failure (game index 0),
        so it never reads as "all ok".

    Raises:
        FileNotFoundError: ``path`` is not an existing file (when ``games`` is None).
    """
    if games is None:
        if not isinstance(path, (str, os.PathLike)) or not os.path.isfile(path):
            raise FileNotFoundError(errno.ENOENT, "no such PDN file", str(path))
        games = read_games(Path(path), strict=False)
    report = ReplayReport(source=str(path))
    for game in games:
        board, error = _replay(game, variant)
        report.moves += 0 if board is None else len(board.move_stack)
        if error is not None:
            report.failures.append((game.index, str(error)))
        elif not game.complete:
            last = game.move_lines[-1] if game.move_lines else game.line
            report.incomplete.append(
                (
                    game.index,
                    f"{game.source}: game {game.index} (line {last}): incomplete: no result "
                    f"marker (the movetext ends after ply {len(game.moves)})",
                )
            )
        else:
            report.games_ok += 1
    if report.games == 0:
        report.failures.append((0, f"{path}: no game found (empty, or not a PDN file)"))
    return report
