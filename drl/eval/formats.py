"""Match formats from the rule documents: roles switched at halftime, and pool play.

**Roles switched at halftime** (Give and Take, "Switched Roles at Halftime"): a Give and Take
match of ``2k`` games; A is the Taker in the first ``k`` games and the Giver in the last
``k`` (from the same openings, colours alternating within each half), the score carries
over, and the match goes to the player with more points across both halves. The
result also says whether a player won both halves ("wins in both roles").

**Pool tournament with lives** (Losing Draughts, "Pool Losing Draughts"): three or more players
each start with ``lives`` lives and play one-on-one rounds; the last player holding a life
wins the pool. The rule text says a player "loses one each time they win a round, since
winning is losing here", which read literally eliminates the strongest players first
and contradicts "the last player to retain at least one life wins". We read "win" in
that sentence as the everyday sense (capturing the opponent's pieces) that Losing
Draughts turns into a defeat: by default the player who **loses a round under the
variant's own rules** loses a life (``life_lost_by="loser"``); ``"winner"`` gives the
literal reading. A round is a mini-match of ``games_per_round`` games with colours (and
Give and Take roles) swapped; a tied round costs no life. Each pool round pairs the
players still alive, those with the fewest rounds played first (random order among
equals, seeded); an odd player out sits the round out. The pool stops when at most one
player holds a life, or after ``max_rounds`` pool rounds (standings then by lives, then
points).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from drl.agents import spec_name
from drl.eval.arena import (
    GameTask,
    PDNWriter,
    TaskList,
    _calls,
    _Openings,
    check_agents,
    check_count,
    check_games,
    check_max_plies,
    check_openings,
    make_openings,
    match_tasks,
    play_tasks,
    role_variant,
    write_pdn,
)
from drl.eval.records import GameRecord
from drl.rules import Variant

__all__ = [
    "HalftimeResult",
    "halftime_match",
    "PoolStanding",
    "PoolResult",
    "pool_tournament",
    "MAX_LIVES",
    "MAX_ROUNDS",
    "POOL_ROUNDS",
]

MAX_LIVES = 1000
"""Most lives per player in a pool (a player loses at most one per round)."""

MAX_ROUNDS = 10_000
"""Most rounds of a pool."""

POOL_ROUNDS = 50
"""Default cap on a pool's rounds (:func:`pool_tournament`'s ``max_rounds``)."""


@dataclass
class HalftimeResult:
    """A Give and Take match with roles switched at halftime.

    Attributes:
        players: ``(A, B)``; A is the Taker in the first half.
        first_half, second_half: points of ``(A, B)`` in each half.
        records: all ``2k`` games, first half first.
        winner: the name with more points in total, or None for a tied match.
        won_both_roles: the name of a player who outscored the other in both halves,
            or None.
    """

    players: tuple[str, str]
    first_half: tuple[float, float]
    second_half: tuple[float, float]
    records: list[GameRecord]
    winner: str | None
    won_both_roles: str | None

    @property
    def total(self) -> tuple[float, float]:
        """Points of ``(A, B)`` over the match."""
        return (self.first_half[0] + self.second_half[0], self.first_half[1] + self.second_half[1])


def halftime_match(
    agent_a: str,
    agent_b: str,
    variant: Variant | str = "give_and_take",
    games_per_half: int = 10,
    *,
    openings: int | Sequence[str] | None = 4,
    seed: int = 0,
    workers: int | None = None,
    max_plies: int = 400,
    pdn_path: str | os.PathLike | None = None,
    progress: bool = True,
    on_record: Callable[[GameRecord], None] | None = None,
) -> HalftimeResult:
    """Play a Give and Take match with roles switched at halftime.

    The format is in ``docs/rules.md``, "Match formats".

    Args:
        agent_a, agent_b: agent specs; A takes in the first half.
        variant: a Give and Take variant with one Taker and one Giver.
        games_per_half: k, in ``[1, MAX_GAMES / 2]``.
        openings, seed, workers, max_plies, pdn_path, progress, on_record: as in
            :func:`drl.eval.arena.play_match`.

    Raises:
        ValueError: a variant without a Taker and a Giver, bad specs or counts.
        OSError: ``pdn_path`` cannot be written (before the first game).
    """
    v = Variant.parse(variant)
    if not v.is_asymmetric:
        raise ValueError(
            f"roles switched at halftime needs one Taker and one Giver; {v} has "
            f"objectives {'/'.join(v.objectives)}"
        )
    games_per_half = check_games(games_per_half, "games_per_half")
    check_games(2 * games_per_half, "2 * games_per_half")
    check_max_plies(max_plies)
    check_openings(openings)
    a, b = spec_name(agent_a), spec_name(agent_b)
    check_agents([agent_a, agent_b], v)
    if a == b:
        a, b = f"{a}#1", f"{b}#2"
    n_open = -(-games_per_half // 2)
    fens: Sequence[str | None]
    if isinstance(openings, int) and openings > 0:
        fens = _Openings(v, n_open, openings, seed)
        fens[0]  # noqa: B018 - fails now if no live opening of this length exists
    elif openings is None or isinstance(openings, int):
        fens = [None]
    else:
        fens = list(openings)
        if not fens:
            raise ValueError("openings: the list of FENs is empty")
    game_seeds = np.random.SeedSequence(seed).generate_state(2 * games_per_half, np.uint32)
    # the variant string of each (half, A plays Black) pair, made once (str() is costly)
    takers = {
        (half, a_black): str(
            role_variant(
                v,
                ("black" if a_black else "white")
                if half == 0
                else ("white" if a_black else "black"),
            )
        )
        for half in range(2)
        for a_black in (True, False)
    }

    def build(g: int) -> GameTask:
        half, i = divmod(g, games_per_half)
        a_black = i % 2 == 0
        o = (i // 2) % len(fens)
        return GameTask(
            index=g,
            black_spec=agent_a if a_black else agent_b,
            white_spec=agent_b if a_black else agent_a,
            black_name=a if a_black else b,
            white_name=b if a_black else a,
            variant=takers[half, a_black],
            opening=fens[o],
            opening_index=o,
            seed=int(game_seeds[g]),
            max_plies=max_plies,
            event="drl halftime match",
            round=f"{half + 1}.{i + 1}",
        )

    tasks = TaskList.lazy(2 * games_per_half, build)
    records, _ = play_tasks(tasks, workers, progress, f"{a} vs {b} (halftime)", on_record, pdn_path)
    halves = []
    for half in range(2):
        part = records[half * games_per_half : (half + 1) * games_per_half]
        halves.append((sum(r.score_of(a) for r in part), sum(r.score_of(b) for r in part)))
    total_a = halves[0][0] + halves[1][0]
    total_b = halves[0][1] + halves[1][1]
    winner = a if total_a > total_b else b if total_b > total_a else None
    both = (
        a if all(h[0] > h[1] for h in halves) else b if all(h[1] > h[0] for h in halves) else None
    )
    return HalftimeResult((a, b), halves[0], halves[1], records, winner, both)


@dataclass
class PoolStanding:
    """One player's line in a pool tournament."""

    name: str
    lives: int
    rounds_won: int = 0
    rounds_lost: int = 0
    rounds_tied: int = 0
    points: float = 0.0
    out_in_round: int | None = None


