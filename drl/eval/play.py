"""Playing games: one at a time, many in flight in one process, or in worker processes.

Games with a batched agent (``Agent.batched``, e.g. the network player ``az``) are played
many in flight at a time (:func:`play_in_flight`): each round, the batched agent chooses
its moves in every game where it is to move in one ``select_moves`` call, so its network
sees one batch of leaves for all of them. The other games are played one at a time
(:func:`play_game`). :func:`drl.eval.spread.run_games` spreads both over worker
processes (:mod:`drl.eval.workers`), one per core by default. Every loop gives every game the same
moves for the same seeds, and records each side's thinking time (``GameRecord.clock``).
"""

from __future__ import annotations

import copy
import signal
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from drl.agents import Agent, is_batched, make
from drl.eval.endings import database_result, game_database
from drl.eval.records import GameRecord, record_game
from drl.eval.tasks import GameTask
from drl.rules import Board, Variant

if TYPE_CHECKING:
    from drl.egtb import Probe

__all__ = [
    "DEFAULT_IN_FLIGHT",
    "IgnoringSignals",
    "check_agents",
    "close_agents",
    "play_game",
    "play_in_flight",
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

    A position the variant's endgame database decides ends the game with its exact
    result when ``task.egtb`` is set and the database is on disk
    (:mod:`drl.eval.endings`).

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
    db = game_database(task.variant, task.egtb)
    outcome = board.outcome()
    exact = database_result(board, db) if outcome is None else None
    while outcome is None and exact is None and board.ply < task.max_plies:
        turn = int(board.turn)
        agent = players[turn]
        t0 = time.perf_counter()
        move = agent.select_move(board)
        clock.add(turn, time.perf_counter() - t0)
        _push(board, agent, move)
        outcome = board.outcome()
        exact = database_result(board, db) if outcome is None else None
    seconds = time.perf_counter() - start
    return record_game(task, board, opening_fen, seconds, clock.as_dict(), database=exact)


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
        self.db = game_database(task.variant, task.egtb)
        self.exact: Probe | None = None
        self.over = self._ended()

    def _ended(self) -> bool:
        if self.board.outcome() is not None:
            return True
        self.exact = database_result(self.board, self.db)
        return self.exact is not None or self.board.ply >= self.task.max_plies

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
            database=self.exact,
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
