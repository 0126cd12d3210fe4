"""Playing games: one at a time, many in flight in one process, or in worker processes.

Games with a batched agent (``Agent.batched``, e.g. the network player ``az``) are played
many in flight at a time (:func:`play_in_flight`): each round, the batched agent chooses
its moves in every game where it is to move in one ``select_moves`` call, so its network
sees one batch of leaves for all of them. The other games are played one at a time
(:func:`play_game`). :func:`run_games` spreads both over worker processes
(:mod:`drl.eval.workers`), one per core by default. Every loop gives every game the same
moves for the same seeds, and records each side's thinking time (``GameRecord.clock``).
"""

from __future__ import annotations

import copy
import signal
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from drl._system import usable_cpus
from drl.agents import Agent, is_batched, is_timed, make
from drl.eval.limits import MAX_WORKERS, check_count
from drl.eval.records import GameRecord, record_game
from drl.eval.tasks import GameTask
from drl.rules import Board, Variant

if TYPE_CHECKING:
    from drl.eval.workers import GamePool

__all__ = [
    "DEFAULT_IN_FLIGHT",
    "IgnoringSignals",
    "check_agents",
    "close_agents",
    "default_workers",
    "play_game",
    "play_in_flight",
    "run_games",
]

DEFAULT_IN_FLIGHT = 32
"""Games played at once by :func:`play_in_flight` (each holds its own instance of every
non-batched agent in it)."""


_AGENTS: dict[tuple[str, int], Agent] = {}


def _agent(spec: str | Agent, slot: int) -> Agent:
    if isinstance(spec, Agent):
        return spec
    key = (spec, slot)
    if key not in _AGENTS:
        _AGENTS[key] = make(spec)
    return _AGENTS[key]


def close_agents() -> None:
    """Close the agents this process built from specs and kept for later games, and forget them.

    Those with a ``close`` method are closed (e.g. the external engines of ``hub:`` and
    ``dxp:``, whose processes stop); the next game builds new ones. Agents without ``close``
    stay (a network agent keeps its loaded weights).
    """
    for key, agent in list(_AGENTS.items()):
        close = getattr(agent, "close", None)
        if callable(close):
            del _AGENTS[key]
            close()


def check_agents(specs: Sequence[str | Agent], variant: Variant | str) -> None:
    """Check before any game that the agents can play ``variant``.

    The check is :meth:`Agent.check_variant` (e.g. an ``az`` checkpoint's board size). Agent
    objects and batched specs are checked here (a batched spec's agent is built once and
    kept for its games); the agents of other specs are checked as each game starts.

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
    clock = Clock()
    outcome = board.outcome()
    while outcome is None and board.ply < task.max_plies:
        turn = int(board.turn)
        agent = players[turn]
        t0 = time.perf_counter()
        move = agent.select_move(board)
        clock.add(turn, time.perf_counter() - t0)
        _push(board, agent, move)
        outcome = board.outcome()
    return record_game(task, board, opening_fen, time.perf_counter() - start, clock.as_dict())


class Clock:
    """Each side's thinking time in one game: moves, seconds in all, most of one move."""

    def __init__(self) -> None:
        self.moves = [0, 0]
        self.seconds = [0.0, 0.0]
        self.most = [0.0, 0.0]

    def add(self, turn: int, seconds: float) -> None:
        """Count one move of side ``turn`` (0 Black, 1 White) that took ``seconds``."""
        self.moves[turn] += 1
        self.seconds[turn] += seconds
        self.most[turn] = max(self.most[turn], seconds)

    def as_dict(self) -> dict[str, list]:
        """``{"black": [moves, seconds, most], "white": [...]}`` (:class:`GameRecord`)."""
        return {
            c: [self.moves[i], self.seconds[i], self.most[i]]
            for i, c in enumerate(("black", "white"))
        }


def _push(board: Board, agent: Agent, move: object) -> None:
    try:
        board.push(move)  # type: ignore[arg-type]
    except ValueError as err:
        raise RuntimeError(
            f"{agent.name} played an illegal move {move} in {board.fen()}: {err}"
        ) from None


