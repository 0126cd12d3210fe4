"""Iterations sized by the training time budget (``train.scale_to_budget``)."""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from drl.train.config.settings import LoopCfg

__all__ = ["BUDGET_MINUTES", "MIN_SCALED_GAMES", "scaled_to_budget"]

BUDGET_MINUTES = 12.0
"""The training budget the default iteration sizes are made for (minutes)."""

MIN_SCALED_GAMES = 32
"""The fewest games :func:`scaled_to_budget` leaves in an iteration (fewer if set so)."""


def scaled_to_budget(loop: LoopCfg) -> LoopCfg:
    """The loop settings with iterations sized by the time budget.

    With ``scale_to_budget`` and ``0 < max_minutes < BUDGET_MINUTES`` (12), the games
    and the learner steps of an iteration are multiplied by ``max_minutes / 12``
    (rounded up; at least :data:`MIN_SCALED_GAMES` games, or the games set if fewer),
    the learner steps by the same ratio as the games, so that each position is sampled
    as often as with the defaults. ``train.max_minutes=2`` thus plays iterations of 86
    games and 68 learner steps instead of 512 and 400. Otherwise ``loop`` is returned
    unchanged.

    >>> from drl.train.config import LoopCfg
    >>> loop = scaled_to_budget(LoopCfg(max_minutes=2))
    >>> loop.games_per_iteration, loop.steps_per_iteration
    (86, 68)
    >>> scaled_to_budget(LoopCfg(max_minutes=2, scale_to_budget=False)).games_per_iteration
    512
    """
    if not loop.scale_to_budget or not 0 < loop.max_minutes < BUDGET_MINUTES:
        return loop
    games = loop.games_per_iteration
    scaled = max(min(games, MIN_SCALED_GAMES), math.ceil(games * loop.max_minutes / BUDGET_MINUTES))
    steps = math.ceil(loop.steps_per_iteration * scaled / games)
    return dataclasses.replace(loop, games_per_iteration=scaled, steps_per_iteration=steps)
