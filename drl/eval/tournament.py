"""Round robins and gauntlets: every scheduled pair plays a match, then Elo over all games.

All games are played in one pool of worker processes, and the Elo ratings are fitted by
maximum likelihood over all of them.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from drl.agents import spec_name
from drl.eval.arena import (
    MatchResult,
    TaskList,
    check_agents,
    check_games,
    match_tasks,
    play_tasks,
)
from drl.eval.records import GameRecord
from drl.eval.settings import DEFAULT_SETTINGS, MatchSettings
from drl.rules import Variant

__all__ = ["pairings", "play_tournament"]


def pairings(
    players: Sequence[str], schedule: str = "round_robin", hero: str | None = None
) -> list[tuple[str, str]]:
    """The pairs to play.

    Args:
        players: names.
        schedule: ``"round_robin"`` (every pair) or ``"gauntlet"`` (``hero`` against
            every other player).
        hero: the gauntlet's player (default: the first).

    Raises:
        ValueError: fewer than two players, duplicate names, unknown schedule or hero.
    """
    if len(players) < 2:
        raise ValueError(f"a tournament needs at least two players, got {list(players)}")
    if len(set(players)) != len(players):
        raise ValueError(f"player names must be unique, got {list(players)}")
    if schedule == "round_robin":
        return list(itertools.combinations(players, 2))
    if schedule == "gauntlet":
        hero = players[0] if hero is None else hero
        if hero not in players:
            raise ValueError(f"gauntlet hero {hero!r} is not among {list(players)}")
        return [(hero, p) for p in players if p != hero]
    raise ValueError(f"schedule must be 'round_robin' or 'gauntlet', got {schedule!r}")


def play_tournament(
    specs: Sequence[str],
    variant: Variant | str = "english",
    games_per_pair: int = 10,
    *,
    schedule: str = "round_robin",
    hero: str | None = None,
    settings: MatchSettings = DEFAULT_SETTINGS,
    on_record: Callable[[GameRecord], None] | None = None,
) -> MatchResult:
    """Play every scheduled pair, colours and roles swapped as in a match.

    The swaps are those of :func:`drl.eval.arena.match_tasks`.

    Args:
        specs: agent spec strings (their canonical names must differ).
        variant: the variant.
        games_per_pair: games of each pairing (multiples of 4 balance Give and Take).
        schedule: ``"round_robin"`` or ``"gauntlet"``.
        hero: the gauntlet's spec (default: the first).
        settings: as in :func:`drl.eval.arena.play_match` (each pairing gets its own
            seed, drawn from ``settings.seed``; the PDN file holds every game; the
            ``Event`` tag is ``drl tournament`` by default).
        on_record: called with each finished game (in completion order).

    Returns:
        A :class:`MatchResult` holding all games (``players`` in the order given).

    Raises:
        ValueError: bad specs (listing the valid agents), schedule, or counts (more than
            :data:`~drl.eval.arena.MAX_GAMES` games in all), or an agent that cannot
            play the variant.
        OSError: ``settings.pdn_path`` cannot be written (before the first game).
    """
    s = settings
    names = [spec_name(x) for x in specs]
    hero_name = spec_name(hero) if hero is not None else None
    pairs = pairings(names, schedule, hero_name)
    by_name = dict(zip(names, specs, strict=True))
    v = Variant.parse(variant)
    check_agents(specs, v)
    seeds = np.random.SeedSequence(s.seed).generate_state(len(pairs), dtype=np.uint32)
    check_games(games_per_pair, "games_per_pair")
    check_games(games_per_pair * len(pairs), f"games_per_pair * {len(pairs)} pairs")
    tasks = TaskList()
    for (a, b), seed in zip(pairs, seeds, strict=True):
        pair = replace(s, seed=int(seed), event=s.event_or("drl tournament"))
        tasks += match_tasks(
            by_name[a], by_name[b], v, games_per_pair, pair, names=(a, b), first_index=len(tasks)
        )
    records, written = play_tasks(tasks, s, f"{schedule} {v}", on_record)
    return MatchResult(players=tuple(names), variant=str(v), records=records, pdn_path=written)
