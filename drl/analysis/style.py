"""How a set of games was played: piece offers, capture lengths, king use and mobility.

Every ply of every game is replayed on :class:`drl.rules.Board` and counted for the group
of the side that made it: in Give and Take by its role at that moment (``taker`` /
``giver``; the both-Givers variation has only ``giver``), else ``first`` / ``second``
mover; ``all`` holds every ply.

- **offer**: a non-capturing move after which the game goes on and the opponent's legal
  moves include a capture (captures are compulsory, so the opponent must take). Capture
  moves are left out of this rate (``n`` counts non-capturing moves only).
- **capture length**: pieces taken by each capture move (a multi-jump is one move).
- **king usage**: share of moves made by a king, among the plies where the mover had at
  least one king.
- **capture rate**: share of plies that were captures.
- **mobility**: legal moves the mover had, per ply (mean with a Student-t interval).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from drl.analysis.games import PlayedGame, mean_ci, parse_variant, rate, replay_game
from drl.rules.core import ST_BK, ST_WK

__all__ = ["style_stats"]


class _Tally:
    def __init__(self) -> None:
        self.plies = 0
        self.quiet = 0
        self.offers = 0
        self.captures: list[int] = []
        self.king_plies = 0
        self.king_moves = 0
        self.mobility: list[int] = []

    def summary(self) -> dict[str, Any]:
        dist: dict[str, int] = {}
        for c in self.captures:
            dist[str(c)] = dist.get(str(c), 0) + 1
        return {
            "plies": self.plies,
            "offer_rate": rate(self.offers, self.quiet),
            "offers": self.offers,
            "capture_rate": rate(len(self.captures), self.plies),
            "capture_length": {
                "mean": mean_ci(self.captures),
                "distribution": dict(sorted(dist.items(), key=lambda kv: int(kv[0]))),
                "multi_rate": rate(sum(c >= 2 for c in self.captures), len(self.captures)),
            },
            "king_usage": rate(self.king_moves, self.king_plies),
            "mobility": mean_ci(self.mobility),
        }


def style_stats(games: Sequence[PlayedGame]) -> dict[str, Any]:
    """Style rates of ``games`` by group.

    Returns:
        ``{"groups": {name: summary}, "grouping": "role" | "mover"}`` where each summary is
        ``{"plies", "offer_rate", "offers", "capture_rate", "capture_length": {"mean",
        "distribution": {"<pieces>": count}, "multi_rate"}, "king_usage", "mobility"}``
        (rates ``{"value", "ci95", "n"}``, Wilson 95%; means with a Student-t 95%
        interval). Groups: ``all`` and ``taker``/``giver`` (Give and Take, both
        Givers: ``giver`` only) or ``first``/``second``. A group with no plies is left
        out.

    Raises:
        ValueError: a game with an illegal move.
    """
    by_role = all(parse_variant(g.variant).name == "give_and_take" for g in games)
    tallies: dict[str, _Tally] = {"all": _Tally()}
    for game in games:
        first = None
        for board, move in replay_game(game):
            turn = int(board.turn)
            if first is None:
                first = turn
            if by_role:
                group = board.role(turn) or "all"
            else:
                group = "first" if turn == first else "second"
            legal = board.legal_moves
            kings = int(board.state[ST_BK if turn == 0 else ST_WK])
            moved_king = bool((kings >> move.start) & 1)
            board.push(move)
            offer = False
            if not move.is_capture and not board.is_game_over():
                offer = any(m.is_capture for m in board.legal_moves)
            board.pop()
            for key in {"all", group}:
                t = tallies.setdefault(key, _Tally())
                t.plies += 1
                t.mobility.append(len(legal))
                if move.is_capture:
                    t.captures.append(len(move.captures))
                else:
                    t.quiet += 1
                    t.offers += offer
                if kings:
                    t.king_plies += 1
                    t.king_moves += moved_king
    order = ["all", "taker", "giver", "first", "second"]
    return {
        "grouping": "role" if by_role else "mover",
        "groups": {k: tallies[k].summary() for k in order if k in tallies and tallies[k].plies},
    }
