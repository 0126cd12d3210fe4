"""The options every match function shares, as one frozen :class:`MatchSettings`.

``play_match``, ``play_tournament``, ``halftime_match``, ``pool_tournament``,
``play_sprt``, :func:`drl.train.evaluate.evaluate_against` and
:func:`drl.analysis.run.analyze_run` take ``settings=MatchSettings(...)``. They took
these options as keywords of their own before (``openings=4, seed=1, ...``); those
keywords still work through :func:`moved_keywords`, with a ``DeprecationWarning`` that
names the settings class to use instead.

This module imports nothing heavier than numpy: ``drl-eval`` reads it before its
Ctrl-C handler has the arena loaded.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import os
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import numpy as np

from drl._configs import DEFAULT_MAX_PLIES
from drl.eval.limits import MAX_WORKERS, check_count, check_max_plies, check_openings

__all__ = ["DEFAULT_SETTINGS", "MatchSettings", "moved_keywords"]


@dataclass(frozen=True)
class MatchSettings:
    """How a match plays its games, whatever its format.

    Attributes:
        openings: plies of distinct seeded random openings, one per two games (0 or None:
            the variant's start position), or FEN strings used in turn (kept as a
            tuple).
        seed: the match seed (openings and agent seeds), an integer >= 0.
        workers: worker processes playing the games (:func:`drl.eval.play.run_games`),
            in ``[1, MAX_WORKERS]``; None = every usable CPU; 1 = this process.
        max_plies: per-game cap in plies, in ``[1, MAX_PLIES]``; longer games are
            reported as truncated (half a point each), not drawn.
        progress: show a progress bar (tqdm, on stderr).
        pdn_path: write every game to this PDN file as it finishes (rewritten in game
            order at the end), or None.
        event: the PDN ``Event`` tag; None = the match function's own (``drl arena``,
            ``drl tournament``, ...).

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

    def __post_init__(self) -> None:
        if isinstance(self.openings, list):
            object.__setattr__(self, "openings", tuple(self.openings))
        check_openings(self.openings)
        check_max_plies(self.max_plies)
        if self.workers is not None:
            check_count(self.workers, "workers", 1, MAX_WORKERS)
        seed = self.seed
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed must be an integer >= 0, got {seed!r}")

    def event_or(self, default: str) -> str:
        """:attr:`event`, or ``default`` when it is None."""
        return default if self.event is None else self.event


DEFAULT_SETTINGS = MatchSettings()
"""The settings a match function plays with when given none."""

_F = TypeVar("_F", bound=Callable[..., Any])

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def moved_keywords(*, positional: Sequence[str] = (), **into: type) -> Callable[[_F], _F]:
    """Keep a function's old keywords working after they moved into settings objects.

    ``@moved_keywords(settings=MatchSettings)`` on ``f(..., *, settings=MatchSettings())``
    lets ``f(..., seed=3, workers=1)`` still be called: the keywords named after fields
    of ``MatchSettings`` (and not parameters of ``f``) replace those fields of the
    ``settings`` given (or of its default), and a ``DeprecationWarning`` names the class
    to pass instead. Several parameters may be named (``test=SPRTSettings`` too).

    Args:
        positional: the names of the old parameters that followed ``f``'s positional
            ones and could be passed by position (e.g. ``("openings", "seed")``).
        into: parameter name -> the dataclass it takes (a default of None there stands
            for the class's defaults).

    Returns:
        The decorator; the decorated function keeps ``f``'s signature.
    """

    def decorate(fn: _F) -> _F:
        params = inspect.signature(fn).parameters
        owner = {
            f.name: name
            for name, cls in into.items()
            for f in dataclasses.fields(cls)
            if f.name not in params
        }
        n_positional = sum(p.kind in _POSITIONAL for p in params.values())

        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            old = {k: kwargs.pop(k) for k in list(kwargs) if k in owner}
            extra, args = args[n_positional:], args[:n_positional]
            if len(extra) > len(positional):
                given = len(args) + len(extra)
                raise TypeError(f"{fn.__qualname__}() got {given} positional arguments")
            for name, value in zip(positional, extra, strict=False):
                if name in old:
                    raise TypeError(f"{fn.__qualname__}() got multiple values for {name!r}")
                old[name] = value
            for name, cls in into.items():
                moved = {k: v for k, v in old.items() if owner[k] == name}
                if not moved:
                    continue
                warnings.warn(
                    f"{fn.__qualname__}({', '.join(f'{k}=...' for k in moved)}): pass "
                    f"{name}={cls.__name__}({', '.join(f'{k}=...' for k in moved)}) instead",
                    DeprecationWarning,
                    stacklevel=2,
                )
                given = kwargs.get(name, params[name].default)
                kwargs[name] = dataclasses.replace(cls() if given is None else given, **moved)
            return fn(*args, **kwargs)

        return cast(_F, call)

    return decorate