class _GameInFlight:
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
        self.clock = Clock()
        self.over = self._ended()

    def _ended(self) -> bool:
        return self.board.outcome() is not None or self.board.ply >= self.task.max_plies

    def to_move(self) -> Agent:
        return self.players[int(self.board.turn)]

    def push(self, agent: Agent, move: object, seconds: float) -> None:
        self.clock.add(int(self.board.turn), seconds)
        _push(self.board, agent, move)
        self.over = self._ended()

    def record(self) -> GameRecord:
        return record_game(
            self.task,
            self.board,
            self.opening_fen,
            time.perf_counter() - self.start,
            self.clock.as_dict(),
        )


class _Instances:
    """Agents of the games in flight, shared when batched and reused when not.

    Batched agents are shared (one per spec or object); non-batched ones are one instance
    per game, built from the spec (or copied from the object) and reused by the next game
    once theirs has ended.
    """

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
        self.live: list[_GameInFlight] = []

    def room(self) -> bool:
        return len(self.live) < self.limit

    def add(self, t: GameTask) -> None:
        black = self.agents.acquire(t.black_spec, t.seed * 2)
        white = self.agents.acquire(t.white_spec, t.seed * 2 + 1)
        self.live.append(_GameInFlight(t, (black, white)))

    def step(self) -> list[GameRecord]:
        """One round of moves; returns the games that ended.

        Every game moves until a batched agent is to move, then each batched agent moves in
        all its games at once.
        """
        for g in self.live:
            while not g.over and not g.to_move().batched:
                agent = g.to_move()
                t0 = time.perf_counter()
                move = agent.select_move(g.board)
                g.push(agent, move, time.perf_counter() - t0)
        waiting: dict[int, tuple[Agent, list[_GameInFlight]]] = {}
        for g in self.live:
            if not g.over:
                agent = g.to_move()
                waiting.setdefault(id(agent), (agent, []))[1].append(g)
        for agent, games in waiting.values():
            t0 = time.perf_counter()
            moves = agent.select_moves([g.board for g in games])
            share = (time.perf_counter() - t0) / len(games)  # the call's time, per game
            for g, move in zip(games, moves, strict=True):
                g.push(agent, move, share)
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


def default_workers() -> int:
    """Every CPU this process may run on (:func:`drl._system.usable_cpus`), at most 256."""
    return max(1, min(MAX_WORKERS, usable_cpus()))


