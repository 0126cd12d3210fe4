"""Endgame accuracy: how often a player's moves in database positions keep their exact value.

Every ply of every game is replayed on :class:`drl.rules.Board`; a position the
variant's endgame database holds (:mod:`drl.egtb`, opened from disk; nothing is built
here) has an exact value for the side to move, and so has the position after its move.
A move **keeps** the value when the mover's value after it equals the one before: from
a won position the opponent is left lost (or the game is won), from a drawn position
the game stays drawn. A move from a lost position cannot lose value (every move keeps
a loss), so those moves are left out of the accuracy and counted on their own
(``from_loss``).

Values are the database's own, without the counters (no-progress, endgame rules) and
with repetition a draw (:mod:`drl.egtb._probe`): the accuracy measures the choice of
moves against perfect play, not the count of moves left to a counter. A move that wins
or loses the game at once is valued by its result.

Groups as in :mod:`drl.analysis.style`: ``all``, and by the mover's role at that moment
in Give and Take (``taker`` / ``giver``; both Givers: ``giver`` only); and, for games
that name their players (arena records, PDN ``Black``/``White`` tags), by player.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import Any

from drl.analysis.games import PlayedGame, parse_variant, rate, replay_game

__all__ = ["endgame_accuracy"]

_FLIP = {"win": "loss", "loss": "win", "draw": "draw"}


class _Tally:
    def __init__(self) -> None:
        self.moves = {"win": 0, "draw": 0, "loss": 0}
        self.kept = {"win": 0, "draw": 0, "loss": 0}

    def add(self, before: str, after: str) -> None:
        self.moves[before] += 1
        self.kept[before] += after == before

    def summary(self) -> dict[str, Any]:
        n = self.moves["win"] + self.moves["draw"]
        return {
            "accuracy": rate(self.kept["win"] + self.kept["draw"], n),
            "win_kept": rate(self.kept["win"], self.moves["win"]),
            "draw_kept": rate(self.kept["draw"], self.moves["draw"]),
            "moves": n,
            "from_loss": self.moves["loss"],
        }


def _databases(directory: str | os.PathLike | None):
    """``get(variant string) -> Database | None``, each variant opened once."""
    from drl.egtb import EgtbError, open_database

    opened: dict[str, Any] = {}

    def get(variant: str) -> Any:
        if variant not in opened:
            try:
                opened[variant] = open_database(variant, directory=directory)
            except EgtbError:  # rules without databases (roles swapped after captures)
                opened[variant] = None
        return opened[variant]

    return get


def _value_after(board: Any, db: Any) -> str | None:
    """The mover's value after its move (``board`` after the push), or None if unknown.

    A move that wins or loses the game at once is valued by that result; a draw by a
    counter is not a value of the database's, so the position is looked up instead.
    """
    outcome = board.outcome(claim_draw=False)
    if outcome is not None and outcome.winner is not None:
        return "loss" if outcome.value(board.turn) == 1 else "win"
    found = db.probe_state(board.state)
    return None if found is None else _FLIP[found.value]


def endgame_accuracy(
    games: Sequence[PlayedGame], directory: str | os.PathLike | None = None
) -> dict[str, Any] | None:
    """The share of moves in database positions that keep the position's exact value.

    Args:
        games: the games (all of one base variant, as :func:`drl.analysis.analyze_games`
            takes them).
        directory: the database folder (default :func:`drl.egtb.egtb_dir`).

    Returns:
        None when no game's variant has a database on disk; else ``{"pieces": the most
        pieces the database holds, "groups": {group: {"accuracy": rate of kept moves
        among moves from won or drawn positions, "win_kept": rate among moves from won
        positions, "draw_kept": among moves from drawn ones, "moves": moves from won or
        drawn positions, "from_loss": moves from lost positions (left out)}},
        "players": {name: the same for each named player's moves}}``. Rates are
        ``{"value", "ci95", "n"}`` (Wilson 95%). Groups: ``all`` and, in Give and Take,
        ``taker`` / ``giver``; a group without a move in a database position is left
        out. ``players`` is empty for games that do not name their players.

    Raises:
        ValueError: a game with an illegal move.
    """
    get = _databases(directory)
    by_role = all(parse_variant(g.variant).name == "give_and_take" for g in games)
    tallies: dict[str, _Tally] = {"all": _Tally()}
    players: dict[str, _Tally] = {}
    pieces = 0
    for game in games:
        db = get(game.variant)
        if db is None:
            continue
        pieces = max(pieces, db.pieces)
        for turn, role, before, after in _scored_moves(game, db):
            for key in {"all", role if by_role and role else "all"}:
                tallies.setdefault(key, _Tally()).add(before, after)
            if game.players is not None:
                players.setdefault(game.players[turn], _Tally()).add(before, after)
    if not pieces:
        return None
    order = ["all", "taker", "giver"]
    return {
        "pieces": pieces,
        "groups": {
            k: tallies[k].summary()
            for k in order
            if k in tallies and (k == "all" or any(tallies[k].moves.values()))
        },
        "players": {name: t.summary() for name, t in players.items()},
    }


def _scored_moves(game: PlayedGame, db: Any) -> Iterator[tuple[int, str | None, str, str]]:
    """Each move played from a database position, with its values.

    Yields ``(mover's colour, its role or None, value before, value after)``.
    """
    for board, move in replay_game(game):
        found = db.probe_state(board.state)
        if found is None:
            continue
        turn = int(board.turn)
        role = board.role(turn)
        board.push(move)
        after = _value_after(board, db)
        board.pop()
        if after is not None:  # (always: a move never adds pieces)
            yield turn, role, found.value, after
