"""Outcome rates of a set of games.

First-mover score, draws, truncations, game length and, in Give and Take, the Taker's
score.

Points: a win is 1, a loss 0, a draw by rule and a game cut at ``max_plies`` 1/2 each
(the arena's convention, :mod:`drl.eval.arena`). The first mover is the side to move in
the game's first position (after a random opening of an even number of plies, the
variant's first player).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from drl.analysis.games import PlayedGame, first_mover, mean_ci, parse_variant, rate
from drl.eval.records import COLORS

__all__ = ["outcome_rates"]

NO_TAKER_BOTH_GIVERS = "no Taker: both players are Givers (objectives give/give)"
NO_TAKER_SYMMETRIC = "no Taker: both players have the same objective"


def _points(game: PlayedGame, color: str) -> float:
    if game.winner is None:
        return 0.5
    return 1.0 if game.winner == color else 0.0


def _taker_color(game: PlayedGame) -> str:
    v = parse_variant(game.variant)
    return COLORS[0] if v.role(0) == "taker" else COLORS[1]


def _score_block(games: Sequence[PlayedGame], color_of) -> dict[str, Any]:
    """Score, win, draw (by rule) and loss rates of the side ``color_of(game)``."""
    n = len(games)
    pts = sum(_points(g, color_of(g)) for g in games)
    wins = sum(g.winner is not None and g.winner == color_of(g) for g in games)
    losses = sum(g.winner is not None and g.winner != color_of(g) for g in games)
    draws = sum(g.winner is None and not g.truncated for g in games)
    return {
        "score": rate(pts, n),
        "win": rate(wins, n),
        "draw": rate(draws, n),
        "loss": rate(losses, n),
        "truncated": rate(sum(g.truncated for g in games), n),
    }


def outcome_rates(games: Sequence[PlayedGame]) -> dict[str, Any]:
    """Outcome rates of ``games`` (all of one variant, Taker colours may differ).

    Returns:
        A dict (rates are ``{"value", "ci95", "n"}``, Wilson 95%):

        - ``games``: number of games.
        - ``first_mover``: ``{"score", "win", "draw", "loss", "truncated"}`` from the
          side that moved first.
        - ``draw_rate``: draws by rule (truncations not included).
        - ``truncation_rate``: games cut at ``max_plies``.
        - ``decisive_rate``: games with a winner.
        - ``length``: plies per game, ``{"mean": {"value", "ci95", "n"} (Student t),
          "median", "min", "max"}``.
        - ``terminations``: ``{termination: count}``.
        - ``taker``: Give and Take only, else None: the Taker's
          ``{"score", "win", "draw", "loss", "truncated"}`` plus ``"by_color"``
          (``{"black": ..., "white": ...}``, the same block for the games where the
          Taker had that colour).
        - ``giver``: the Giver's block (None outside Give and Take).
        - ``first_mover_by_role``: ``{"taker": block, "giver": block}`` of the first
          mover by the role it had (None outside Give and Take).
        - ``taker_note``: why ``taker`` is None (both Givers, or no roles), else None.

    Raises:
        ValueError: no games.
    """
    if not games:
        raise ValueError("outcome rates need at least one game")
    n = len(games)
    plies = np.array([g.plies for g in games], dtype=np.float64)
    terminations: dict[str, int] = {}
    for g in games:
        terminations[g.termination] = terminations.get(g.termination, 0) + 1
    first = {id(g): first_mover(g) for g in games}
    out: dict[str, Any] = {
        "games": n,
        "first_mover": _score_block(games, lambda g: first[id(g)]),
        "draw_rate": rate(sum(g.winner is None and not g.truncated for g in games), n),
        "truncation_rate": rate(sum(g.truncated for g in games), n),
        "decisive_rate": rate(sum(g.winner is not None for g in games), n),
        "length": {
            "mean": mean_ci(plies),
            "median": float(np.median(plies)),
            "min": int(plies.min()),
            "max": int(plies.max()),
        },
        "terminations": dict(sorted(terminations.items())),
        "taker": None,
        "giver": None,
        "first_mover_by_role": None,
        "taker_note": None,
    }
    variants = [parse_variant(g.variant) for g in games]
    if all(v.is_asymmetric for v in variants):
        taker = {id(g): _taker_color(g) for g in games}
        block = _score_block(games, lambda g: taker[id(g)])
        block["by_color"] = {
            c: _score_block(sub, lambda g: taker[id(g)])
            for c in COLORS
            if (sub := [g for g in games if taker[id(g)] == c])
        }
        out["taker"] = block
        out["giver"] = _score_block(
            games, lambda g: "white" if taker[id(g)] == "black" else "black"
        )
        out["first_mover_by_role"] = {
            role: _score_block(sub, lambda g: first[id(g)])
            for role in ("taker", "giver")
            if (sub := [g for g in games if (first[id(g)] == taker[id(g)]) == (role == "taker")])
        }
    elif any(v.is_asymmetric for v in variants):
        raise ValueError("games mix Give and Take with variants without roles")
    elif all(v.name == "give_and_take" for v in variants):
        out["taker_note"] = NO_TAKER_BOTH_GIVERS
    else:
        out["taker_note"] = NO_TAKER_SYMMETRIC
    return out
