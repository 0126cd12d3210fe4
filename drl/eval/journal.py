"""An evaluation's results on disk while it plays, so that a stopped one keeps its games.

``games.pdn`` is written game by game and ``results.json`` rewritten every few seconds, so
that an evaluation stopped at any moment keeps the games it finished.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from drl.eval import report
from drl.eval.records import GameRecord, PDNWriter

__all__ = ["SAVE_EVERY_S", "Journal", "game_dicts", "interrupted_after"]

SAVE_EVERY_S = 2.0
"""Shortest time between two rewrites of ``results.json`` while games are played."""


def game_dicts(records: list[GameRecord]) -> list[dict]:
    """The games as ``results.json`` lists them.

    Each is :meth:`GameRecord.to_dict` without the PDN text, which is in ``games.pdn``.
    """
    return [{k: v for k, v in r.to_dict().items() if k != "pdn"} for r in records]


def interrupted_after(done: int, planned: int | None, fmt: str) -> str:
    """``"interrupted after N of M games"`` (sprt: ``of at most M``; pool: no ``M``)."""
    if planned is None:
        return f"interrupted after {done} games"
    return f"interrupted after {done} of {'at most ' if fmt == 'sprt' else ''}{planned} games"


class Journal:
    """Keeps an evaluation's finished games on disk while it plays.

    Each game is appended to ``games.pdn`` (flushed) as it finishes, and ``results.json`` is
    rewritten atomically with the games so far (``"status": "running"``) every
    :data:`SAVE_EVERY_S` seconds at most (and no more often than every 20 times the last
    write's duration, so that a long evaluation does not spend its time writing).

    Args:
        out_dir: the folder of ``results.json`` and ``games.pdn``.
        header: what ``results.json`` says before the games (config, players, ...).
        planned: games the evaluation plays, or the most (``games_planned``).
        on_record: called with each game once it is kept.

    Raises:
        OSError: ``games.pdn`` or ``results.json`` cannot be written (when made).
    """

    def __init__(
        self,
        out_dir: Path,
        header: dict[str, Any],
        planned: int | None,
        on_record: Callable[[GameRecord], None] | None,
    ) -> None:
        self.out_dir, self.header, self.planned = out_dir, header, planned
        self.on_record = on_record
        self.records: list[GameRecord] = []
        self.pdn = PDNWriter(out_dir / "games.pdn")
        self._last = self._cost = 0.0
        self.save("running")

    def add(self, rec: GameRecord) -> None:
        """Keep one finished game (then call ``on_record``)."""
        self.pdn.add(rec)
        self.records.append(rec)
        if time.monotonic() - self._last >= max(SAVE_EVERY_S, 20 * self._cost):
            self.save("running")
        if self.on_record is not None:
            self.on_record(rec)

    def sorted(self) -> list[GameRecord]:
        """The games kept so far, in game order."""
        return sorted(self.records, key=lambda r: r.index)

    def save(self, status: str, results: dict[str, Any] | None = None) -> None:
        """Write ``results.json`` with ``status``, ``games_finished`` and ``games_planned``.

        The rest is ``results`` (default: the header and the games so far).
        """
        start = time.monotonic()
        body = (
            results if results is not None else {**self.header, "games": game_dicts(self.sorted())}
        )
        body = {
            **body,
            "status": status,
            "games_finished": len(self.records),
            "games_planned": self.planned,
        }
        report.write_json(body, self.out_dir / "results.json")
        self._last = time.monotonic()
        self._cost = self._last - start

    def close(self) -> None:
        """Close ``games.pdn``.

        A full disk here is not raised: each game was flushed, or failed, as it was added.
        """
        with contextlib.suppress(OSError):
            self.pdn.close()
