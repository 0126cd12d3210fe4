"""Worker processes that play the arena's games on every core.

:class:`GamePool` starts up to ``processes`` worker processes (``spawn``), as games are
given to it. Each worker plays the games it is given with the arena's in-flight loop
(:func:`drl.eval.play.play_in_flight`'s): the games of batched agents (``az``) many at a
time, so that its network sees one batch of leaves for all of them, and any other game
alone, one game per worker at a time (a game with an agent on a clock, ``time=``, goes
only to the first ``usable_cpus()`` workers, so that each such game has a core to
itself and its clock measures its own search). Every game is seeded by its task, never
by its worker, so the games are the same whatever the number of workers, as long as the
agents are deterministic for a given seed (a batched agent is shared by the games of
its worker and is reseeded once: its moves must not depend on its generator, as those
of ``az`` do not; a network evaluated by torch in batches may round its last bits
differently for other batches).

Agent objects (rather than spec strings) of batched agents are sent to each worker
once, pickled (a network agent's weights included); those of other agents cannot leave
the process that made them.

Before its first worker starts, the pool runs the first game's agents for two plies in
the main process (:func:`warm_agents`), so that numba's on-disk cache holds the
compiled code the workers need: they load it rather than each compiling it at once.

A worker ignores SIGINT (a terminal's Ctrl-C reaches the whole process group): the main
process stops the workers (:meth:`GamePool.stop`). Finished games come back one by one
as they finish (:meth:`GamePool.finished`).
"""

from __future__ import annotations

import dataclasses
import multiprocessing as mp
import os
import pickle
import queue
import signal
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from drl._system import usable_cpus
from drl.agents import Agent
from drl.eval.records import GameRecord
from drl.eval.tasks import GameTask

__all__ = ["GamePool", "warm_agents"]

_POLL_S = 0.5  # how often a waiting main process checks that its workers are alive


@dataclass(frozen=True)
class _Shipped:
    """Stands for an agent object sent to the workers (``key`` in their table)."""

    key: int


def _thread_env(threads: int) -> None:
    """Cap the threads of the numeric libraries of this process (before torch loads)."""
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[name] = str(threads)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(threads)
    # the compiled search shares its trees over numba's threads: a worker that holds one
    # core's games must not start a thread per core of the machine
    from drl.search.inline import set_search_threads

    set_search_threads(threads)


def _portable(err: BaseException) -> BaseException:
    """``err`` if it survives pickling, else a RuntimeError with its text."""
    try:
        pickle.loads(pickle.dumps(err))
        return err
    except Exception:
        return RuntimeError(f"{type(err).__name__}: {err}")


def warm_agents(task: GameTask) -> None:
    """Run here, once, the compiled code the agents of ``task`` play with.

    Copies of both agents (a spec is built afresh, an agent object copied through
    pickle, as the workers get it) are checked against the task's variant (which loads
    the search of an agent on a clock, or of ``alphabeta``) and, when neither is on a
    clock nor an outside engine (an agent with ``close``), play the task's first two
    plies. numba compiles each kernel, or loads it from its cache, and writes what it
    compiled to the cache: the workers started next load the kernels instead of each
    compiling the same code at once. The copies are then closed and dropped: no agent,
    generator or table the games use is touched.
    """
    from drl.agents import is_timed, make
    from drl.eval.play import play_game
    from drl.rules import Variant

    agents = [
        pickle.loads(pickle.dumps(spec)) if isinstance(spec, Agent) else make(spec)
        for spec in (task.black_spec, task.white_spec)
    ]
    try:
        variant = Variant.parse(task.variant)
        for agent in agents:
            agent.check_variant(variant)
        timed = any(is_timed(spec) for spec in (task.black_spec, task.white_spec))
        if not timed and not any(callable(getattr(a, "close", None)) for a in agents):
            short = dataclasses.replace(task, black_spec=agents[0], white_spec=agents[1])
            play_game(dataclasses.replace(short, max_plies=2))
    finally:
        for agent in agents:
            close = getattr(agent, "close", None)
            if callable(close):
                close()


