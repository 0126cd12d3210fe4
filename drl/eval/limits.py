"""Limits on what the arena plays, and the checks that enforce them.

Each check refuses a value outside its range with a ``ValueError`` naming the setting, the
limit and the value.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "MAX_GAMES",
    "MAX_LIVES",
    "MAX_OPENING_PLIES",
    "MAX_PLIES",
    "MAX_ROUNDS",
    "MAX_WORKERS",
    "POOL_ROUNDS",
    "check_count",
    "check_games",
    "check_max_plies",
    "check_openings",
]

MAX_GAMES = 1_000_000
"""Most games of a match, a tournament, an SPRT match or a pool round (every finished game
is kept in memory, a few KB each, for the statistics at the end)."""

MAX_OPENING_PLIES = 100
"""Longest random opening, in plies (a longer one is most of a game)."""

MAX_PLIES = 100_000
"""Largest per-game cap on plies."""

MAX_WORKERS = 256
"""Most worker processes."""

MAX_LIVES = 1000
"""Most lives per player in a pool (a player loses at most one per round)."""

MAX_ROUNDS = 10_000
"""Most rounds of a pool."""

POOL_ROUNDS = 50
"""Default cap on a pool's rounds (``drl.eval.formats.pool_tournament``'s ``max_rounds``)."""


def check_count(value: object, name: str, minimum: int, maximum: int) -> int:
    """``value`` as an int if it is an integer in ``[minimum, maximum]``.

    Raises:
        ValueError: naming ``name``, the limits and the value (a bool is not a count).
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if not minimum <= value <= maximum:
        raise ValueError(f"{name} must be between {minimum} and {maximum:,}, got {value:,}")
    return int(value)


def check_max_plies(max_plies: object) -> None:
    """Raise ``ValueError`` unless ``max_plies`` is an integer in ``[1, MAX_PLIES]``.

    A cap of 0 plies would record every game as truncated before its first move.
    """
    check_count(max_plies, "max_plies", 1, MAX_PLIES)


def check_openings(openings: object) -> None:
    """Raise ``ValueError`` unless ``openings`` is None, a number of plies or a list of FENs.

    The number of plies must be in ``[0, MAX_OPENING_PLIES]``; the FEN strings are checked
    against the variant later.
    """
    if openings is None or isinstance(openings, (list, tuple)):
        return
    if isinstance(openings, bool) or not isinstance(openings, (int, np.integer)) or openings < 0:
        raise ValueError(
            f"openings must be None, a number of random plies >= 0 or a list "
            f"of FENs, got {openings!r}"
        )
    if openings > MAX_OPENING_PLIES:
        raise ValueError(
            f"openings must be at most {MAX_OPENING_PLIES} plies of random moves, got {openings:,}"
        )


def check_games(games: object, name: str = "games") -> int:
    """``games`` as an int if it is in ``[1, MAX_GAMES]``.

    Else ``ValueError`` naming ``name`` and the limit.
    """
    return check_count(games, name, 1, MAX_GAMES)