@dataclass
class PoolResult:
    """A pool tournament.

    Attributes:
        standings: players sorted best first (lives, then later elimination, then points).
        winner: the last player holding a life, or None if the pool stopped at
            ``max_rounds`` with several alive.
        rounds: for each pool round, the ``(player, player, points, points)`` results.
        records: every game.
    """

    standings: list[PoolStanding]
    winner: str | None
    rounds: list[list[tuple[str, str, float, float]]] = field(default_factory=list)
    records: list[GameRecord] = field(default_factory=list)


def pool_tournament(
    specs: Sequence[str],
    variant: Variant | str = "losing",
    lives: int = 3,
    *,
    games_per_round: int = 2,
    life_lost_by: str = "loser",
    openings: int | None = 4,
    max_rounds: int = POOL_ROUNDS,
    seed: int = 0,
    workers: int | None = None,
    max_plies: int = 400,
    pdn_path: str | os.PathLike | None = None,
    progress: bool = True,
    on_record: Callable[[GameRecord], None] | None = None,
) -> PoolResult:
    """Pool play with lives (``docs/rules.md``, "Match formats"; the rules chosen are in
    the module doc).

    Args:
        specs: three or more agent specs with distinct names.
        variant: the variant played (any; Give and Take swaps roles within a round).
        lives: lives per player, in ``[1, MAX_LIVES]``.
        games_per_round: games of each one-on-one round (>= 1; 2 swaps colours).
        life_lost_by: ``"loser"`` (default) or ``"winner"`` (the literal seed text).
        openings: random-opening plies (each round gets its own opening), or None.
        max_rounds: stop after this many pool rounds, in ``[1, MAX_ROUNDS]``.
        seed, workers, max_plies, pdn_path, progress, on_record: as in
            :func:`drl.eval.arena.play_match` (the PDN file holds every round's games).

    Raises:
        ValueError: fewer than three players, duplicate names, bad counts or options.
        OSError: ``pdn_path`` cannot be written (before the first game).
    """
    names = [spec_name(s) for s in specs]
    if len(names) < 3:
        raise ValueError(f"pool play needs three or more players, got {names}")
    if len(set(names)) != len(names):
        raise ValueError(f"player names must be unique, got {names}")
    check_count(lives, "lives", 1, MAX_LIVES)
    check_games(games_per_round, "games_per_round")
    check_count(max_rounds, "max_rounds", 1, MAX_ROUNDS)
    pairs_per_round = len(names) // 2
    check_games(
        games_per_round * pairs_per_round * max_rounds,
        f"games_per_round * {pairs_per_round} pairs * max_rounds",
    )
    if life_lost_by not in ("loser", "winner"):
        raise ValueError(f"life_lost_by must be 'loser' or 'winner', got {life_lost_by!r}")
    check_max_plies(max_plies)
    check_openings(openings)
    v = Variant.parse(variant)
    check_agents(specs, v)
    by_name = dict(zip(names, specs, strict=True))
    table = {n: PoolStanding(n, lives) for n in names}
    played = {n: 0 for n in names}
    rng = np.random.default_rng(seed)
    result = PoolResult([], None)
    writer = PDNWriter(pdn_path) if pdn_path is not None else None
    try:
        _pool_rounds(
            result,
            names,
            by_name,
            table,
            played,
            rng,
            v,
            openings,
            games_per_round,
            max_rounds,
            max_plies,
            life_lost_by,
            workers,
            progress,
            _calls(writer.add if writer else None, on_record),
        )
    finally:
        if writer is not None:
            writer.close()
    alive = [n for n in names if table[n].lives > 0]
    result.winner = alive[0] if len(alive) == 1 else None
    result.standings = sorted(
        table.values(), key=lambda s: (-s.lives, -(s.out_in_round or max_rounds + 1), -s.points)
    )
    if pdn_path is not None:
        write_pdn(result.records, pdn_path)
    return result


