"""Match formats: roles switched at halftime, and pool play (``docs/rules.md``, "Match formats").

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

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

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
    make_openings,
    match_tasks,
    play_tasks,
    role_variant,
    write_pdn,
)
from drl.eval.limits import MAX_LIVES, MAX_ROUNDS, POOL_ROUNDS
from drl.eval.records import GameRecord
from drl.eval.settings import DEFAULT_SETTINGS, MatchSettings
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
    settings: MatchSettings = DEFAULT_SETTINGS,
    on_record: Callable[[GameRecord], None] | None = None,
) -> HalftimeResult:
    """Play a Give and Take match with roles switched at halftime.

    The format is in ``docs/rules.md``, "Match formats".

    Args:
        agent_a: player A's agent spec; A is the Taker in the first half.
        agent_b: player B's agent spec; B is the Taker in the second half.
        variant: a Give and Take variant with one Taker and one Giver.
        games_per_half: k, in ``[1, MAX_GAMES / 2]``.
        settings: as in :func:`drl.eval.arena.play_match` (the ``Event`` tag is
            ``drl halftime match`` by default).
        on_record: called with each finished game (in completion order).

    Raises:
        ValueError: a variant without a Taker and a Giver, bad specs or counts.
        OSError: ``settings.pdn_path`` cannot be written (before the first game).
    """
    v = Variant.parse(variant)
    if not v.is_asymmetric:
        raise ValueError(
            f"roles switched at halftime needs one Taker and one Giver; {v} has "
            f"objectives {'/'.join(v.objectives)}"
        )
    games_per_half = check_games(games_per_half, "games_per_half")
    check_games(2 * games_per_half, "2 * games_per_half")
    a, b = spec_name(agent_a), spec_name(agent_b)
    check_agents([agent_a, agent_b], v)
    if a == b:
        a, b = f"{a}#1", f"{b}#2"
    tasks = _halftime_tasks((agent_a, agent_b), (a, b), v, games_per_half, settings)
    records, _ = play_tasks(tasks, settings, f"{a} vs {b} (halftime)", on_record)
    halves = [
        (sum(r.score_of(a) for r in part), sum(r.score_of(b) for r in part))
        for part in (records[:games_per_half], records[games_per_half:])
    ]
    total_a, total_b = halves[0][0] + halves[1][0], halves[0][1] + halves[1][1]
    winner = a if total_a > total_b else b if total_b > total_a else None
    both = (
        a if all(h[0] > h[1] for h in halves) else b if all(h[1] > h[0] for h in halves) else None
    )
    return HalftimeResult((a, b), halves[0], halves[1], records, winner, both)


def _half_openings(v: Variant, count: int, s: MatchSettings) -> Sequence[str | None]:
    """The openings of each half.

    ``count`` seeded random ones, the FENs given, or the start position alone.
    """
    if isinstance(s.openings, int) and s.openings > 0:
        fens = _Openings(v, count, s.openings, s.seed)
        fens[0]  # noqa: B018 - fails now if no live opening of this length exists
        return fens
    if s.openings is None or isinstance(s.openings, int):
        return [None]
    if not s.openings:
        raise ValueError("openings: the list of FENs is empty")
    return list(s.openings)


def _halftime_tasks(
    specs: tuple[str, str],
    names: tuple[str, str],
    v: Variant,
    games_per_half: int,
    s: MatchSettings,
) -> TaskList:
    """Game ``i`` of each half: colours, opening and roles.

    A plays Black for even ``i``; the opening is ``i // 2``; A is the Taker in the first
    half and the Giver in the second.
    """
    fens = _half_openings(v, -(-games_per_half // 2), s)
    game_seeds = np.random.SeedSequence(s.seed).generate_state(2 * games_per_half, np.uint32)
    # the variant string of each (half, A plays Black) pair, made once (str() is costly)
    takers = {
        (half, a_black): str(role_variant(v, "black" if a_black == (half == 0) else "white"))
        for half in range(2)
        for a_black in (True, False)
    }
    event = s.event_or("drl halftime match")

    def build(g: int) -> GameTask:
        half, i = divmod(g, games_per_half)
        a_black = i % 2 == 0
        o = (i // 2) % len(fens)
        return GameTask(
            index=g,
            black_spec=specs[0] if a_black else specs[1],
            white_spec=specs[1] if a_black else specs[0],
            black_name=names[0] if a_black else names[1],
            white_name=names[1] if a_black else names[0],
            variant=takers[half, a_black],
            opening=fens[o],
            opening_index=o,
            seed=int(game_seeds[g]),
            max_plies=s.max_plies,
            event=event,
            round=f"{half + 1}.{i + 1}",
            egtb=s.egtb,
        )

    return TaskList.lazy(2 * games_per_half, build)


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
    max_rounds: int = POOL_ROUNDS,
    settings: MatchSettings = DEFAULT_SETTINGS,
    on_record: Callable[[GameRecord], None] | None = None,
) -> PoolResult:
    """Pool play with lives (``docs/rules.md``, "Match formats").

    The rules chosen are in the module doc.

    Args:
        specs: three or more agent specs with distinct names.
        variant: the variant played (any; Give and Take swaps roles within a round).
        lives: lives per player, in ``[1, MAX_LIVES]``.
        games_per_round: games of each one-on-one round (>= 1; 2 swaps colours).
        life_lost_by: ``"loser"`` (default) or ``"winner"`` (the literal reading of the
            rule text; ``docs/rules.md``, "Match formats").
        max_rounds: stop after this many pool rounds, in ``[1, MAX_ROUNDS]``.
        settings: as in :func:`drl.eval.arena.play_match`; each round gets its own
            random opening of ``settings.openings`` plies (given FENs: they are played
            in turn in every round), and the PDN file holds every round's games
            (``Event`` tag ``drl pool`` by default).
        on_record: called with each finished game (in completion order).

    Raises:
        ValueError: fewer than three players, duplicate names, bad counts or options.
        OSError: ``settings.pdn_path`` cannot be written (before the first game).
    """
    names = [spec_name(x) for x in specs]
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
    v = Variant.parse(variant)
    check_agents(specs, v)
    pool = _Pool(dict(zip(names, specs, strict=True)), v, lives, settings)
    writer = PDNWriter(settings.pdn_path) if settings.pdn_path is not None else None
    each_game = _calls(writer.add if writer is not None else None, on_record)
    try:
        for rnd in range(1, max_rounds + 1):
            if not pool.play_round(rnd, games_per_round, life_lost_by, each_game):
                break
    finally:
        if writer is not None:
            writer.close()
    alive = [n for n in names if pool.table[n].lives > 0]
    pool.result.winner = alive[0] if len(alive) == 1 else None
    pool.result.standings = sorted(
        pool.table.values(),
        key=lambda p: (-p.lives, -(p.out_in_round or max_rounds + 1), -p.points),
    )
    if settings.pdn_path is not None:
        write_pdn(pool.result.records, settings.pdn_path)
    return pool.result


class _Pool:
    """A pool being played.

    It holds the players (name -> spec), their standings, the rounds each has played, the
    games so far (``result``) and the pool's random generator.
    """

    def __init__(self, by_name: dict[str, str], v: Variant, lives: int, s: MatchSettings):
        self.by_name, self.variant, self.settings = by_name, v, s
        self.table = {n: PoolStanding(n, lives) for n in by_name}
        self.played = {n: 0 for n in by_name}
        self.rng = np.random.default_rng(s.seed)
        self.result = PoolResult([], None)

    def play_round(
        self,
        rnd: int,
        games_per_round: int,
        life_lost_by: str,
        on_record: Callable[[GameRecord], None],
    ) -> bool:
        """Play pool round ``rnd`` among the players alive; False when there is none to play.

        The players alive are paired, those with the fewest rounds first (random order among
        equals). Nothing is played (False) when at most one player is alive.
        """
        alive = [n for n in self.by_name if self.table[n].lives > 0]
        if len(alive) <= 1:
            return False
        order = sorted(alive, key=lambda n: (self.played[n], self.rng.random()))
        s, v = self.settings, self.variant
        tasks = TaskList()
        spans = []
        for a, b in zip(order[::2], order[1::2], strict=False):
            start = len(tasks)
            pair = replace(
                s,
                openings=self._opening(),  # drawn before the seed, from the same generator
                seed=int(self.rng.integers(2**31)),
                event=s.event_or("drl pool"),
            )
            tasks += match_tasks(
                self.by_name[a],
                self.by_name[b],
                v,
                games_per_round,
                pair,
                names=(a, b),
                first_index=len(self.result.records) + start,
            )
            spans.append((a, b, start, len(tasks)))
        records, _ = play_tasks(tasks, replace(s, pdn_path=None), f"pool round {rnd}", on_record)
        self.result.records += records
        self.result.rounds.append(
            [self._score(a, b, records[lo:hi], rnd, life_lost_by) for a, b, lo, hi in spans]
        )
        return True

    def _opening(self) -> Sequence[str] | None:
        """A round's opening: a random one, the FENs given, or None (the start position).

        A random opening has ``settings.openings`` plies and is drawn from the pool's
        generator.
        """
        plies = self.settings.openings
        if not isinstance(plies, int):
            return plies
        if not plies:
            return None
        return make_openings(self.variant, 1, plies, int(self.rng.integers(2**31)))

    def _score(
        self, a: str, b: str, part: list[GameRecord], rnd: int, life_lost_by: str
    ) -> tuple[str, str, float, float]:
        """Count one round of ``a`` against ``b``.

        Counts the points, the rounds won, lost or tied, and the life lost.
        """
        pa = sum(r.score_of(a) for r in part)
        pb = sum(r.score_of(b) for r in part)
        table = self.table
        for n, points in ((a, pa), (b, pb)):
            self.played[n] += 1
            table[n].points += points
        if pa == pb:
            table[a].rounds_tied += 1
            table[b].rounds_tied += 1
            return (a, b, pa, pb)
        win, lose = (a, b) if pa > pb else (b, a)
        table[win].rounds_won += 1
        table[lose].rounds_lost += 1
        hit = lose if life_lost_by == "loser" else win
        table[hit].lives -= 1
        if table[hit].lives == 0:
            table[hit].out_in_round = rnd
        return (a, b, pa, pb)