class IgnoringSignals:
    """Ignore the given signals in this process inside the ``with`` block, then restore them.

    Main thread only; elsewhere nothing changes. The handlers are restored on leaving the
    block.

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


def run_games(
    tasks: Sequence[GameTask],
    workers: int | None = None,
    progress: bool = True,
    description: str = "games",
    on_record: Callable[[GameRecord], None] | None = None,
    in_flight: int = DEFAULT_IN_FLIGHT,
) -> list[GameRecord]:
    """Play tasks, spread over ``workers`` processes.

    With ``workers`` = 1 every game is played in this process: the games with a batched
    agent many in flight (:func:`play_in_flight`), the others one by one
    (:func:`play_game`). With more, the games go to worker processes
    (:class:`drl.eval.workers.GamePool`; no more than one per ``in_flight`` games when
    the first game has a batched agent, since starting one costs seconds): each worker
    plays up to ``in_flight`` games of batched agents at once, or one other game; a game
    with an agent on a clock (:func:`drl.agents.is_timed`) has a worker, and a core, to
    itself. Agent objects of
    batched agents that cannot be pickled stay in this process, in flight. The games are
    the same whatever the number of workers (every game is seeded by its task; see
    :mod:`drl.eval.workers` for what a batched agent must then not do).

    Tasks are read in order as games start (a :class:`TaskList` is built, and its
    openings drawn, as it is played), so a long schedule starts at once and holds little
    memory. When interrupted (``KeyboardInterrupt``, or any error) the worker processes
    are stopped and the exception is raised again: every game finished before it has
    been passed to ``on_record``.

    Args:
        tasks: the games.
        workers: processes (default :func:`default_workers`, every usable CPU; at most
            :data:`MAX_WORKERS`); 1 plays in this process (required when the tasks hold
            objects of agents that are not batched, rather than specs).
        progress: show a progress bar (tqdm, on stderr).
        description: progress-bar label.
        on_record: called with each finished game (in completion order).
        in_flight: most games with a batched agent played at once by one process.

    Returns:
        Records sorted by task index.

    Raises:
        ValueError: ``workers`` outside ``[1, MAX_WORKERS]`` or ``in_flight < 1``, objects
            of agents that are not batched with ``workers > 1``, or an agent that cannot
            play a game's variant.
        RuntimeError: an agent played an illegal move, or a worker process died.
    """
    from tqdm.auto import tqdm

    from drl.eval.workers import GamePool

    workers = default_workers() if workers is None else workers
    check_count(workers, "workers", 1, MAX_WORKERS)
    flight = _InFlight(in_flight)
    records: list[GameRecord] = []
    bar = tqdm(total=len(tasks), desc=description, disable=not progress, unit="game", leave=False)

    def done(rec: GameRecord) -> None:
        records.append(rec)
        bar.update()
        if on_record:
            on_record(rec)

    pool = None
    processes = _processes(tasks, workers, in_flight)
    if processes > 1:
        pool = GamePool(processes, in_flight)
    try:
        _play_all(tasks, pool, flight, done)
    except BaseException:
        if pool is not None:
            pool.stop()
        raise
    finally:
        bar.close()
        if pool is not None:
            pool.close()
        close_agents()  # external engines stop with the games they played
    return sorted(records, key=lambda r: r.index)


def _processes(tasks: Sequence[GameTask], workers: int, in_flight: int) -> int:
    """Worker processes worth starting for ``tasks``: at most ``workers``.

    A process costs seconds to start (torch, the compiled code, the network), so games of
    batched agents (as the first task's) get one process per ``in_flight`` games (each
    with a full flight), other games one each. 1 means: play in this process.
    """
    if workers <= 1 or len(tasks) <= 1:
        return 1
    batched, _ = _Kinds().of(tasks[0])
    return max(1, min(workers, -(-len(tasks) // (in_flight if batched else 1))))


def _play_all(
    tasks: Iterable[GameTask],
    pool: GamePool | None,
    flight: _InFlight,
    done: Callable[[GameRecord], None],
) -> None:
    """:func:`run_games`'s loop: start each task where it goes, pass on each finished game."""
    kinds = _Kinds()
    pending = iter(tasks)
    task = next(pending, None)
    while task is not None or flight.live or (pool is not None and pool.busy()):
        if pool is not None:
            for rec in pool.finished():
                done(rec)
        if task is not None:
            batched, timed = kinds.of(task)
            if pool is not None and pool.can_take(task):
                if pool.submit(task, batched, timed):
                    task = next(pending, None)
                    continue
            elif batched:
                if flight.room():
                    flight.add(task)
                    task = next(pending, None)
                    continue
            else:
                done(play_game(task))
                task = next(pending, None)
                continue
        if flight.live:
            for rec in flight.step():
                done(rec)
        elif pool is not None and pool.busy():
            done(pool.wait())


class _Kinds:
    """Whether a task's agents are batched or on a clock, each spec looked up once."""

    def __init__(self) -> None:
        self._seen: dict[object, tuple[bool, bool]] = {}

    def of(self, task: GameTask) -> tuple[bool, bool]:
        """``(a batched agent plays, an agent on a clock plays)``."""
        batched = timed = False
        for spec in (task.black_spec, task.white_spec):
            key = ("id", id(spec)) if isinstance(spec, Agent) else spec
            if key not in self._seen:
                self._seen[key] = (is_batched(spec), is_timed(spec))
            b, t = self._seen[key]
            batched, timed = batched or b, timed or t
        return batched, timed
