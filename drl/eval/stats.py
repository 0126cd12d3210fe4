"""Win/draw/loss summaries with 95% intervals, overall, per colour and per role.

Rates of wins, draws and losses get Wilson score intervals (``scipy.stats.binomtest``).
The score (points per game, draw = 1/2) gets the Wilson interval of a proportion
``score`` over ``n`` trials: this treats each game as a Bernoulli trial with the same
mean, which overstates the variance when there are draws, so the interval is slightly
conservative. Truncated games (``max_plies``) score 1/2 and are counted as draws here,
and also reported on their own; games ended by the endgame database (termination
``"database"``) count as the win, draw or loss it gave, and are also counted on their
own.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from scipy import stats

from drl.eval.elo import elo_from_score
from drl.eval.records import GameRecord

__all__ = ["WDL", "clocks", "wdl", "summarize", "wilson_interval"]


def wilson_interval(successes: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a proportion (``successes`` may be fractional).

    Args:
        successes: number of successes (or points), 0 <= successes <= n.
        n: number of trials (>= 0); ``(0, 1)`` when 0.
        confidence: interval level in (0, 1).

    Raises:
        ValueError: successes outside [0, n] or confidence outside (0, 1).
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if n == 0:
        return 0.0, 1.0
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be in [0, {n}], got {successes}")
    if float(successes).is_integer():
        ci = stats.binomtest(int(successes), n).proportion_ci(confidence, method="wilson")
        return float(ci.low), float(ci.high)
    z = stats.norm.ppf(0.5 + confidence / 2)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return float(max(0.0, centre - half)), float(min(1.0, centre + half))


@dataclass(frozen=True)
class WDL:
    """Wins, draws and losses of one player over a set of games.

    Attributes:
        wins, draws, losses: counts (draws include truncated games).
        truncated: games cut by ``max_plies`` (a subset of ``draws``).
        database: games ended by the endgame database with their exact result (counted
            in ``wins``, ``draws`` and ``losses`` as that result).
        games: total.
        score: points per game (draw = 1/2), in [0, 1]; NaN with no games.
        score_interval: Wilson interval of ``score``.
        win_interval, draw_interval, loss_interval: Wilson intervals of the three rates.
        elo: the Elo difference implied by ``score`` (``±inf`` at 0 and 1).
        elo_interval: the Elo difference at the ends of ``score_interval``.
    """

    wins: int
    draws: int
    losses: int
    truncated: int
    database: int
    games: int
    score: float
    score_interval: tuple[float, float]
    win_interval: tuple[float, float]
    draw_interval: tuple[float, float]
    loss_interval: tuple[float, float]
    elo: float
    elo_interval: tuple[float, float]

    def to_dict(self) -> dict:
        """JSON-friendly dict (infinite Elo as strings)."""

        def num(x: float) -> float | str | None:
            if np.isnan(x):
                return None
            return float(x) if np.isfinite(x) else ("inf" if x > 0 else "-inf")

        return {
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "truncated": self.truncated,
            "database": self.database,
            "games": self.games,
            "score": num(self.score),
            "score_interval": list(self.score_interval),
            "win_interval": list(self.win_interval),
            "draw_interval": list(self.draw_interval),
            "loss_interval": list(self.loss_interval),
            "elo": num(self.elo),
            "elo_interval": [num(x) for x in self.elo_interval],
        }


def wdl(records: Iterable[GameRecord], player: str, confidence: float = 0.95) -> WDL:
    """Summarise the games of ``player`` among ``records`` (others are ignored)."""
    w = d = lo = tr = db = 0
    for r in records:
        if player not in (r.black, r.white):
            continue
        s = r.score_of(player)
        w += s == 1.0
        d += s == 0.5
        lo += s == 0.0
        tr += r.truncated
        db += r.by_database
    n = w + d + lo
    score = (w + d / 2) / n if n else float("nan")
    s_ci = wilson_interval(w + d / 2, n, confidence)
    with np.errstate(divide="ignore", invalid="ignore"):
        elo = float(elo_from_score(score)) if n else float("nan")
        elo_ci = (float(elo_from_score(s_ci[0])), float(elo_from_score(s_ci[1])))
    return WDL(
        wins=int(w),
        draws=int(d),
        losses=int(lo),
        truncated=int(tr),
        database=int(db),
        games=int(n),
        score=score,
        score_interval=s_ci,
        win_interval=wilson_interval(w, n, confidence),
        draw_interval=wilson_interval(d, n, confidence),
        loss_interval=wilson_interval(lo, n, confidence),
        elo=elo,
        elo_interval=elo_ci,
    )


def summarize(
    records: Iterable[GameRecord], player: str, confidence: float = 0.95
) -> dict[str, WDL]:
    """W/D/L of ``player`` overall, per colour and (Give and Take) per role.

    Returns:
        ``{"all": WDL, "black": WDL, "white": WDL}`` plus ``"taker"`` and ``"giver"``
        when the player had a role in some game. Keys with no games are left out
        (except ``"all"``).
    """
    games = [r for r in records if player in (r.black, r.white)]
    out = {"all": wdl(games, player, confidence)}
    for color in ("black", "white"):
        sub = [r for r in games if r.color_of(player) == color]
        if sub:
            out[color] = wdl(sub, player, confidence)
    for role in ("taker", "giver"):
        sub = [r for r in games if r.role_of(player) == role]
        if sub:
            out[role] = wdl(sub, player, confidence)
    return out


def clocks(records: Iterable[GameRecord], players: Iterable[str]) -> dict[str, dict[str, float]]:
    """Each player's thinking time per move over ``records`` (``GameRecord.clock``).

    Returns:
        ``{player: {"moves": n, "mean_s": mean seconds per move, "max_s": most seconds
        of one move}}``, for the players with a timed move in ``records``.
    """
    names = list(players)
    moves = dict.fromkeys(names, 0)
    seconds = dict.fromkeys(names, 0.0)
    most = dict.fromkeys(names, 0.0)
    for r in records:
        for name in (r.black, r.white):
            if name not in moves:
                continue
            entry = r.clock_of(name)
            if entry is not None:
                moves[name] += entry[0]
                seconds[name] += entry[1]
                most[name] = max(most[name], entry[2])
    return {
        n: {"moves": moves[n], "mean_s": seconds[n] / moves[n], "max_s": most[n]}
        for n in names
        if moves[n]
    }
