"""Evaluation: the arena, ratings, SPRT and tournament formats.

>>> from drl.eval import MatchSettings, play_match, summarize
>>> m = play_match("alphabeta:depth=2", "random", "give_and_take", games=4,
...                settings=MatchSettings(workers=1, progress=False))
>>> len(m.records)
4
>>> sorted(summarize(m.records, "alphabeta:depth=2"))
['all', 'black', 'giver', 'taker', 'white']

- :mod:`drl.eval.arena`: matches with colour and Give and Take role swaps, written as
  PDN. Its parts: :mod:`~drl.eval.openings` (distinct random openings),
  :mod:`~drl.eval.tasks` (the match schedule), :mod:`~drl.eval.play` (games in parallel
  processes, and games of batched agents such as ``az`` many in flight in one process),
  :mod:`~drl.eval.limits` (``MAX_*`` and their checks), :mod:`~drl.eval.records` (each
  game as a :class:`GameRecord`, and PDN files).
- :mod:`drl.eval.stats`: win/draw/loss per colour and role with Wilson intervals.
- :mod:`drl.eval.elo`: maximum-likelihood Elo with profile-likelihood intervals.
- :mod:`drl.eval.sprt`: the sequential probability ratio test, and :func:`play_sprt`
  which plays a match in batches until it decides.
- :mod:`drl.eval.tournament`: round robins and gauntlets.
- :mod:`drl.eval.formats`: roles switched at halftime, pool play with lives (the rules
  in ``docs/rules.md``, "Match formats").
- :mod:`drl.eval.settings`: :class:`MatchSettings`, the options every match function
  above takes (openings, seed, workers, max_plies, progress, PDN file, event).
- ``drl-eval``'s parts: :mod:`~drl.eval.config` (its config schema),
  :mod:`~drl.eval.checks` (the config's checks), :mod:`~drl.eval.runners` (one runner per
  format, in ``FORMATS``), :mod:`~drl.eval.journal` (the results kept on disk as games
  finish) and :mod:`~drl.eval.evaluation` (from the config to the files, stopped or not).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from drl.eval.arena import MatchResult, play_match
    from drl.eval.elo import Ratings, elo_from_score, expected_score, fit_elo
    from drl.eval.formats import HalftimeResult, PoolResult, halftime_match, pool_tournament
    from drl.eval.openings import make_openings
    from drl.eval.play import play_game, play_in_flight
    from drl.eval.records import GameRecord
    from drl.eval.settings import MatchSettings
    from drl.eval.spread import run_games
    from drl.eval.sprt import SPRTMatch, SPRTResult, play_sprt
    from drl.eval.stats import WDL, summarize, wdl, wilson_interval
    from drl.eval.tasks import GameTask
    from drl.eval.tournament import pairings, play_tournament

__all__ = [
    "GameRecord",
    "GameTask",
    "HalftimeResult",
    "MatchResult",
    "MatchSettings",
    "PoolResult",
    "Ratings",
    "SPRTMatch",
    "SPRTResult",
    "WDL",
    "elo_from_score",
    "expected_score",
    "fit_elo",
    "halftime_match",
    "make_openings",
    "pairings",
    "play_game",
    "play_in_flight",
    "play_match",
    "play_sprt",
    "play_tournament",
    "pool_tournament",
    "run_games",
    "sprt",
    "summarize",
    "wdl",
    "wilson_interval",
]

# ``sprt`` (the test) is light and imported here, as it always was: the name is the
# function, as the submodule of the same name would otherwise shadow it.
from drl.eval.sprt import sprt  # noqa: E402

# Where each other name lives. They are imported on first use (PEP 562), so that
# importing one light submodule (``drl.eval.sprt``'s settings, for ``drl-eval``'s config
# schema) does not load the arena and its compiled rules: ``drl-eval`` installs its
# Ctrl-C handler before those seconds of imports.
_WHERE = {
    "MatchResult": "arena",
    "play_match": "arena",
    "Ratings": "elo",
    "elo_from_score": "elo",
    "expected_score": "elo",
    "fit_elo": "elo",
    "HalftimeResult": "formats",
    "PoolResult": "formats",
    "halftime_match": "formats",
    "pool_tournament": "formats",
    "make_openings": "openings",
    "play_game": "play",
    "play_in_flight": "play",
    "run_games": "spread",
    "GameRecord": "records",
    "MatchSettings": "settings",
    "SPRTMatch": "sprt",
    "SPRTResult": "sprt",
    "play_sprt": "sprt",
    "WDL": "stats",
    "summarize": "stats",
    "wdl": "stats",
    "wilson_interval": "stats",
    "GameTask": "tasks",
    "pairings": "tournament",
    "play_tournament": "tournament",
}
_SUBMODULES = {
    "arena",
    "checks",
    "config",
    "elo",
    "evaluation",
    "formats",
    "journal",
    "limits",
    "openings",
    "play",
    "records",
    "report",
    "runners",
    "settings",
    "stats",
    "tasks",
    "tournament",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        value = getattr(importlib.import_module(f"drl.eval.{_WHERE[name]}"), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"drl.eval.{name}")
    raise AttributeError(f"module 'drl.eval' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | _SUBMODULES)