def _serve(index: int, inbox: Any, outbox: Any, in_flight: int, threads: int) -> None:
    """A worker's loop: take agents and tasks from ``inbox``, put finished games in ``outbox``.

    Messages in: ``("agent", key, agent)``, ``("task", task)``, ``("stop",)``. Out:
    ``("record", index, record)`` for each finished game, ``("error", index, error)``
    once, after which the worker ends.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _thread_env(threads)
    from drl.eval.play import _InFlight, close_agents

    objects: dict[int, Agent] = {}
    flight = _InFlight(in_flight)

    def resolve(spec: object) -> Any:
        return objects[spec.key] if isinstance(spec, _Shipped) else spec

    try:
        while True:
            try:
                msg = inbox.get(block=not flight.live)
            except queue.Empty:
                msg = None
            if msg is not None:
                if msg[0] == "stop":
                    break
                if msg[0] == "agent":
                    objects[msg[1]] = msg[2]
                else:
                    t = msg[1]
                    black, white = resolve(t.black_spec), resolve(t.white_spec)
                    flight.add(dataclasses.replace(t, black_spec=black, white_spec=white))
                continue  # take every waiting message before the next round of moves
            for rec in flight.step():
                outbox.put(("record", index, rec))
    except BaseException as err:
        outbox.put(("error", index, _portable(err)))
    finally:
        close_agents()


class _Worker:
    """The main process's view of one worker: its process, inbox and the games it holds."""

    def __init__(self, process: Any, inbox: Any) -> None:
        self.process, self.inbox = process, inbox
        self.held = 0  # games given and not finished
        self.alone = False  # it holds a game of agents that are not batched
        self.shipped: set[int] = set()  # agent objects it has