def _pool_rounds(
    result: PoolResult,
    names: list[str],
    by_name: dict[str, str],
    table: dict[str, PoolStanding],
    played: dict[str, int],
    rng: np.random.Generator,
    v: Variant,
    openings: int | None,
    games_per_round: int,
    max_rounds: int,
    max_plies: int,
    life_lost_by: str,
    workers: int | None,
    progress: bool,
    on_record: Callable[[GameRecord], None],
) -> None:
    """The pool's rounds, played into ``result``, ``table`` and ``played``."""
    for rnd in range(1, max_rounds + 1):
        alive = [n for n in names if table[n].lives > 0]
        if len(alive) <= 1:
            break
        order = sorted(alive, key=lambda n: (played[n], rng.random()))
        pairs = [(order[i], order[i + 1]) for i in range(0, len(order) - 1, 2)]
        tasks = TaskList()
        spans = []
        for a, b in pairs:
            opening = make_openings(v, 1, openings, int(rng.integers(2**31))) if openings else None
            start = len(tasks)
            tasks += match_tasks(
                by_name[a],
                by_name[b],
                v,
                games_per_round,
                opening,
                int(rng.integers(2**31)),
                max_plies,
                names=(a, b),
                event="drl pool",
                first_index=len(result.records) + start,
            )
            spans.append((a, b, start, len(tasks)))
        records, _ = play_tasks(tasks, workers, progress, f"pool round {rnd}", on_record)
        result.records += records
        log = []
        for a, b, lo, hi in spans:
            part = records[lo:hi]
            pa = sum(r.score_of(a) for r in part)
            pb = sum(r.score_of(b) for r in part)
            log.append((a, b, pa, pb))
            played[a] += 1
            played[b] += 1
            table[a].points += pa
            table[b].points += pb
            if pa == pb:
                table[a].rounds_tied += 1
                table[b].rounds_tied += 1
                continue
            win, lose = (a, b) if pa > pb else (b, a)
            table[win].rounds_won += 1
            table[lose].rounds_lost += 1
            hit = lose if life_lost_by == "loser" else win
            table[hit].lives -= 1
            if table[hit].lives == 0:
                table[hit].out_in_round = rnd
        result.rounds.append(log)
