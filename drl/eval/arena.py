"""The arena: games between agents, with colour and role swaps, in parallel, as PDN.

A match between agents A and B is a list of :class:`GameTask` s. Games come in pairs,
one opening per pair: from each opening A plays Black, then White. In Give and Take (one
Taker, one Giver; the Taker's colour is the variant flag ``taker``) both games of a pair
have the same Taker colour, so A and B each play each role from that opening once, and
the next pair's opening has the other Taker colour: over four games A is Black Taker,
White Giver, White Taker, Black Giver. Openings are distinct seeded random openings of
``k`` plies (one per two games, so two nearly deterministic players do not replay the
same few games; a variant with fewer distinct openings of that length than the match
needs is an error), or a list of FENs. Every game comes back as a
:class:`~drl.eval.records.GameRecord` and is written to PDN.

Games with a batched agent (``Agent.batched``, e.g. the network player ``az``) are played
in this process, many in flight at a time (:func:`play_in_flight`): each round, the
batched agent chooses its moves in every game where it is to move in one
``select_moves`` call, so its network sees one batch of leaves for all of them. The
other games run in worker processes (``concurrent.futures``), one game at a time each
(:func:`play_game`). Both loops give every game the same moves for the same seeds.

Scores: a game cut at ``max_plies`` is reported as truncated (termination
``"max_plies"``, result ``*``) and counts half a point for each side in statistics.
"""

from __future__ import annotations

import bisect
import concurrent.futures as cf
import copy
import multiprocessing as mp
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

import numpy as np

from drl._atomic import write_atomic
from drl.agents import Agent, is_batched, make, spec_name
from drl.eval.records import COLORS, GameRecord
from drl.rules import Board, Variant
from drl.rules.pdn import board_to_pdn

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

DEFAULT_IN_FLIGHT = 32
"""Games played at once by :func:`play_in_flight` (each holds its own instance of every
non-batched agent in it)."""

MAX_GAMES = 1_000_000
"""Most games of a match, a tournament, an SPRT match or a pool round (every finished game
is kept in memory, a few KB each, for the statistics at the end)."""

MAX_OPENING_PLIES = 100
"""Longest random opening, in plies (a longer one is most of a game)."""

MAX_PLIES = 100_000
"""Largest per-game cap on plies."""

MAX_WORKERS = 256
"""Most worker processes."""


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


@dataclass(frozen=True)
class GameTask:
    """Everything a worker needs to play one game.

    Attributes:
        index: game number (records come back sorted by it).
        black_spec, white_spec: agent spec strings (or :class:`Agent` objects when games
            run in this process).
        black_name, white_name: names for records and PDN (unique within a match).
        variant: full variant string (with its ``taker`` flag in Give and Take).
        opening: FEN of the start position, or None for the variant's start position.
        opening_index: which opening this is.
        seed: game seed; the agents are reset with seeds derived from it.
        max_plies: cap on plies from the opening (the game is then truncated).
        event: PDN ``Event`` tag.
        round: PDN ``Round`` tag.
    """

    index: int
    black_spec: str | Agent
    white_spec: str | Agent
    black_name: str
    white_name: str
    variant: str
    opening: str | None
    opening_index: int
    seed: int
    max_plies: int = 400
    event: str = "drl arena"
    round: str = ""

    def __post_init__(self) -> None:
        check_max_plies(self.max_plies)


def check_max_plies(max_plies: object) -> None:
    """Raise ``ValueError`` unless ``max_plies`` is an integer in ``[1, MAX_PLIES]`` (a
    cap of 0 plies would record every game as truncated before its first move)."""
    check_count(max_plies, "max_plies", 1, MAX_PLIES)


def check_openings(openings: object) -> None:
    """Raise ``ValueError`` unless ``openings`` is None, a number of plies in
    ``[0, MAX_OPENING_PLIES]`` or a sequence of FEN strings (checked against the variant
    later)."""
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
    """``games`` as an int if it is in ``[1, MAX_GAMES]``; else ``ValueError`` naming
    ``name`` and the limit."""
    return check_count(games, name, 1, MAX_GAMES)


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


# -- building tasks ---------------------------------------------------------------------


def role_variant(variant: Variant | str, taker: str) -> Variant:
    """The variant with ``taker`` as the Taker's colour (Give and Take; else unchanged).

    Raises:
        ValueError: ``taker`` is not ``"black"`` or ``"white"``.
    """
    v = Variant.parse(variant)
    if taker not in COLORS:
        raise ValueError(f"taker must be 'black' or 'white', got {taker!r}")
    if not v.is_asymmetric:
        return v
    objectives = ("take", "give") if taker == "black" else ("give", "take")
    return v.replace(taker=taker, objectives=objectives)


