"""Spreading a match's games over worker processes, one per core by default.

:func:`run_games` plays a list of game tasks: in this process (the games of a batched
agent many in flight, :func:`drl.eval.play.play_in_flight`, the others one by one,
:func:`drl.eval.play.play_game`) or in worker processes (:class:`drl.eval.workers.GamePool`).
The games are the same whatever the number of workers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from drl._system import usable_cpus
from drl.agents import Agent, is_batched, is_timed
from drl.eval.limits import MAX_WORKERS, check_count
from drl.eval.play import DEFAULT_IN_FLIGHT, _InFlight, close_agents, play_game
from drl.eval.records import GameRecord
from drl.eval.tasks import GameTask
from drl.eval.workers import GamePool

__all__ = ["default_workers", "run_games"]


def default_workers() -> int:
    """Every CPU this process may run on (:func:`drl._system.usable_cpus`), at most 256."""
    return max(1, min(MAX_WORKERS, usable_cpus()))


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
    agent many in flight (:func:`drl.eval.play.play_in_flight`), the others one by one
    (:func:`drl.eval.play.play_game`). With more, the games go to worker processes
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
