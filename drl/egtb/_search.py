"""Endgame databases in the tree searches and in self-play: positions solved exactly.

A search that reaches a position whose exact result the database gives (counters of the
game included, :func:`~drl.egtb._probe.exact_code`) treats it like a finished game:
the node gets a result code, :func:`database_code`, in the layout of the rules'
``end_code`` (``termination * 4 + winner``), so that the searches' existing handling of
game-over nodes (valued by ``code_value``, never expanded) applies unchanged. The
termination :data:`T_DATABASE` marks such codes; it is no rules termination and never
leaves a search.

:class:`GameDatabases` opens the databases of the variants a search or self-play plays
(only files already on disk, :func:`~drl.egtb.egtb_dir`; nothing is built) and tells
for each variant how its positions are looked up: ``-1`` not at all (no database, or
the option off), else the ``flip`` of the kernel tuple (both role assignments of Give
and Take share one file, one of them turned round).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from numba import njit

from drl.egtb._probe import exact_code, no_database
from drl.rules.core import DRAW, ONGOING, ST_TURN

__all__ = [
    "NO_DATABASE",
    "T_DATABASE",
    "GameDatabases",
    "database_code",
    "history_allows",
    "with_flip",
]

#: The kernel tuple of a search without a database: it holds no position.
NO_DATABASE = no_database()
#: Termination of a result code given by the database (beyond the rules' 1..6).
T_DATABASE = 7


@njit(cache=True)
def database_code(state, params, db):
    """The result code of ``state`` by the database, or ``ONGOING`` (-1) when it gives none.

    Args:
        state: ``int64[STATE_SIZE]`` a position at a move boundary, with its counters.
        params: ``int64[PARAMS_SIZE]`` the variant played.
        db: a kernel tuple (``Database.kernel``, :func:`with_flip`, :data:`NO_DATABASE`).

    Returns:
        ``T_DATABASE * 4 + winner`` (winner 0 black, 1 white, 2 draw) where the database
        gives the game's exact result (:func:`~drl.egtb._probe.exact_code`), else -1.
    """
    code = exact_code(state, params, db)
    if code < 0:
        return ONGOING
    if code == 0:
        return T_DATABASE * 4 + DRAW
    turn = state[ST_TURN]
    winner = turn if code % 2 == 0 else 1 - turn
    return T_DATABASE * 4 + winner


def history_allows(hist: np.ndarray, ply: int, no_progress: int, repetition_draw: int) -> bool:
    """Whether a game may take a decided win or loss given its history of positions.

    A win in ``d`` plies is played along a line whose positions never repeat (the plies
    to the end fall by one each ply), so it can meet the repetition draw
    (``repetition_draw`` occurrences, ``docs/rules.md`` "Win, loss and draw") only
    through a position the game already holds ``repetition_draw - 1`` times since its
    last capture or man move. True while none does.

    Args:
        hist: ``int64[> ply]`` the game's position hashes by ply, 0 where unknown
            (unknown plies are left out, as the repetition count leaves them out).
        ply: the position's ply.
        no_progress: plies since the last capture or man move (``ST_NOPROG``).
        repetition_draw: the variant's ``repetition_draw`` (0 or None: off).
    """
    if not repetition_draw:
        return True
    earlier = np.asarray(hist[max(0, ply - no_progress) : ply])
    earlier = earlier[earlier != 0]
    if earlier.size == 0:
        return True
    if repetition_draw <= 2:
        return False
    _, counts = np.unique(earlier, return_counts=True)
    return int(counts.max()) < repetition_draw - 1


@njit(cache=True, inline="always")
def with_flip(db, flip):
    """The kernel tuple ``db`` with its ``flip`` (last entry) set to ``flip`` (0 or 1)."""
    return (db[0], db[1], db[2], db[3], db[4], db[5], flip)


class GameDatabases:
    """The endgame database of the variants played, opened from disk once.

    Args:
        enabled: False: no database is ever probed (every :meth:`flag` is -1).
        directory: the database folder (default :func:`~drl.egtb.egtb_dir`).

    Attributes:
        kernel: the kernel tuple of the database opened (the first variant with one on
            disk decides which file), :data:`NO_DATABASE` while none is.
    """

    def __init__(self, enabled: bool = True, directory: str | os.PathLike | None = None) -> None:
        self.enabled = bool(enabled)
        self.directory = directory
        self.kernel: tuple = NO_DATABASE
        self._key: str | None = None
        self._flags: dict[str, int] = {}

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without the opened database (opened again where it is used)."""
        return {"enabled": self.enabled, "directory": self.directory}

    def __setstate__(self, state: dict[str, Any]) -> None:
        GameDatabases.__init__(self, state["enabled"], state["directory"])

    def flag(self, variant: Any) -> int:
        """How positions of ``variant`` are probed: -1 not at all, else the ``flip`` (0, 1).

        -1 when the option is off, the variant has no database on disk (or cannot have
        one: ``role_swap_after_captures``), or its database is another file than the one
        opened first.
        """
        key = str(variant)
        if key not in self._flags:
            self._flags[key] = self._open(variant) if self.enabled else -1
        return self._flags[key]

    def kernel_for(self, variant: Any) -> tuple:
        """The kernel tuple that looks ``variant``'s positions up (:data:`NO_DATABASE` if none)."""
        flip = self.flag(variant)
        return NO_DATABASE if flip < 0 else (*self.kernel[:6], flip)

    def _open(self, variant: Any) -> int:
        from drl.egtb import EgtbError, open_database
        from drl.egtb._rules import rules_of

        try:
            rules = rules_of(variant)
        except EgtbError:
            return -1
        if self._key is None:
            db = open_database(variant, directory=self.directory)
            if db is None:
                return -1
            self._key, self.kernel = rules.key, db.kernel
        return int(rules.flip) if rules.key == self._key else -1