OPENINGS_CHECKED = 1_000
"""Most distinct openings counted before a match's first game (:class:`_Openings`): a
request for more distinct openings than a variant has at that length fails at once up to
this many (a few tenths of a second); past it, only when the openings run out."""

_DRAW_ATTEMPTS = 200


def _distinct_openings(variant: Variant, plies: int, check: Sequence[Variant]) -> Iterator[str]:
    """Every distinct live position ``plies`` legal moves from the start, in depth-first
    order of the legal move lists (transpositions explored once). Live: the game goes on
    under every variant of ``check`` (both Taker colours in Give and Take)."""
    board = Board(variant)
    explored: set[tuple[int, str]] = set()
    leaves: set[str] = set()

    def walk(left: int) -> Iterator[str]:
        fen = board.fen()
        if left == 0:
            if fen not in leaves:
                leaves.add(fen)
                if all(not Board(w, fen=fen).is_game_over() for w in check):
                    yield fen
            return
        if (left, fen) in explored:
            return
        explored.add((left, fen))
        legal = board.legal_moves
        if not legal or board.is_game_over():
            return
        for move in legal:
            board.push_unchecked(move)
            yield from walk(left - 1)
            board.pop()

    yield from walk(plies)


class _Openings(Sequence[str]):
    """Distinct seeded random openings drawn in order as they are first asked for: item
    ``i`` is ``make_openings(variant, count, plies, seed)[i]``, without drawing those
    after it.

    A random opening already drawn is drawn again; when random draws keep landing on
    drawn ones, the first position in depth-first order not drawn yet is taken (so the
    last few of a variant's openings are found too). The constructor counts up to
    ``min(count, OPENINGS_CHECKED)`` distinct live openings of that length and raises
    ``ValueError`` if the variant has fewer, naming how many it has.
    """

    def __init__(self, variant: Variant, count: int, plies: int, seed: int) -> None:
        v = variant
        self.variant, self._n, self.plies = v, count, plies
        self._check = (
            [role_variant(v, "black"), role_variant(v, "white")] if v.is_asymmetric else [v]
        )
        self._rng = np.random.default_rng(seed)
        self._fens: list[str] = []
        self._drawn: set[str] = set()
        self._all = _distinct_openings(v, plies, self._check)
        self._listed: list[str] = []  # self._all as far as it has been read
        self._list(min(count, OPENINGS_CHECKED))

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i):
        if not 0 <= i < self._n:
            raise IndexError(f"opening {i} of {self._n}")
        while len(self._fens) <= i:
            fen = self._draw()
            self._fens.append(fen)
            self._drawn.add(fen)
        return self._fens[i]

    def _list(self, n: int) -> None:
        """Read the distinct openings in order until ``n`` are listed (or raise)."""
        while len(self._listed) < n:
            fen = next(self._all, None)
            if fen is None:
                raise ValueError(
                    f"{self.variant} has only {len(self._listed):,} distinct live "
                    f"{self.plies}-ply openings, {self._n:,} asked for: use longer "
                    f"openings (more plies)"
                )
            self._listed.append(fen)

    def _draw(self) -> str:
        rng = self._rng
        for _attempt in range(_DRAW_ATTEMPTS):
            board = Board(self.variant)
            ok = True
            for _ply in range(self.plies):
                legal = board.legal_moves
                if not legal or board.is_game_over():
                    ok = False
                    break
                board.push_unchecked(legal[int(rng.integers(len(legal)))])
            fen = board.fen()
            if (
                ok
                and fen not in self._drawn
                and all(not Board(w, fen=fen).is_game_over() for w in self._check)
            ):
                return fen
        # the random draws keep repeating: the first opening in order not drawn yet
        for k in range(len(self._drawn) + 1):
            self._list(k + 1)
            if self._listed[k] not in self._drawn:
                return self._listed[k]
        raise AssertionError("unreachable: more openings drawn than listed")


