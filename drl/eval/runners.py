"""``drl-eval``'s formats, one runner each in :data:`FORMATS`.

Each runner goes from an :class:`~drl.eval.config.EvalConfig` to the games played and the
format's own results.

Every runner is ``runner(cfg, on_record, say) -> FormatResult``: it plays the format's
games with :meth:`EvalConfig.match_settings`, passes each finished game to
``on_record``, says what happens as it happens (an SPRT's test after each batch) with
``say``, and returns the games, the players to rate, the format's part of
``results.json`` and the tables to print after the ratings.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rich.table import Table

from drl.agents import spec_name
from drl.eval.config import EvalConfig
from drl.eval.elo import Ratings, fit_elo
from drl.eval.formats import halftime_match, pool_tournament
from drl.eval.records import GameRecord
from drl.eval.sprt import SPRTResult, play_sprt
from drl.eval.stats import summarize
from drl.eval.tournament import play_tournament

__all__ = ["FORMATS", "FormatResult", "Runner", "play_format", "rate", "summary"]


@dataclass
class FormatResult:
    """What a format played.

    Attributes:
        records: every game, in game order.
        players: the names to rate and tabulate, in the order given.
        results: the format's own part of ``results.json`` (e.g. ``{"sprt": {...}}``).
        tables: rich tables (or lines) to print after the ratings.
    """

    records: list[GameRecord]
    players: list[str]
    results: dict[str, Any] = field(default_factory=dict)
    tables: list[Any] = field(default_factory=list)


Runner = Callable[[EvalConfig, Callable[[GameRecord], None], Callable[[str], None]], FormatResult]


def _tournament(
    cfg: EvalConfig, on_record: Callable[[GameRecord], None], say: Callable[[str], None]
) -> FormatResult:
    """``round_robin`` and ``gauntlet``: every scheduled pair plays ``games`` games."""
    match = play_tournament(
        list(cfg.agents),
        cfg.variant.spec,
        cfg.games,
        schedule=cfg.format,
        settings=cfg.match_settings(),
        on_record=on_record,
    )
    return FormatResult(match.records, list(match.players))


def _halftime(
    cfg: EvalConfig, on_record: Callable[[GameRecord], None], say: Callable[[str], None]
) -> FormatResult:
    """``halftime``: a Give and Take match, roles switched after ``games / 2`` games."""
    a, b = cfg.agents
    h = halftime_match(
        a,
        b,
        cfg.variant.spec,
        cfg.games // 2,
        settings=cfg.match_settings(),
        on_record=on_record,
    )
    say(
        f"halftime: {h.players[0]} takes first; halves {h.first_half} and "
        f"{h.second_half}; winner {h.winner or 'none (tied)'}"
        + (f", {h.won_both_roles} won in both roles" if h.won_both_roles else "")
    )
    part = {
        "first_half": h.first_half,
        "second_half": h.second_half,
        "total": h.total,
        "winner": h.winner,
        "won_both_roles": h.won_both_roles,
    }
    return FormatResult(h.records, list(h.players), {"halftime": part})


def _pool(
    cfg: EvalConfig, on_record: Callable[[GameRecord], None], say: Callable[[str], None]
) -> FormatResult:
    """``pool``: pool play with ``lives``; its standings as a table."""
    p = pool_tournament(
        list(cfg.agents),
        cfg.variant.spec,
        cfg.lives,
        games_per_round=cfg.pool_games_per_round,
        life_lost_by=cfg.life_lost_by,
        settings=cfg.match_settings(),
        on_record=on_record,
    )
    part = {"winner": p.winner, "rounds": p.rounds, "standings": [vars(s) for s in p.standings]}
    t = Table(
        title=f"Pool ({cfg.lives} lives, a life lost by the round's {cfg.life_lost_by})",
        title_justify="left",
    )
    for col in ("player", "lives", "won", "lost", "tied", "points", "out in round"):
        t.add_column(col, justify="left" if col == "player" else "right")
    for s in p.standings:
        t.add_row(
            s.name,
            str(s.lives),
            str(s.rounds_won),
            str(s.rounds_lost),
            str(s.rounds_tied),
            f"{s.points:g}",
            str(s.out_in_round or "-"),
        )
    names = [spec_name(s) for s in cfg.agents]
    return FormatResult(p.records, names, {"pool": part}, [t])


def _sprt(
    cfg: EvalConfig, on_record: Callable[[GameRecord], None], say: Callable[[str], None]
) -> FormatResult:
    """``sprt``: the first agent against the second in batches until the test decides."""

    def show(now: SPRTResult, games: int) -> None:
        say(
            f"SPRT after {games} games: LLR {now.llr:.2f} "
            f"[{now.lower:.2f}, {now.upper:.2f}] -> {now.decision}"
        )

    a, b = cfg.agents
    t = cfg.sprt
    test = play_sprt(
        a,
        b,
        cfg.variant.spec,
        cfg.games,
        test=t,
        settings=cfg.match_settings(),
        on_batch=show,
        on_record=on_record,
    )
    part = {
        "pentanomial": test.counts,
        "llr": test.result.llr,
        "lower": test.result.lower,
        "upper": test.result.upper,
        "decision": test.result.decision,
        "games": len(test.records),
        "elo0": t.elo0,
        "elo1": t.elo1,
        "alpha": t.alpha,
        "beta": t.beta,
    }
    return FormatResult(test.records, list(test.players), {"sprt": part})


FORMATS: dict[str, Runner] = {
    "round_robin": _tournament,
    "gauntlet": _tournament,
    "halftime": _halftime,
    "pool": _pool,
    "sprt": _sprt,
}
"""``format`` name -> its runner (see the module doc)."""


def play_format(
    cfg: EvalConfig, on_record: Callable[[GameRecord], None], say: Callable[[str], None]
) -> FormatResult:
    """Play ``cfg.format`` (its runner in :data:`FORMATS`).

    Raises:
        ValueError: an unknown format, or what the format's match function raises (bad
            agents, counts...).
    """
    try:
        runner = FORMATS[cfg.format]
    except KeyError:
        raise ValueError(f"format={cfg.format!r}: choose one of {', '.join(FORMATS)}") from None
    return runner(cfg, on_record, say)


def rate(cfg: EvalConfig, records: list[GameRecord], players: list[str]) -> Ratings:
    """Maximum-likelihood Elo of ``players`` over ``records``.

    It uses ``cfg``'s draw model, prior draws, confidence and interval; ``cfg.anchor`` is
    rated 0 when it played.

    Raises:
        ValueError: the players are not connected by games.
    """
    anchor = cfg.anchor if cfg.anchor in players else None
    games = [(r.black, r.white, r.score_of(r.black)) for r in records]
    return fit_elo(
        games,
        players=players,
        anchor=anchor,
        draw_model=cfg.draw_model,
        prior_draws=cfg.prior_draws,
        confidence=cfg.confidence,
        interval=cfg.interval,
    )


def summary(records: list[GameRecord], players: list[str]) -> dict[str, Any]:
    """Each player's W/D/L overall, by colour and by role, as ``results.json`` holds it."""
    return {n: {k: w.to_dict() for k, w in summarize(records, n).items()} for n in players}
