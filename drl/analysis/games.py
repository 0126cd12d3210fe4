"""Games as the analysis reads them, and the small statistics every part shares.

A :class:`PlayedGame` is one game: the variant it was played under (Give and Take with its
``taker`` flag), the position it started from, its moves in PDN text and how it ended.
:func:`as_games` makes them from arena records, PDN text or files, hand-written move
lists or dicts; :func:`replay_game` walks one move by move on :class:`drl.rules.Board`.

Rates are summarised as ``{"value": x, "ci95": [lo, hi], "n": n}`` (:func:`rate`, with
the Wilson interval of :func:`drl.eval.stats.wilson_interval`), means as
``{"value": mean, "ci95": [lo, hi], "n": n}`` with a Student-t interval (:func:`mean_ci`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from drl.eval.records import COLORS, GameRecord
from drl.eval.stats import wilson_interval
from drl.rules import Board, IllegalMoveError, Move, Variant, VariantError
from drl.rules.pdn import read_games

__all__ = [
    "PlayedGame",
    "as_games",
    "first_mover",
    "mean_ci",
    "parse_variant",
    "rate",
    "replay_game",
]


def parse_variant(variant: Variant | str) -> Variant:
    """The variant of a string, with a ``ValueError`` that says it is the variant that is wrong.

    Raises:
        ValueError: unknown variant name, flag or value (the message lists valid ones).
    """
    try:
        return Variant.parse(variant)
    except VariantError as err:
        raise ValueError(f"unknown variant {variant!r}: {err}") from None


def rate(successes: float, n: int) -> dict[str, Any]:
    """``{"value": successes / n, "ci95": [lo, hi], "n": n}`` with the 95% Wilson interval.

    ``value`` is None and ``ci95`` ``[0, 1]`` when ``n == 0``. ``successes`` may be
    fractional (points, draw = 1/2).
    """
    lo, hi = wilson_interval(successes, n)
    return {"value": (float(successes) / n) if n else None, "ci95": [lo, hi], "n": int(n)}


def mean_ci(values: Sequence[float] | np.ndarray) -> dict[str, Any]:
    """``{"value": mean, "ci95": [lo, hi], "n": n}``: the mean with a 95% Student-t interval.

    ``ci95`` is None below two values, and ``[m, m]`` when they are all equal.
    """
    x = np.asarray(values, dtype=np.float64)
    n = int(x.size)
    if n == 0:
        return {"value": None, "ci95": None, "n": 0}
    m = float(x.mean())
    if n < 2:
        return {"value": m, "ci95": None, "n": n}
    sem = float(x.std(ddof=1)) / math.sqrt(n)
    if sem == 0.0:
        return {"value": m, "ci95": [m, m], "n": n}
    half = float(stats.t.ppf(0.975, n - 1)) * sem
    return {"value": m, "ci95": [m - half, m + half], "n": n}


@dataclass(frozen=True)
class PlayedGame:
    """One finished (or cut) game.

    Attributes:
        variant: the full variant string (Give and Take: with its ``taker`` flag).
        opening: FEN of the first position, or None for the variant's start position.
        moves: the moves in PDN text, in playing order.
        winner: ``"black"``, ``"white"`` or None (draw or truncation).
        termination: the rule that ended it (``drl.rules.Termination`` name in lower case),
            ``"database"`` for a game the arena ended at a position its endgame database
            decides (:mod:`drl.eval.endings`), or ``"max_plies"`` for a game cut before
            any rule ended it.
        result: PDN result, White first (``"1-0"``, ``"0-1"``, ``"1/2-1/2"``, ``"*"``).
        pdn: the game's PDN text ("" when not known; :func:`game_pdn` writes one).
        title: a short label.
        players: the names of ``(black, white)`` where known (arena records, PDN
            ``Black``/``White`` tags), else None.
    """

    variant: str
    opening: str | None
    moves: tuple[str, ...]
    winner: str | None
    termination: str
    result: str
    pdn: str = ""
    title: str = ""
    players: tuple[str, str] | None = None

    @property
    def truncated(self) -> bool:
        """True for a game that no rule ended (cut at ``max_plies``)."""
        return self.termination == "max_plies"

    @property
    def plies(self) -> int:
        """Number of plies played."""
        return len(self.moves)

    def start_board(self) -> Board:
        """The board of the first position."""
        return Board(self.variant, fen=self.opening)


def first_mover(game: PlayedGame) -> str:
    """``"black"`` or ``"white"``: the side to move in the game's first position."""
    return COLORS[int(game.start_board().turn)]