def check_distinct_openings(variant: Variant | str, plies: int, games: int) -> None:
    """Raise ``ValueError`` unless ``variant`` has the distinct live ``plies``-ply openings
    that a match of ``games`` games draws (one per two games; counted up to
    :data:`OPENINGS_CHECKED`), without drawing any."""
    check_openings(plies)
    n_open = -(-games // 2)
    try:
        _Openings(Variant.parse(variant), n_open, plies, 0)
    except ValueError as err:
        raise ValueError(f"{games:,} games start from {n_open:,} openings: {err}") from None


def make_openings(variant: Variant | str, count: int, plies: int, seed: int = 0) -> list[str]:
    """Seeded random openings: ``count`` distinct FENs reached by ``plies`` random legal
    moves.

    Openings that end the game (under either Taker colour in Give and Take) or that were
    drawn already are drawn again (see :class:`_Openings`). Matches draw the same
    openings one by one as their games start (:func:`match_tasks`).

    Raises:
        ValueError: negative ``count``/``plies``, ``plies`` over
            :data:`MAX_OPENING_PLIES`, or fewer than ``count`` distinct live openings of
            ``plies`` plies in the variant (the message says how many there are).
    """
    if count < 0 or plies < 0:
        raise ValueError(f"count and plies must be >= 0, got {count}, {plies}")
    check_openings(plies)
    drawn = _Openings(Variant.parse(variant), count, plies, seed)
    return [drawn[i] for i in range(count)]


class TaskList(Sequence[GameTask]):
    """A read-only list of game tasks, each built when it is read: a long match does not
    build its tasks, nor draw its openings, before its first game.

    It behaves as a sequence (``len``, indexing, slices as lists, iteration, ``==``
    against any sequence of tasks); ``+`` with another sequence of tasks gives a
    :class:`TaskList` of both, still unbuilt.
    """

    def __init__(self, parts: Sequence[Sequence[GameTask]] = ()) -> None:
        self._parts: list[Sequence[GameTask]] = []
        self._ends: list[int] = []
        for part in parts:
            for p in part._parts if isinstance(part, TaskList) else [part]:
                if len(p):
                    self._parts.append(p)
                    self._ends.append((self._ends[-1] if self._ends else 0) + len(p))

    @classmethod
    def lazy(cls, length: int, build: Callable[[int], GameTask]) -> TaskList:
        """Tasks ``build(0), ..., build(length - 1)``, built when read."""
        return cls([_Built(length, build)])

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    @overload
    def __getitem__(self, i: int) -> GameTask: ...
    @overload
    def __getitem__(self, i: slice) -> list[GameTask]: ...
    def __getitem__(self, i: int | slice) -> GameTask | list[GameTask]:
        n = len(self)
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(n))]
        k = int(i) + n if i < 0 else int(i)
        if not 0 <= k < n:
            raise IndexError(f"task {i} of {n}")
        p = bisect.bisect_right(self._ends, k)
        return self._parts[p][k - (self._ends[p - 1] if p else 0)]

    def __iter__(self) -> Iterator[GameTask]:
        for part in self._parts:
            yield from part

    def __add__(self, other: Sequence[GameTask]) -> TaskList:
        return TaskList([self, tuple(other) if isinstance(other, list) else other])

    def __radd__(self, other: Sequence[GameTask]) -> TaskList:
        return TaskList([tuple(other) if isinstance(other, list) else other, self])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str) or len(other) != len(self):
            return False
        return all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<TaskList of {len(self)} tasks>"


class _StartPositions(Sequence[None]):
    """``n`` openings that are all the start position (None)."""

    def __init__(self, n: int) -> None:
        self._n = n

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i):
        return None


class _Built(Sequence[GameTask]):
    def __init__(self, length: int, build: Callable[[int], GameTask]) -> None:
        self._length, self._build = length, build

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, i):
        if not 0 <= i < self._length:
            raise IndexError(i)
        return self._build(i)

    def __iter__(self) -> Iterator[GameTask]:
        return (self._build(i) for i in range(self._length))


