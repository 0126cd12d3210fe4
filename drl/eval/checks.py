"""The checks of a ``drl-eval`` config that its types cannot make, run before anything is played.

Each error names the key (and, for counts, the limit of :mod:`drl.eval.limits`).
"""

from __future__ import annotations

import math

from drl.agents import spec_name
from drl.eval.config import EvalConfig, planned_games
from drl.eval.limits import (
    MAX_GAMES,
    MAX_LIVES,
    MAX_OPENING_PLIES,
    MAX_PLIES,
    MAX_WORKERS,
    POOL_ROUNDS,
    check_count,
)
from drl.eval.runners import FORMATS
from drl.rules import Variant

__all__ = ["check_config"]


def check_config(cfg: EvalConfig) -> None:
    """Check ``cfg`` as a whole before anything runs.

    Raises:
        ValueError: ``"KEY=VALUE: what is wrong"`` for the first key found wrong (counts
            name their limit: :data:`~drl.eval.limits.MAX_GAMES` games and the other
            ``MAX_*``; ``agents`` lists the valid agents for an unknown one).
    """
    try:
        Variant.parse(cfg.variant.spec)
    except ValueError as err:
        raise ValueError(f"variant.spec={cfg.variant.spec!r}: {err}") from None
    if cfg.format not in FORMATS:
        raise ValueError(f"format={cfg.format!r}: choose one of {', '.join(FORMATS)}")
    _check_counts(cfg)
    _check_numbers(cfg)
    _check_agents(cfg)


def _count(key: str, value: int, low: int, high: int, unit: str = "") -> None:
    try:
        check_count(value, key, low, high)
    except ValueError:
        raise ValueError(f"{key}={value}: must be between {low} and {high:,}{unit}") from None


def _check_counts(cfg: EvalConfig) -> None:
    """Games, plies, lives, openings and workers, each in its range."""
    _count("games", cfg.games, 1, MAX_GAMES)
    if cfg.format == "sprt" and cfg.games % 2:
        raise ValueError(f"games={cfg.games}: format=sprt plays game pairs, use an even number")
    if cfg.format == "halftime" and (cfg.games < 2 or cfg.games % 2):
        raise ValueError(
            f"games={cfg.games}: format=halftime plays two halves of games/2 "
            f"games each (roles switched at halftime), use an even number >= 2"
        )
    _count("max_plies", cfg.max_plies, 1, MAX_PLIES)
    _count("lives", cfg.lives, 1, MAX_LIVES)
    _count("pool_games_per_round", cfg.pool_games_per_round, 1, MAX_GAMES)
    if cfg.openings is not None:
        if cfg.openings < 0:
            raise ValueError(
                f"openings={cfg.openings}: must be >= 0 plies (0 or null: the start position)"
            )
        _count("openings", cfg.openings, 0, MAX_OPENING_PLIES, " plies of random moves")
    if cfg.workers is not None:
        if cfg.workers < 1:
            raise ValueError(f"workers={cfg.workers}: must be >= 1 (or null: automatic)")
        _count("workers", cfg.workers, 1, MAX_WORKERS)
    if cfg.seed < 0:
        raise ValueError(f"seed={cfg.seed}: must be >= 0")


def _check_numbers(cfg: EvalConfig) -> None:
    """The rating's and the SPRT's numbers and choices."""
    if not 0 < cfg.confidence < 1:
        raise ValueError(f"confidence={cfg.confidence}: must be between 0 and 1")
    if not 0 <= cfg.prior_draws < math.inf:
        raise ValueError(f"prior_draws={cfg.prior_draws}: must be a finite number >= 0")
    s = cfg.sprt
    if not (0 < s.alpha < 1 and 0 < s.beta < 1):
        raise ValueError(f"sprt.alpha={s.alpha}, sprt.beta={s.beta}: must be between 0 and 1")
    if not (math.isfinite(s.elo0) and math.isfinite(s.elo1) and s.elo0 < s.elo1):
        raise ValueError(f"sprt.elo0={s.elo0}, sprt.elo1={s.elo1}: need finite elo0 < elo1")
    _count("sprt.max_games", s.max_games, 1, MAX_GAMES)
    if cfg.draw_model not in ("half", "davidson"):
        raise ValueError(f"draw_model={cfg.draw_model!r}: choose half or davidson")
    if cfg.interval not in ("profile", "hessian"):
        raise ValueError(f"interval={cfg.interval!r}: choose profile or hessian")


def _check_agents(cfg: EvalConfig) -> None:
    """Known agents, as many as the format takes, and no more games than the limit."""
    try:
        names = [spec_name(s) for s in cfg.agents]  # raises with the list of valid agents
    except ValueError as err:
        raise ValueError(f"agents: {err}") from None
    if cfg.format in ("halftime", "sprt") and len(names) != 2:
        raise ValueError(f"agents: format={cfg.format} needs exactly 2 agents, got {len(names)}")
    need = 3 if cfg.format == "pool" else 2
    if len(names) < need:
        raise ValueError(
            f"agents: format={cfg.format} needs at least {need} agents, got {len(names)}"
        )
    if len(set(names)) != len(names) and cfg.format not in ("halftime", "sprt"):
        raise ValueError(f"agents: names must differ (add e.g. seed=1 to tell two apart): {names}")
    total = planned_games(cfg)
    if total is not None and total > MAX_GAMES:
        raise ValueError(
            f"games={cfg.games}: format={cfg.format} with {len(names)} agents would play "
            f"{total:,} games, more than the limit of {MAX_GAMES:,}"
        )
    most = cfg.pool_games_per_round * (len(names) // 2) * POOL_ROUNDS
    if cfg.format == "pool" and most > MAX_GAMES:
        raise ValueError(
            f"pool_games_per_round={cfg.pool_games_per_round}: {len(names)} agents "
            f"over up to {POOL_ROUNDS} rounds could play {most:,} games, more than "
            f"the limit of {MAX_GAMES:,}"
        )
