"""The arena: matches between agents, with colour and role swaps, in parallel, as PDN.

A match between agents A and B (:func:`play_match`) is a list of
:class:`~drl.eval.tasks.GameTask` s (:func:`~drl.eval.tasks.match_tasks`). Games come in
pairs, one opening per pair: from each opening A plays Black, then White. In Give and Take
(one Taker, one Giver; the Taker's colour is the variant flag ``taker``) both games of a
pair have the same Taker colour, so A and B each play each role from that opening once,
and the next pair's opening has the other Taker colour: over four games A is Black Taker,
White Giver, White Taker, Black Giver. Openings are distinct seeded random openings of
``k`` plies (:mod:`drl.eval.openings`), or a list of FENs.

The games are played by :func:`~drl.eval.spread.run_games`: games with a batched agent
(``Agent.batched``, e.g. the network player ``az``) many in flight in this process, the
others in worker processes. Every game comes back as a
:class:`~drl.eval.records.GameRecord` and is written to PDN as it finishes
(:class:`~drl.eval.records.PDNWriter`). The ``MAX_*`` limits are in
:mod:`drl.eval.limits`. The names of those modules that this one exported before it was
split are importable from here too.

Scores: a game cut at ``max_plies`` is reported as truncated (termination
``"max_plies"``, result ``*``) and counts half a point for each side in statistics. A
game that reaches a position the variant's endgame database decides ends there with the
exact result (termination ``"database"``; :mod:`drl.eval.endings`), where that database
is on disk and ``MatchSettings.egtb`` is on (the default).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from drl.agents import Agent, spec_name
from drl.eval.limits import (
    MAX_GAMES,
    MAX_OPENING_PLIES,
    MAX_PLIES,
    MAX_WORKERS,
    check_count,
    check_games,
)
from drl.eval.limits import check_max_plies as check_max_plies
from drl.eval.limits import check_openings as check_openings
from drl.eval.openings import OPENINGS_CHECKED, check_distinct_openings, make_openings, role_variant
from drl.eval.openings import _Openings as _Openings
from drl.eval.play import (
    DEFAULT_IN_FLIGHT,
    check_agents,
    play_game,
    play_in_flight,
)
from drl.eval.play import IgnoringSignals as IgnoringSignals
from drl.eval.play import close_agents as close_agents
from drl.eval.records import GameRecord, PDNWriter, write_pdn
from drl.eval.records import record_game as record_game
from drl.eval.settings import DEFAULT_SETTINGS, MatchSettings
from drl.eval.spread import default_workers as default_workers
from drl.eval.spread import run_games
from drl.eval.tasks import GameTask, TaskList, _unique_names, match_tasks
from drl.rules import Variant

__all__ = [
    "GameTask",
    "OPENINGS_CHECKED",
    "MatchResult",
    "check_agents",
    "play_game",
    "play_in_flight",
    "run_games",
    "play_match",
    "make_openings",
    "match_tasks",
    "role_variant",
    "TaskList",
    "check_count",
    "check_distinct_openings",
    "check_games",
    "MAX_GAMES",
    "MAX_OPENING_PLIES",
    "MAX_PLIES",
    "MAX_WORKERS",
    "write_pdn",
    "PDNWriter",
    "play_tasks",
    "DEFAULT_IN_FLIGHT",
]


@dataclass
class MatchResult:
    """Games of one match (or of any set of tasks).

    Attributes:
        players: names of the players, in the order given.
        variant: the base variant string.
        records: the games, sorted by index.
        pdn_path: where the PDN was written, or None.
    """

    players: tuple[str, ...]
    variant: str
    records: list[GameRecord] = field(default_factory=list)
    pdn_path: Path | None = None

    def elo_games(self) -> list[tuple[str, str, float]]:
        """``(black, white, score of black)`` for :func:`drl.eval.elo.fit_elo`."""
        return [(r.black, r.white, r.score_of(r.black)) for r in self.records]

    def score(self, player: str) -> float:
        """Total points of ``player`` (draw and truncation = 1/2)."""
        return sum(r.score_of(player) for r in self.records if player in (r.black, r.white))


def _calls(*callbacks: Callable[[GameRecord], None] | None) -> Callable[[GameRecord], None]:
    """One callback calling each given one in turn."""
    given = [c for c in callbacks if c is not None]

    def call(rec: GameRecord) -> None:
        for c in given:
            c(rec)

    return call


def play_tasks(
    tasks: Sequence[GameTask],
    settings: MatchSettings = DEFAULT_SETTINGS,
    description: str = "games",
    on_record: Callable[[GameRecord], None] | None = None,
) -> tuple[list[GameRecord], Path | None]:
    """:func:`run_games`, writing each game to ``settings.pdn_path`` as it finishes.

    Each game goes to the file as it finishes (:class:`PDNWriter`), and the file is
    rewritten in game order at the end (:func:`write_pdn`).

    Args:
        tasks: the games (:func:`match_tasks`).
        settings: ``workers``, ``progress`` and ``pdn_path`` (None: no file) are used;
            the tasks carry the rest.
        description: the progress bar's label.
        on_record: called with each finished game (in completion order).

    Returns:
        ``(records sorted by index, the PDN path or None)``.

    Raises:
        OSError: ``settings.pdn_path`` cannot be written (before the first game).
    """
    s = settings
    if s.pdn_path is None:
        return run_games(tasks, s.workers, s.progress, description, on_record), None
    with PDNWriter(s.pdn_path) as writer:
        records = run_games(
            tasks, s.workers, s.progress, description, _calls(writer.add, on_record)
        )
    return records, write_pdn(records, s.pdn_path)


def play_match(
    agent_a_spec: str | Agent,
    agent_b_spec: str | Agent,
    variant: Variant | str = "english",
    games: int = 20,
    *,
    settings: MatchSettings = DEFAULT_SETTINGS,
    on_record: Callable[[GameRecord], None] | None = None,
) -> MatchResult:
    """Play a match A vs B with colours (and Give and Take roles) swapped.

    Args:
        agent_a_spec: player A: an agent spec (e.g. ``"alphabeta:depth=4"``), or an agent
            object (that of a non-batched agent only with ``settings.workers=1``).
        agent_b_spec: player B, as ``agent_a_spec``.
        variant: variant string (``"give_and_take:max_capture=true"``...).
        games: number of games (see :func:`match_tasks` for the schedule).
        settings: openings, seed, workers, max_plies, progress, the PDN file (written
            game by game as they finish, rewritten in game order at the end; see
            :class:`PDNWriter`) and the PDN ``Event`` tag (default ``drl arena``).
        on_record: called with each finished game (in completion order).

    Returns:
        :class:`MatchResult` with records sorted by game index.

    Raises:
        ValueError: bad specs (listing the valid agents), variant, openings or counts, or
            an agent that cannot play the variant (:func:`check_agents`).
        OSError: ``settings.pdn_path`` cannot be written (before the first game).
    """
    s = settings
    names = _unique_names(spec_name(agent_a_spec), spec_name(agent_b_spec))  # checks specs
    v = Variant.parse(variant)
    check_agents([agent_a_spec, agent_b_spec], v)
    tasks = match_tasks(agent_a_spec, agent_b_spec, v, games, s, names=names)
    records, written = play_tasks(tasks, s, f"{names[0]} vs {names[1]}", on_record)
    return MatchResult(players=names, variant=str(v), records=records, pdn_path=written)
