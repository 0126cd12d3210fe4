"""Elo ratings by maximum likelihood over any set of games (round robin or gauntlet).

Model. The expected score of player ``i`` against ``j`` is the logistic Elo curve
``E = 1 / (1 + 10 ** (-(r_i - r_j) / 400))``. Two ways to count draws:

- ``"half"`` (default): a draw is half a win and half a loss, so the log-likelihood of
  a pair is ``(w + d/2) log E + (l + d/2) log (1 - E)``. This is the usual
  "score" model; the estimate depends only on each pair's total score.
- ``"davidson"``: Davidson's trinomial model, with a draw parameter,
  ``P(win) = g_i / (g_i + g_j + nu sqrt(g_i g_j))``, ``P(draw) = nu sqrt(g_i g_j) / (...)``
  with ``g = 10 ** (r / 400)`` and a fitted draw parameter ``nu > 0``. Here
  ``r_i - r_j`` keeps its Elo meaning (``P(win) / P(loss) = g_i / g_j``).

Ratings are only defined up to a constant: one player (the anchor, e.g. ``random``)
is held at ``anchor_elo`` and every interval is relative to it.

Intervals come from the profile likelihood (default): the set of ratings ``r_i`` whose
profile log-likelihood lies within ``chi2(1).ppf(confidence) / 2`` of the maximum, or from
the inverse Hessian (Wald intervals, faster, symmetric).

If a player is never beaten (or never scores) the maximum-likelihood rating is infinite;
such estimates are reported as ``±inf``. ``prior_draws`` adds that many virtual draws to
every pair that met, a weak prior that keeps all ratings finite.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats

__all__ = ["Ratings", "fit_elo", "expected_score", "elo_from_score"]

_K = np.log(10.0) / 400.0
_BOUND = 3000.0  # |rating difference| beyond which an estimate counts as infinite


def expected_score(elo_diff: float | np.ndarray) -> float | np.ndarray:
    """Logistic expected score for an Elo difference (points per game, in [0, 1])."""
    return 1.0 / (1.0 + 10.0 ** (-np.asarray(elo_diff, dtype=float) / 400.0))


def elo_from_score(score: float | np.ndarray) -> float | np.ndarray:
    """Inverse of :func:`expected_score`; ``±inf`` at scores 1 and 0."""
    s = np.asarray(score, dtype=float)
    with np.errstate(divide="ignore"):
        return -400.0 * np.log10(1.0 / s - 1.0)


@dataclass(frozen=True)
class Ratings:
    """Fitted ratings.

    Attributes:
        players: player names, in the order of the arrays below.
        elo: float64 [P], ratings in Elo points (anchor at ``anchor_elo``).
        lower, upper: float64 [P], bounds of the ``confidence`` interval (``±inf`` when
            the likelihood does not bound them).
        games: int64 [P], games played by each player.
        score: float64 [P], points scored (draw = 1/2).
        anchor: the name of the player held fixed.
        draw_model: ``"half"`` or ``"davidson"``.
        draw_nu: Davidson's draw parameter (``None`` for the half model).
        confidence: the interval's confidence level.
    """

    players: tuple[str, ...]
    elo: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    games: np.ndarray
    score: np.ndarray
    anchor: str
    draw_model: str
    draw_nu: float | None
    confidence: float

    def __getitem__(self, name: str) -> float:
        return float(self.elo[self.players.index(name)])

    def interval(self, name: str) -> tuple[float, float]:
        """The ``(lower, upper)`` interval of one player."""
        i = self.players.index(name)
        return float(self.lower[i]), float(self.upper[i])

    def to_dict(self) -> dict:
        """JSON-friendly form (infinite bounds become the strings ``"inf"``/``"-inf"``)."""

        def num(x: float) -> float | str:
            return float(x) if np.isfinite(x) else ("inf" if x > 0 else "-inf")

        return {
            "anchor": self.anchor,
            "draw_model": self.draw_model,
            "draw_nu": self.draw_nu,
            "confidence": self.confidence,
            "players": [
                {
                    "name": p,
                    "elo": num(self.elo[i]),
                    "lower": num(self.lower[i]),
                    "upper": num(self.upper[i]),
                    "games": int(self.games[i]),
                    "score": float(self.score[i]),
                }
                for i, p in enumerate(self.players)
            ],
        }


class _Table:
    """Pairwise win/draw/loss counts, ``i < j``, from the point of view of ``i``."""

    def __init__(self, games: Iterable[tuple[str, str, float]], players: Sequence[str] | None):
        names: list[str] = list(players) if players is not None else []
        counts: dict[tuple[int, int], list[float]] = {}
        for a, b, s in games:
            if a == b:
                raise ValueError(f"a game needs two different players, got {a!r} twice")
            if s not in (0, 0.5, 1):
                raise ValueError(f"game score must be 0, 0.5 or 1 (for {a!r} vs {b!r}), got {s!r}")
            for p in (a, b):
                if p not in names:
                    if players is not None:
                        raise ValueError(f"player {p!r} is not in players={list(players)}")
                    names.append(p)
            i, j = names.index(a), names.index(b)
            if i > j:
                i, j, s = j, i, 1 - s
            c = counts.setdefault((i, j), [0.0, 0.0, 0.0])
            c[0 if s == 1 else 1 if s == 0.5 else 2] += 1
        if not counts:
            raise ValueError("no games to rate")
        self.names = names
        keys = sorted(counts)
        self.i = np.array([k[0] for k in keys], dtype=np.int64)
        self.j = np.array([k[1] for k in keys], dtype=np.int64)
        table = np.array([counts[k] for k in keys], dtype=float)
        self.w, self.d, self.l = table[:, 0], table[:, 1], table[:, 2]

    def games_and_score(self) -> tuple[np.ndarray, np.ndarray]:
        p = len(self.names)
        n = self.w + self.d + self.l
        games = np.bincount(self.i, n, p) + np.bincount(self.j, n, p)
        score = np.bincount(self.i, self.w + self.d / 2, p) + np.bincount(
            self.j, self.l + self.d / 2, p
        )
        return games.astype(np.int64), score

    def check_connected(self, anchor: int) -> None:
        p = len(self.names)
        seen = {anchor}
        frontier = [anchor]
        adj: dict[int, set[int]] = {k: set() for k in range(p)}
        for a, b in zip(self.i, self.j, strict=True):
            adj[int(a)].add(int(b))
            adj[int(b)].add(int(a))
        while frontier:
            x = frontier.pop()
            for y in adj[x] - seen:
                seen.add(y)
                frontier.append(y)
        missing = [self.names[k] for k in range(p) if k not in seen]
        if missing:
            raise ValueError(
                f"players {missing} never meet the anchor {self.names[anchor]!r} "
                "(directly or through other players); their ratings are undefined"
            )


def _neg_loglik_half(x: np.ndarray, t: _Table, free: np.ndarray, r: np.ndarray):
    r = r.copy()
    r[free] = x
    diff = _K * (r[t.i] - r[t.j])
    win = t.w + t.d / 2
    loss = t.l + t.d / 2
    # log E = -log(1 + exp(-diff)), log(1-E) = -log(1 + exp(diff))
    ll = -(win * np.logaddexp(0, -diff) + loss * np.logaddexp(0, diff)).sum()
    e = 1.0 / (1.0 + np.exp(-diff))
    g_pair = _K * (win - (win + loss) * e)
    grad = np.bincount(t.i, g_pair, len(r)) - np.bincount(t.j, g_pair, len(r))
    return -ll, -grad[free]


def _neg_loglik_davidson(x: np.ndarray, t: _Table, free: np.ndarray, r: np.ndarray):
    r = r.copy()
    r[free] = x[:-1]
    log_nu = x[-1]
    a = _K * r[t.i]
    b = _K * r[t.j]
    ld = log_nu + (a + b) / 2
    log_den = np.logaddexp(np.logaddexp(a, b), ld)
    ll = (t.w * (a - log_den) + t.d * (ld - log_den) + t.l * (b - log_den)).sum()
    return -ll


@dataclass
class _Fit:
    value: float
    x: np.ndarray


def _fit(t: _Table, model: str, free: np.ndarray, r: np.ndarray, x0: np.ndarray) -> _Fit:
    n_free = int(free.sum())
    bounds = [(-_BOUND, _BOUND)] * n_free
    if model == "half":
        if n_free == 0:
            return _Fit(_neg_loglik_half(np.zeros(0), t, free, r)[0], np.zeros(0))
        res = optimize.minimize(
            _neg_loglik_half,
            x0,
            args=(t, free, r),
            jac=True,
            method="L-BFGS-B",
            bounds=bounds,
            options={"maxiter": 2000, "ftol": 1e-13, "gtol": 1e-9},
        )
    else:
        bounds = bounds + [(-20.0, 5.0)]
        res = optimize.minimize(
            _neg_loglik_davidson,
            x0,
            args=(t, free, r),
            method="L-BFGS-B",
            bounds=bounds,
            options={"maxiter": 4000, "ftol": 1e-13, "gtol": 1e-8},
        )
    return _Fit(float(res.fun), np.asarray(res.x, dtype=float))


def _check_options(draw_model: str, interval: str, confidence: float, prior_draws: float) -> None:
    """ValueError for an option of :func:`fit_elo` out of its choices or range."""
    if draw_model not in ("half", "davidson"):
        raise ValueError(f"draw_model must be 'half' or 'davidson', got {draw_model!r}")
    if interval not in ("profile", "hessian"):
        raise ValueError(f"interval must be 'profile' or 'hessian', got {interval!r}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if prior_draws < 0:
        raise ValueError(f"prior_draws must be >= 0, got {prior_draws}")


def _anchor(names: list[str], anchor: str | None) -> str:
    """The anchor: ``anchor``, else ``random`` when it played, else the first player."""
    if anchor is None:
        anchor = "random" if "random" in names else names[0]
    if anchor not in names:
        raise ValueError(f"anchor {anchor!r} is not among the players {names}")
    return anchor


def _standard_errors(
    t: _Table, draw_model: str, free: np.ndarray, r0: np.ndarray, best: _Fit
) -> np.ndarray:
    """The free ratings' standard errors from the likelihood's numeric Hessian (Wald).

    Infinite where the Hessian cannot be inverted.
    """
    n = int(free.sum())
    steps = np.ones(len(best.x))
    if draw_model == "davidson":
        steps[-1] = 1e-3
    h = _numeric_hessian(lambda x: _objective(t, draw_model, free, r0, x), best.x, steps)
    try:
        cov = np.linalg.inv(h)
        return np.sqrt(np.clip(np.diag(cov)[:n], 0, None))
    except np.linalg.LinAlgError:
        return np.full(n, np.inf)


def fit_elo(
    games: Iterable[tuple[str, str, float]],
    *,
    players: Sequence[str] | None = None,
    anchor: str | None = None,
    anchor_elo: float = 0.0,
    draw_model: str = "half",
    prior_draws: float = 0.0,
    confidence: float = 0.95,
    interval: str = "profile",
) -> Ratings:
    """Maximum-likelihood Elo ratings with confidence intervals.

    Args:
        games: ``(player_a, player_b, score_a)`` triples, ``score_a`` in {0, 0.5, 1}.
            Any schedule works (round robin, gauntlet, Swiss) as long as every player is
            connected to the anchor through games.
        players: optional fixed list of names (order of the result); defaults to the order
            of first appearance.
        anchor: the player held at ``anchor_elo``; defaults to ``"random"`` when present,
            else the first player.
        anchor_elo: the anchor's rating (Elo points).
        draw_model: ``"half"`` (draw = half point) or ``"davidson"`` (see module doc).
        prior_draws: virtual draws added to every pair that met (>= 0); keeps ratings finite.
        confidence: interval level in (0, 1).
        interval: ``"profile"`` (profile likelihood) or ``"hessian"`` (Wald).

    Returns:
        :class:`Ratings`.

    Raises:
        ValueError: bad scores, unknown options, no games, or a player not connected to
            the anchor.
    """
    _check_options(draw_model, interval, confidence, prior_draws)
    t = _Table(games, players)
    games_played, score = t.games_and_score()
    t.d = t.d + prior_draws
    names = t.names
    anchor = _anchor(names, anchor)
    a = names.index(anchor)
    t.check_connected(a)

    p = len(names)
    free = np.ones(p, dtype=bool)
    free[a] = False
    r0 = np.zeros(p)
    x0 = np.zeros(p - 1 + (draw_model == "davidson"))
    best = _fit(t, draw_model, free, r0, x0)
    r_hat = r0.copy()
    r_hat[free] = best.x[: p - 1]
    nu = float(np.exp(best.x[-1])) if draw_model == "davidson" else None

    lower = np.full(p, -np.inf)
    upper = np.full(p, np.inf)
    lower[a] = upper[a] = 0.0
    crit = stats.chi2.ppf(confidence, 1) / 2.0

    if interval == "hessian":
        se = _standard_errors(t, draw_model, free, r0, best)
        z = np.sqrt(2 * crit)
        lower[free] = r_hat[free] - z * se
        upper[free] = r_hat[free] + z * se
    else:
        for k in np.flatnonzero(free):
            lower[k], upper[k] = _profile_bounds(t, draw_model, int(k), a, r_hat, best, crit, nu)

    r_hat, lower, upper = (_unbounded(v) for v in (r_hat, lower, upper))
    return Ratings(
        players=tuple(names),
        elo=r_hat + anchor_elo,
        lower=lower + anchor_elo,
        upper=upper + anchor_elo,
        games=games_played,
        score=score,
        anchor=anchor,
        draw_model=draw_model,
        draw_nu=nu,
        confidence=confidence,
    )


def _unbounded(v: np.ndarray) -> np.ndarray:
    """Estimates that reached the optimiser's box are infinite in truth."""
    v = v.copy()
    hit = np.abs(v) >= _BOUND - 1e-6
    v[hit] = np.copysign(np.inf, v[hit])
    return v