def _unique_names(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a != b else (f"{a}#1", f"{b}#2")


def match_tasks(
    agent_a: str | Agent,
    agent_b: str | Agent,
    variant: Variant | str,
    games: int,
    openings: int | Sequence[str] | None = 4,
    seed: int = 0,
    max_plies: int = 400,
    names: tuple[str, str] | None = None,
    event: str = "drl arena",
    first_index: int = 0,
) -> TaskList:
    """The tasks of an A-vs-B match (see the module doc for the colour/role schedule):
    games ``2k`` and ``2k + 1`` start from opening ``k`` with A and B's colours swapped
    (in Give and Take with the same Taker colour, Black's for even ``k``, White's for odd).

    Args:
        agent_a, agent_b: spec strings (or agents, for in-process play).
        variant: the variant (Give and Take: its ``taker`` flag is set per game).
        games: number of games, in ``[1, MAX_GAMES]``; a multiple of 2 (4 in Give and
            Take) plays every colour/role combination equally often.
        openings: plies of the seeded random openings, distinct, one per two games (at
            most :data:`MAX_OPENING_PLIES`), a list of FENs (used in turn, one per two
            games), or None / 0 for the start position.
        seed: match seed (openings and agent seeds).
        max_plies: per-game cap.
        names: display names of A and B (default: their specs, made unique).
        event: PDN ``Event`` tag.
        first_index: index of the first task.

    Returns:
        A :class:`TaskList`: each task is made when it is read, and the random openings
        are drawn in order as they are first needed (reading task ``k`` draws the
        openings up to its own; the first is drawn here, so that a variant without live
        openings of that length fails at once).

    Raises:
        ValueError: ``games`` outside ``[1, MAX_GAMES]``, ``max_plies`` outside
            ``[1, MAX_PLIES]``, bad ``openings``, bad variant, bad FEN in ``openings``,
            or fewer distinct live openings of ``openings`` plies than ``games / 2``
            (counted up to :data:`OPENINGS_CHECKED` here, past it as they run out).
    """
    games = check_games(games)
    check_max_plies(max_plies)
    check_openings(openings)
    v = Variant.parse(variant)
    cycle = 4 if v.is_asymmetric else 2  # games until the colour/role schedule repeats
    n_open = -(-games // 2)
    fens: Sequence[str | None]
    if openings is None or (isinstance(openings, int) and openings == 0):
        fens = _StartPositions(n_open)
    elif isinstance(openings, int):
        try:
            fens = _Openings(v, n_open, openings, seed)
        except ValueError as err:
            raise ValueError(f"{games:,} games start from {n_open:,} openings: {err}") from None
        fens[0]  # noqa: B018 - fails now if no live opening of this length exists
    else:
        fens = list(openings)
        if not fens:
            raise ValueError("openings: the list of FENs is empty")
        for f in fens:
            Board(v, fen=f)  # raises FENError early, naming the FEN
    if names is None:
        names = _unique_names(spec_name(agent_a), spec_name(agent_b))
    name_a, name_b = names
    game_seeds = np.random.SeedSequence(seed).generate_state(games, dtype=np.uint32)
    # the game's variant string for each place in the colour/role cycle (str() is costly)
    cycle_variants = []
    for c in range(cycle):
        a_black = c in (0, 3)
        if v.is_asymmetric:
            a_taker = c in (0, 2)
            taker = (
                ("black" if a_black else "white") if a_taker else ("white" if a_black else "black")
            )
            cycle_variants.append(str(role_variant(v, taker)))
        else:
            cycle_variants.append(str(v))

    def build(g: int) -> GameTask:
        o, c = g // 2, g % cycle
        a_black = c in (0, 3)
        return GameTask(
            index=first_index + g,
            black_spec=agent_a if a_black else agent_b,
            white_spec=agent_b if a_black else agent_a,
            black_name=name_a if a_black else name_b,
            white_name=name_b if a_black else name_a,
            variant=cycle_variants[c],
            opening=fens[o % len(fens)],
            opening_index=o % len(fens),
            seed=int(game_seeds[g]),
            max_plies=max_plies,
            event=event,
            round=str(g + 1),
        )

    return TaskList.lazy(games, build)


# -- playing ----------------------------------------------------------------------------

_AGENTS: dict[tuple[str, int], Agent] = {}


def _agent(spec: str | Agent, slot: int) -> Agent:
    if isinstance(spec, Agent):
        return spec
    key = (spec, slot)
    if key not in _AGENTS:
        _AGENTS[key] = make(spec)
    return _AGENTS[key]


def close_agents() -> None:
    """Close the agents this process built from specs and kept for later games (those
    with a ``close`` method, e.g. the external engines of ``hub:`` and ``dxp:``, whose
    processes stop), and forget them; the next game builds new ones. Agents without
    ``close`` stay (a network agent keeps its loaded weights)."""
    for key, agent in list(_AGENTS.items()):
        close = getattr(agent, "close", None)
        if callable(close):
            del _AGENTS[key]
            close()


def check_agents(specs: Sequence[str | Agent], variant: Variant | str) -> None:
    """Check before any game that the agents can play ``variant``
    (:meth:`Agent.check_variant`, e.g. an ``az`` checkpoint's board size). Agent objects
    and batched specs are checked here (a batched spec's agent is built once and kept
    for its games); the agents of other specs are checked as each game starts.

    Raises:
        ValueError: a bad spec, or an agent that cannot play ``variant`` (the message
            names what does not fit).
    """
    v = Variant.parse(variant)
    for spec in specs:
        if isinstance(spec, Agent) or is_batched(spec):
            _agent(spec, 2).check_variant(v)


def play_game(task: GameTask) -> GameRecord:
    """Play one game to its end or to ``task.max_plies``.

    Returns:
        The :class:`GameRecord`, with its PDN text.

    Raises:
        RuntimeError: an agent returned an illegal move (the message names it).
    """
    start = time.perf_counter()
    variant = Variant.parse(task.variant)
    board = Board(variant, fen=task.opening)
    opening_fen = board.fen()
    black = _agent(task.black_spec, 0)
    white = _agent(task.white_spec, 1)
    black.check_variant(variant)
    white.check_variant(variant)
    black.reset(seed=task.seed * 2)
    white.reset(seed=task.seed * 2 + 1)
    players = (black, white)
    outcome = board.outcome()
    while outcome is None and board.ply < task.max_plies:
        agent = players[int(board.turn)]
        _push(board, agent, agent.select_move(board))
        outcome = board.outcome()
    return record_game(task, board, opening_fen, time.perf_counter() - start)


def _push(board: Board, agent: Agent, move: object) -> None:
    try:
        board.push(move)  # type: ignore[arg-type]
    except ValueError as err:
        raise RuntimeError(
            f"{agent.name} played an illegal move {move} in {board.fen()}: {err}"
        ) from None


class _Game:
    """A game in flight: its board, its two agents and whether it has ended."""

    def __init__(self, task: GameTask, players: tuple[Agent, Agent]) -> None:
        self.task = task
        self.start = time.perf_counter()
        variant = Variant.parse(task.variant)
        for agent in players:
            agent.check_variant(variant)
        self.board = Board(variant, fen=task.opening)
        self.opening_fen = self.board.fen()
        self.players = players
        self.over = self._ended()

    def _ended(self) -> bool:
        return self.board.outcome() is not None or self.board.ply >= self.task.max_plies

    def to_move(self) -> Agent:
        return self.players[int(self.board.turn)]

    def push(self, agent: Agent, move: object) -> None:
        _push(self.board, agent, move)
        self.over = self._ended()

    def record(self) -> GameRecord:
        return record_game(
            self.task, self.board, self.opening_fen, time.perf_counter() - self.start
        )


class _Instances:
    """Agents of the games in flight: batched agents are shared (one per spec or object),
    non-batched ones are one instance per game, built from the spec (or copied from the
    object) and reused by the next game once theirs has ended."""

    def __init__(self) -> None:
        self._free: dict[object, list[Agent]] = {}
        self._shared: dict[object, Agent] = {}

    @staticmethod
    def _key(spec: str | Agent) -> object:
        return ("id", id(spec)) if isinstance(spec, Agent) else spec

    def acquire(self, spec: str | Agent, seed: int) -> Agent:
        key = self._key(spec)
        if is_batched(spec):
            if key not in self._shared:
                agent = _agent(spec, 2)
                agent.reset(seed=seed)
                self._shared[key] = agent
            return self._shared[key]
        free = self._free.setdefault(key, [])
        if free:
            agent = free.pop()
        elif isinstance(spec, Agent):
            agent = copy.deepcopy(spec)
        else:
            agent = make(spec)
        agent.reset(seed=seed)
        return agent

    def release(self, spec: str | Agent, agent: Agent) -> None:
        if not agent.batched:
            self._free[self._key(spec)].append(agent)


class _InFlight:
    """The games with a batched agent in play in this process (see :func:`play_in_flight`)."""

    def __init__(self, in_flight: int) -> None:
        if in_flight < 1:
            raise ValueError(f"in_flight must be >= 1, got {in_flight}")
        self.limit = in_flight
        self.agents = _Instances()
        self.live: list[_Game] = []

    def room(self) -> bool:
        return len(self.live) < self.limit

    def add(self, t: GameTask) -> None:
        black = self.agents.acquire(t.black_spec, t.seed * 2)
        white = self.agents.acquire(t.white_spec, t.seed * 2 + 1)
        self.live.append(_Game(t, (black, white)))

    def step(self) -> list[GameRecord]:
        """One round: every game moves until a batched agent is to move, each batched agent
        moves in all its games at once; returns the games that ended."""
        for g in self.live:
            while not g.over and not g.to_move().batched:
                agent = g.to_move()
                g.push(agent, agent.select_move(g.board))
        waiting: dict[int, tuple[Agent, list[_Game]]] = {}
        for g in self.live:
            if not g.over:
                agent = g.to_move()
                waiting.setdefault(id(agent), (agent, []))[1].append(g)
        for agent, games in waiting.values():
            for g, move in zip(games, agent.select_moves([g.board for g in games]), strict=True):
                g.push(agent, move)
        still, ended = [], []
        for g in self.live:
            if not g.over:
                still.append(g)
                continue
            self.agents.release(g.task.black_spec, g.players[0])
            self.agents.release(g.task.white_spec, g.players[1])
            ended.append(g.record())
        self.live = still
        return ended


def play_in_flight(
    tasks: Iterable[GameTask],
    in_flight: int = DEFAULT_IN_FLIGHT,
    on_record: Callable[[GameRecord], None] | None = None,
) -> list[GameRecord]:
    """Play tasks in this process with up to ``in_flight`` games at a time.

    Each round the non-batched agents move in every game until a batched agent is to move
    (or the game ends); then each batched agent chooses its moves in all the games where
    it is to move with one :meth:`~drl.agents.Agent.select_moves` call. A batched agent is
    built once per spec (or is the object given) and shared by the games; a non-batched
    agent has an instance of its own in each game (built from its spec, or a deep copy of
    the object given), reset with the game's seed as :func:`play_game` does, so every game
    gets the moves :func:`play_game` would play.

    Args:
        tasks: the games (read in order, as games start: a :class:`TaskList` is built
            as it is played).
        in_flight: most games played at once (>= 1).
        on_record: called with each finished game (in completion order).

    Returns:
        Records sorted by task index.

    Raises:
        ValueError: ``in_flight < 1``, or an agent that cannot play a game's variant.
        RuntimeError: an agent returned an illegal move (the message names it).
    """
    flight = _InFlight(in_flight)
    pending = iter(tasks)
    records: list[GameRecord] = []
    more = True
    while True:
        while more and flight.room():
            t = next(pending, None)
            if t is None:
                more = False
            else:
                flight.add(t)
        if not flight.live:
            break
        for rec in flight.step():
            records.append(rec)
            if on_record:
                on_record(rec)
    return sorted(records, key=lambda r: r.index)


def record_game(task: GameTask, board: Board, opening_fen: str, seconds: float) -> GameRecord:
    """The record of a finished (or truncated) game, with its PDN.

    Args:
        task: the game's task (names, variant, seed, PDN ``Event``/``Round``).
        board: the board after the last move; its root is the opening.
        opening_fen: FEN of the opening.
        seconds: wall time of the game.
    """
    outcome = board.outcome()
    root = board.root()
    roles = (root.role(0), root.role(1))
    if outcome is None:
        result, winner, termination = "*", None, "max_plies"
    else:
        result = outcome.result
        winner = None if outcome.winner is None else COLORS[int(outcome.winner)]
        termination = outcome.termination.name.lower()
    tags = {
        "Event": task.event,
        "Round": task.round or str(task.index + 1),
        "Black": task.black_name,
        "White": task.white_name,
        "Variant": task.variant,
        "SetUp": "1",
        "FEN": opening_fen,
        "Termination": termination,
    }
    if roles[0] is not None and roles[1] is not None:  # a variant gives both or none
        tags["BlackRole"], tags["WhiteRole"] = roles[0], roles[1]
    # The Outcome, not its White-first text: the writer puts the result in the file's
    # convention (English-board GameType 21 gives Black's score first).
    pdn = board_to_pdn(board, tags, outcome if outcome is not None else "*")
    return GameRecord(
        index=task.index,
        black=task.black_name,
        white=task.white_name,
        variant=task.variant,
        roles=roles,
        opening=opening_fen,
        opening_index=task.opening_index,
        moves=tuple(str(m) for m in board.move_stack),
        result=result,
        winner=winner,
        termination=termination,
        plies=board.ply,
        seed=task.seed,
        pdn=pdn,
        seconds=seconds,
    )


def default_workers() -> int:
    """min(2, CPUs available)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - non-Linux
        cpus = os.cpu_count() or 1
    return max(1, min(2, cpus))


def _ignore_interrupts() -> None:
    """Worker processes leave Ctrl-C (sent to the whole process group) to the main process,
    which stops them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class IgnoringSignals:
    """Ignore the given signals in this process inside the ``with`` block (main thread
    only; elsewhere nothing changes), then restore their handlers.

    Used while worker processes may be started: a spawned child inherits an ignored
    SIGINT through ``exec`` and Python then installs no handler of its own, so a Ctrl-C
    sent to the process group while a worker is still importing cannot end it with a
    traceback (the initializer, which also ignores it, runs only after the imports). The
    CLI uses it to write results without a second Ctrl-C cutting the write short.
    """

    def __init__(self, *signals: int) -> None:
        self.signals = signals or (signal.SIGINT,)

    def __enter__(self) -> None:
        self._old: dict[int, Any] = {}
        if threading.current_thread() is threading.main_thread():
            for sig in self.signals:
                self._old[sig] = signal.signal(sig, signal.SIG_IGN)

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self._old.items():
            signal.signal(sig, handler)


def _stop_workers(pool: cf.ProcessPoolExecutor) -> None:
    """Kill the workers now (the games they are playing are lost anyway), drop the queued
    games, and wait until the pool has reaped its processes."""
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        try:
            proc.kill()
        except (OSError, ValueError, AttributeError):  # already gone
            pass
    pool.shutdown(wait=True, cancel_futures=True)


def run_games(
    tasks: Sequence[GameTask],
    workers: int | None = None,
    progress: bool = True,
    description: str = "games",
    on_record: Callable[[GameRecord], None] | None = None,
    in_flight: int = DEFAULT_IN_FLIGHT,
) -> list[GameRecord]:
    """Play tasks: games with a batched agent in this process, many in flight
    (:func:`play_in_flight`); the others in parallel processes when ``workers > 1``.

    Tasks are read in order as games start (a :class:`TaskList` is built, and its
    openings drawn, as it is played), and at most ``2 * workers`` games wait for a worker,
    so a long schedule starts at once and holds little memory. When interrupted
    (``KeyboardInterrupt``, or any error) the worker processes are stopped and the
    exception is raised again: every game finished before it has been passed to
    ``on_record``.

    Args:
        tasks: the games.
        workers: processes for the games without a batched agent (default
            :func:`default_workers`, at most :data:`MAX_WORKERS`); 1 plays them in this
            process (required when those tasks hold :class:`Agent` objects rather than
            specs).
        progress: show a progress bar (tqdm, on stderr).
        description: progress-bar label.
        on_record: called with each finished game (in completion order).
        in_flight: most games with a batched agent played at once.

    Returns:
        Records sorted by task index.

    Raises:
        ValueError: ``workers`` outside ``[1, MAX_WORKERS]`` or ``in_flight < 1``, Agent
            objects of non-batched agents with ``workers > 1``, or an agent that cannot
            play a game's variant.
    """
    from tqdm.auto import tqdm

    workers = default_workers() if workers is None else workers
    check_count(workers, "workers", 1, MAX_WORKERS)
    flight = _InFlight(in_flight)
    batched: dict[object, bool] = {}

    def has_batched(t: GameTask) -> bool:
        for spec in (t.black_spec, t.white_spec):
            key = ("id", id(spec)) if isinstance(spec, Agent) else spec
            if key not in batched:
                batched[key] = is_batched(spec)
            if batched[key]:
                return True
        return False

    records: list[GameRecord] = []
    bar = tqdm(total=len(tasks), desc=description, disable=not progress, unit="game", leave=False)

    def done(rec: GameRecord) -> None:
        records.append(rec)
        bar.update()
        if on_record:
            on_record(rec)

    parallel = workers > 1 and len(tasks) > 1
    pool: cf.ProcessPoolExecutor | None = None
    waiting: set[cf.Future] = set()
    pending = iter(tasks)
    task = next(pending, None)
    try:
        while task is not None or flight.live or waiting:
            for fut in [f for f in waiting if f.done()]:
                waiting.discard(fut)
                done(fut.result())
            if task is not None:
                if has_batched(task):
                    if flight.room():
                        flight.add(task)
                        task = next(pending, None)
                        continue
                elif not parallel:
                    done(play_game(task))
                    task = next(pending, None)
                    continue
                elif len(waiting) < 2 * workers:
                    if isinstance(task.black_spec, Agent) or isinstance(task.white_spec, Agent):
                        raise ValueError(
                            "agents given as objects can only play with workers=1; pass spec "
                            "strings to play in parallel"
                        )
                    if pool is None:
                        pool = cf.ProcessPoolExecutor(
                            max_workers=min(workers, len(tasks)),
                            mp_context=mp.get_context("spawn"),
                            initializer=_ignore_interrupts,
                        )
                    with IgnoringSignals(signal.SIGINT):  # submit starts workers as needed
                        waiting.add(pool.submit(play_game, task))
                    task = next(pending, None)
                    continue
            if flight.live:
                for rec in flight.step():
                    done(rec)
            elif waiting:
                cf.wait(waiting, return_when=cf.FIRST_COMPLETED)
    except BaseException:
        if pool is not None:
            _stop_workers(pool)
            pool = None
        raise
    finally:
        bar.close()
        if pool is not None:
            pool.shutdown(wait=True)
        close_agents()  # external engines stop with the games they played
    return sorted(records, key=lambda r: r.index)


def write_pdn(records: Sequence[GameRecord], path: str | os.PathLike) -> Path:
    """Write the games' PDN, concatenated, to ``path`` (parent folders are created). The
    file is replaced atomically: a reader sees the old file or the new one, never a part;
    when it cannot be written, the old file stays and ``<name>.tmp`` is removed (the
    ``OSError`` names ``path``).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        write_atomic(path, "".join(r.pdn for r in records), fsync=False)
    except OSError as err:  # (a full disk): the old file stays, no partial one is left
        raise OSError(err.errno, err.strerror, str(path)) from None
    return path


class PDNWriter:
    """Appends each finished game's PDN to a file as the game finishes (flushed), so that
    an interrupted match keeps every game it finished.

    The file is created (or emptied) when the writer is made, so an unwritable path fails
    before the first game. Use as a context manager, or call :meth:`close`.

    Args:
        path: the PDN file (parent folders are created).

    Attributes:
        path: the file.
        games: games written so far.

    Raises:
        OSError: the file cannot be created.
    """

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "w", encoding="utf-8")  # noqa: SIM115 - closed in close()
        self.games = 0

    def add(self, record: GameRecord) -> None:
        """Append one game and flush it to the file."""
        self._fh.write(record.pdn)
        self._fh.flush()
        self.games += 1

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> PDNWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _calls(*callbacks: Callable[[GameRecord], None] | None) -> Callable[[GameRecord], None]:
    """One callback calling each given one in turn."""
    given = [c for c in callbacks if c is not None]

    def call(rec: GameRecord) -> None:
        for c in given:
            c(rec)

    return call


def play_tasks(
    tasks: Sequence[GameTask],
    workers: int | None = None,
    progress: bool = True,
    description: str = "games",
    on_record: Callable[[GameRecord], None] | None = None,
    pdn_path: str | os.PathLike | None = None,
) -> tuple[list[GameRecord], Path | None]:
    """:func:`run_games`, writing each game to ``pdn_path`` as it finishes
    (:class:`PDNWriter`) and the file in game order at the end (:func:`write_pdn`).

    Returns:
        ``(records sorted by index, the PDN path or None)``.
    """
    if pdn_path is None:
        return run_games(tasks, workers, progress, description, on_record), None
    with PDNWriter(pdn_path) as writer:
        records = run_games(tasks, workers, progress, description, _calls(writer.add, on_record))
    return records, write_pdn(records, pdn_path)


def play_match(
    agent_a_spec: str | Agent,
    agent_b_spec: str | Agent,
    variant: Variant | str = "english",
    games: int = 20,
    *,
    openings: int | Sequence[str] | None = 4,
    seed: int = 0,
    workers: int | None = None,
    max_plies: int = 400,
    pdn_path: str | os.PathLike | None = None,
    progress: bool = True,
    event: str = "drl arena",
    on_record: Callable[[GameRecord], None] | None = None,
) -> MatchResult:
    """Play a match A vs B with colours (and Give and Take roles) swapped.

    Args:
        agent_a_spec, agent_b_spec: agent specs (e.g. ``"alphabeta:depth=4"``), or agent
            objects (those of non-batched agents with ``workers=1``).
        variant: variant string (``"give_and_take:max_capture=true"``...).
        games: number of games (see :func:`match_tasks` for the schedule).
        openings: random-opening plies, a list of FENs, or None for the start position.
        seed: match seed.
        workers: processes (default min(2, CPUs)).
        max_plies: per-game cap; longer games are reported as truncated.
        pdn_path: write every game to this PDN file as it finishes (the file is
            rewritten in game order at the end; see :class:`PDNWriter`).
        progress: show a progress bar.
        event: PDN ``Event`` tag.
        on_record: called with each finished game (in completion order).

    Returns:
        :class:`MatchResult` with records sorted by game index.

    Raises:
        ValueError: bad specs (listing the valid agents), variant, openings or counts, or
            an agent that cannot play the variant (:func:`check_agents`).
        OSError: ``pdn_path`` cannot be written (before the first game).
    """
    names = _unique_names(spec_name(agent_a_spec), spec_name(agent_b_spec))  # checks specs
    v = Variant.parse(variant)
    check_agents([agent_a_spec, agent_b_spec], v)
    tasks = match_tasks(
        agent_a_spec, agent_b_spec, v, games, openings, seed, max_plies, names=names, event=event
    )
    records, written = play_tasks(
        tasks, workers, progress, f"{names[0]} vs {names[1]}", on_record, pdn_path
    )
    return MatchResult(players=names, variant=str(v), records=records, pdn_path=written)
