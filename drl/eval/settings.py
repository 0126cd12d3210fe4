"""The options every match function shares, as one frozen :class:`MatchSettings`.

``play_match``, ``play_tournament``, ``halftime_match``, ``pool_tournament``,
``play_sprt``, :func:`drl.train.evaluate.evaluate_against` and
:func:`drl.analysis.run.analyze_run` take ``settings=MatchSettings(...)``.

This module imports nothing heavier than numpy: ``drl-eval`` reads it before its
Ctrl-C handler has the arena loaded.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from drl._configs import DEFAULT_MAX_PLIES
from drl.eval.limits import MAX_WORKERS, check_count, check_max_plies, check_openings

__all__ = ["DEFAULT_SETTINGS", "MatchSettings"]


@dataclass(frozen=True)
class MatchSettings:
    """How a match plays its games, whatever its format.

    Attributes:
        openings: plies of distinct seeded random openings, one per two games (0 or None:
            the variant's start position), or FEN strings used in turn (kept as a
            tuple).
        seed: the match seed (openings and agent seeds), an integer >= 0.
        workers: worker processes playing the games (:func:`drl.eval.spread.run_games`),
            in ``[1, MAX_WORKERS]``; None = every usable CPU; 1 = this process.
        max_plies: per-game cap in plies, in ``[1, MAX_PLIES]``; longer games are
            reported as truncated (half a point each), not drawn.
        progress: show a progress bar (tqdm, on stderr).
        pdn_path: write every game to this PDN file as it finishes (rewritten in game
            order at the end), or None.
        event: the PDN ``Event`` tag; None = the match function's own (``drl arena``,
            ``drl tournament``, ...).
        egtb: end a game that reaches a position the variant's endgame database decides
            (counters included) with its exact result (termination ``"database"``;
            :mod:`drl.eval.endings`), where that database is on disk (``drl-egtb
            build``; none is built here). False plays every game out.

    Raises:
        ValueError: a value out of its range, naming the setting and the limit (checked
            when the settings are made, before any game).
    """

    openings: int | Sequence[str] | None = 4
    seed: int = 0
    workers: int | None = None
    max_plies: int = DEFAULT_MAX_PLIES
    progress: bool = True
    pdn_path: str | os.PathLike | None = None
    event: str | None = None
    egtb: bool = True

    def __post_init__(self) -> None:
        if isinstance(self.openings, list):
            object.__setattr__(self, "openings", tuple(self.openings))
        check_openings(self.openings)
        check_max_plies(self.max_plies)
        if self.workers is not None:
            check_count(self.workers, "workers", 1, MAX_WORKERS)
        if not isinstance(self.egtb, (bool, np.bool_)):
            raise ValueError(f"egtb must be true or false, got {self.egtb!r}")
        seed = self.seed
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed must be an integer >= 0, got {seed!r}")

    def event_or(self, default: str) -> str:
        """:attr:`event`, or ``default`` when it is None."""
        return default if self.event is None else self.event


DEFAULT_SETTINGS = MatchSettings()
"""The settings a match function plays with when given none."""