def _objective(t: _Table, model: str, free: np.ndarray, r: np.ndarray, x: np.ndarray) -> float:
    if model == "half":
        return float(_neg_loglik_half(x, t, free, r)[0])
    return float(_neg_loglik_davidson(x, t, free, r))


def _numeric_hessian(f, x: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Central-difference Hessian of ``f`` at ``x`` (steps ``h`` per parameter)."""
    n = len(x)
    hess = np.zeros((n, n))
    eye = np.diag(h)
    for i in range(n):
        for j in range(i, n):
            v = (
                f(x + eye[i] + eye[j])
                - f(x + eye[i] - eye[j])
                - f(x - eye[i] + eye[j])
                + f(x - eye[i] - eye[j])
            ) / (4 * h[i] * h[j])
            hess[i, j] = hess[j, i] = v
    return hess


def _profile_bounds(
    t: _Table,
    model: str,
    k: int,
    anchor: int,
    r_hat: np.ndarray,
    best: _Fit,
    crit: float,
    nu: float | None,
) -> tuple[float, float]:
    """Where the profile log-likelihood of player ``k`` drops by ``crit``."""
    p = len(r_hat)
    free = np.ones(p, dtype=bool)
    free[[k, anchor]] = False
    rest = [i for i in range(p) if free[i]]
    x_start = r_hat[rest]
    if model == "davidson":
        assert nu is not None, "the Davidson model is fitted with its draw parameter"
        x_start = np.append(x_start, np.log(nu))

    def drop(value: float) -> float:
        r = np.zeros(p)
        r[k] = value
        fit = _fit(t, model, free, r, x_start)
        return fit.value - best.value - crit

    bounds = []
    for sign in (-1.0, 1.0):
        centre = float(np.clip(r_hat[k], -_BOUND, _BOUND))
        if drop(sign * _BOUND) < 0:
            bounds.append(sign * np.inf)
            continue
        step = 25.0
        inner = centre
        outer = np.clip(centre + sign * step, -_BOUND, _BOUND)
        while drop(outer) < 0:
            inner, step = outer, step * 2
            outer = np.clip(centre + sign * step, -_BOUND, _BOUND)
        lo, hi = sorted((inner, outer))
        bounds.append(optimize.brentq(drop, lo, hi, xtol=0.05) if lo < hi else lo)
    return bounds[0], bounds[1]