def replay_game(game: PlayedGame) -> Iterator[tuple[Board, Move]]:
    """Each position of the game and the move played in it, in order.

    The same board object is yielded each time, before the move is pushed: read it (or
    copy it) before asking for the next item.

    Raises:
        ValueError: a move is not legal (the message names the game, the ply and move).
    """
    board = game.start_board()
    for ply, text in enumerate(game.moves):
        try:
            move = board.parse_move(text)
        except IllegalMoveError as err:
            raise ValueError(
                f"game {game.title or '?'}: ply {ply + 1} {text!r} is not legal in "
                f"{board.fen()}: {err}"
            ) from None
        yield board, move
        board.push(move)


def _finish(
    variant: str,
    opening: str | None,
    moves: Sequence[str],
    title: str,
    pdn: str,
    database: str | None = None,
    players: tuple[str, str] | None = None,
) -> PlayedGame:
    """A game from its moves: replayed, ended by the rules, by the database, or counted as cut.

    ``database`` is the PDN ``Database`` tag of a game the arena's endgame database ended
    (``"black"``, ``"white"`` or ``"draw"``): a game no rule ended gets that result.
    """
    board = Board(variant, fen=opening)
    for ply, text in enumerate(moves):
        if board.is_game_over():
            raise ValueError(
                f"game {title}: ply {ply + 1} {text!r} comes after the end of the game"
            )
        try:
            board.push(str(text))
        except IllegalMoveError as err:
            raise ValueError(
                f"game {title}: ply {ply + 1} {text!r} is not legal in {board.fen()}: {err}"
            ) from None
    outcome = board.outcome()
    if outcome is None and database in ("black", "white", "draw"):
        winner = None if database == "draw" else database
        termination = "database"
        result = {None: "1/2-1/2", "black": "0-1", "white": "1-0"}[winner]
    elif outcome is None:
        winner, termination, result = None, "max_plies", "*"
    else:
        winner = None if outcome.winner is None else COLORS[int(outcome.winner)]
        termination = outcome.termination.name.lower()
        result = outcome.result
    return PlayedGame(
        variant=variant,
        opening=opening,
        moves=tuple(str(m) for m in board.move_stack),
        winner=winner,
        termination=termination,
        result=result,
        pdn=pdn,
        title=title,
        players=players,
    )


def _from_record(rec: GameRecord) -> PlayedGame:
    return PlayedGame(
        variant=rec.variant,
        opening=rec.opening,
        moves=tuple(rec.moves),
        winner=rec.winner,
        termination=rec.termination,
        result=rec.result,
        pdn=rec.pdn,
        title=f"game {rec.index + 1}: {rec.black} (Black) vs {rec.white} (White)",
        players=(rec.black, rec.white),
    )


def _is_pdn(source: object) -> bool:
    return isinstance(source, (str, bytes, os.PathLike))