class GamePool:
    """Worker processes playing games (see the module doc).

    Args:
        processes: most worker processes (>= 1).
        in_flight: most games of batched agents a worker plays at once (>= 1).

    Raises:
        ValueError: ``processes`` or ``in_flight`` below 1.
    """

    def __init__(self, processes: int, in_flight: int) -> None:
        if processes < 1 or in_flight < 1:
            raise ValueError(
                f"need processes >= 1 and in_flight >= 1, got {processes}, {in_flight}"
            )
        self.processes, self.in_flight = processes, in_flight
        self.timed_workers = max(1, min(processes, usable_cpus()))
        self.threads = max(1, usable_cpus() // processes)
        self._ctx = mp.get_context("spawn")
        self._outbox: Any = None
        self._workers: list[_Worker | None] = [None] * processes
        self._objects: dict[int, Agent] = {}  # key -> agent object sent to workers
        self._keys: dict[int, int] = {}  # id(agent) -> key
        self._unpicklable: dict[int, Agent] = {}
        self._warmed = False

    def busy(self) -> bool:
        """True while a game given to a worker has not come back from :meth:`finished`."""
        return any(w is not None and w.held for w in self._workers)

    def _choose(self, batched: bool, timed: bool) -> int | None:
        """The worker to take a game, or None while none has room."""
        best, load = None, None
        for i in range(self.timed_workers if timed else self.processes):
            w = self._workers[i]
            held = 0 if w is None else w.held
            if batched:
                if w is not None and (w.alone or held >= self.in_flight):
                    continue
            elif held:
                continue
            if load is None or held < load:
                best, load = i, held
        return best

    def can_take(self, task: GameTask) -> bool:
        """Whether the task's agents can go to a worker.

        Spec strings can, and agent objects of batched agents that can be pickled
        (checked once per object).

        Raises:
            ValueError: an agent object that is not batched (it stays in its process).
        """
        for spec in (task.black_spec, task.white_spec):
            if not isinstance(spec, Agent) or id(spec) in self._keys:
                continue
            if not spec.batched:
                raise ValueError(
                    "agents given as objects can only play with workers=1 unless they "
                    "are batched; pass spec strings to play in parallel"
                )
            if id(spec) in self._unpicklable:
                return False
            try:
                pickle.dumps(spec)
            except Exception:
                self._unpicklable[id(spec)] = spec  # (kept: its id stays its own)
                return False
            key = self._keys[id(spec)] = len(self._keys)
            self._objects[key] = spec
        return True

    def _ship(self, spec: str | Agent) -> str | _Shipped:
        return _Shipped(self._keys[id(spec)]) if isinstance(spec, Agent) else spec

    def _start(self, i: int) -> _Worker:
        from drl.eval.play import IgnoringSignals

        if self._outbox is None:
            self._outbox = self._ctx.Queue()
        inbox = self._ctx.Queue()
        proc = self._ctx.Process(
            target=_serve,
            args=(i, inbox, self._outbox, self.in_flight, self.threads),
            daemon=True,
            name=f"drl-eval-worker-{i}",
        )
        with IgnoringSignals(signal.SIGINT):  # the child inherits an ignored SIGINT
            proc.start()
        w = self._workers[i] = _Worker(proc, inbox)
        return w

    def submit(self, task: GameTask, batched: bool, timed: bool) -> bool:
        """Give ``task`` to a worker with room (starting one as needed); False if none has.

        Args:
            task: the game; :meth:`can_take` must have accepted it.
            batched: a batched agent plays in it (it may share its worker).
            timed: an agent on a clock plays in it.
        """
        black, white = self._ship(task.black_spec), self._ship(task.white_spec)
        i = self._choose(batched, timed)
        if i is None:
            return False
        if not self._warmed:  # before the first worker starts
            self._warmed = True
            warm_agents(task)
        w = self._workers[i] or self._start(i)
        for spec in (black, white):
            if isinstance(spec, _Shipped) and spec.key not in w.shipped:
                w.inbox.put(("agent", spec.key, self._objects[spec.key]))
                w.shipped.add(spec.key)
        shipped = dataclasses.replace(task, black_spec=black, white_spec=white)  # type: ignore[arg-type]
        w.inbox.put(("task", shipped))
        w.held += 1
        w.alone = not batched
        return True

    def _take(self, msg: tuple) -> GameRecord:
        kind, i, payload = msg
        if kind == "error":
            raise payload
        w = self._workers[i]
        assert w is not None
        w.held -= 1
        if not w.held:
            w.alone = False
        return payload

    def finished(self) -> Iterator[GameRecord]:
        """The games finished since the last call, one by one (without waiting).

        A game that failed raises its worker's error.
        """
        while self._outbox is not None:
            try:
                msg = self._outbox.get_nowait()
            except queue.Empty:
                return
            yield self._take(msg)

    def wait(self) -> GameRecord:
        """Wait for the next finished game.

        Raises:
            RuntimeError: a worker holding games has died (killed, out of memory).
        """
        while True:
            try:
                return self._take(self._outbox.get(timeout=_POLL_S))
            except queue.Empty:
                for w in self._workers:
                    if w is not None and w.held and not w.process.is_alive():
                        raise RuntimeError(
                            f"a game worker process ended (exit code {w.process.exitcode}) "
                            f"with {w.held} games unfinished"
                        ) from None

    def stop(self) -> None:
        """Kill the workers now, and wait until their processes are reaped.

        The games they are playing are lost.
        """
        for w in self._workers:
            if w is not None and w.process.is_alive():
                w.process.kill()
        for w in self._workers:
            if w is not None:
                w.process.join()
        self._workers = [None] * self.processes

    def close(self) -> None:
        """Let the workers finish (close their engines) and exit."""
        for w in self._workers:
            if w is not None and w.process.is_alive():
                w.inbox.put(("stop",))
        for w in self._workers:
            if w is not None:
                w.process.join(timeout=30)
                if w.process.is_alive():
                    w.process.kill()
                    w.process.join()
        self._workers = [None] * self.processes