def as_games(
    source: Iterable[Any] | str | os.PathLike,
    variant: Variant | str | None = None,
) -> list[PlayedGame]:
    """Games to analyse, from whatever holds them.

    Args:
        source: PDN text, a PDN file path, or an iterable of
            :class:`~drl.eval.records.GameRecord`, :class:`PlayedGame`, move lists
            (``["11-15", "22-18", ...]`` from the start position) or dicts with
            ``"moves"`` and optionally ``"opening"`` (a FEN) and ``"variant"``.
            A game given by its moves is replayed; one that no rule ended is counted as
            cut (termination ``"max_plies"``).
        variant: the variant of games that do not name one (PDN games use their
            ``Variant`` tag, then this; default ``english`` for PDN only when neither).

    Returns:
        The games, in order.

    Raises:
        ValueError: an unknown variant, an illegal move (naming the game and ply), a
            PDN syntax error, or an item of an unknown kind.
    """
    default = None if variant is None else str(parse_variant(variant))
    out: list[PlayedGame] = []
    if _is_pdn(source):
        try:
            games = list(read_games(source))  # type: ignore[arg-type]
        except (FileNotFoundError, OSError) as err:
            raise ValueError(f"cannot read PDN {source!s}: {err}") from None
        for g in games:
            v = g.tags.get("Variant") or default
            if v is None:
                from drl.rules.pdn import variant_for_game

                v = str(variant_for_game(g, "english"))
            v = str(parse_variant(v))
            title = g.tags.get("Event", "") + (
                f" round {g.tags['Round']}" if "Round" in g.tags else ""
            )
            ended = g.tags.get("Database") if g.tags.get("Termination") == "database" else None
            names = (
                (g.tags["Black"], g.tags["White"])
                if "Black" in g.tags and "White" in g.tags
                else None
            )
            out.append(_finish(v, g.fen, g.moves, title.strip() or g.name, "", ended, names))
        return out
    assert not isinstance(source, (str, bytes, os.PathLike))
    for i, item in enumerate(source):
        if isinstance(item, PlayedGame):
            out.append(item)
        elif isinstance(item, GameRecord):
            out.append(_from_record(item))
        elif isinstance(item, Mapping):
            v = item.get("variant", default)
            if v is None:
                raise ValueError(f"game {i + 1} names no variant and none was given")
            out.append(
                _finish(
                    str(parse_variant(v)),
                    item.get("opening"),
                    list(item["moves"]),
                    str(item.get("title", f"game {i + 1}")),
                    "",
                )
            )
        elif isinstance(item, Sequence) and not isinstance(item, str):
            if default is None:
                raise ValueError(f"game {i + 1} is a move list: give its variant")
            out.append(_finish(default, None, list(item), f"game {i + 1}", ""))
        else:
            raise ValueError(
                f"game {i + 1}: expected a GameRecord, PlayedGame, move list or dict, "
                f"got {type(item).__name__}"
            )
    return out


def game_fens(game: PlayedGame) -> list[str]:
    """FEN before the first move and after each ply (``plies + 1`` strings)."""
    board = game.start_board()
    fens = [board.fen()]
    for text in game.moves:
        board.push(text)
        fens.append(board.fen())
    return fens


def game_pdn(game: PlayedGame) -> str:
    """The game's PDN: its own when it has one, else written from a replay."""
    if game.pdn:
        return game.pdn
    from drl.rules.pdn import board_to_pdn

    board = game.start_board()
    for text in game.moves:
        board.push(text)
    outcome = board.outcome()
    tags = {
        "Event": game.title or "drl analysis",
        "Variant": game.variant,
        "Termination": game.termination,
    }
    return board_to_pdn(board, tags, outcome if outcome is not None else "*")


def sample_game(game: PlayedGame) -> dict[str, Any]:
    """``{"title", "pdn", "moves", "fens", "result", "termination"}`` of one game.

    For a report to draw every position.
    """
    return {
        "title": game.title,
        "pdn": game_pdn(game),
        "moves": list(game.moves),
        "fens": game_fens(game),
        "result": game.result,
        "termination": game.termination,
    }


def has_roles(variant: Variant | str) -> bool:
    """True when the variant has a Taker and a Giver (Give and Take, not both Givers)."""
    return parse_variant(variant).is_asymmetric


def pieces_at_start(variant: Variant | str) -> int:
    """Pieces on the board at the variant's start position (24 on 8x8, 40 on 10x10)."""
    v = parse_variant(variant)
    return v.rows_of_men * v.board_size  # rows_of_men rows of board_size / 2, both sides
