"""Self-play on several cores of this machine: one worker process per core.

Each worker runs its own :class:`~drl.train.selfplay.SelfPlayActor` (with
``algo=minimax`` a :class:`~drl.train.minimax.MinimaxActor`) with
``games_in_flight / workers`` games in flight and one thread (its compiled search and
torch both single-threaded), so W workers keep W cores busy with no lock or barrier
between them: the search, the game bookkeeping and the PDN text all run in parallel.

A call ships the network's weights to every worker and splits the games asked for
into fixed quotas (worker ``k`` plays ``n // W`` games, one more if ``k < n % W``). The
workers deliver their games in chunks, and the pool hands them on in a fixed order,
round by round: chunk ``j`` of worker 0, of worker 1, ..., then chunk ``j + 1``. Worker
``k`` seeds its moves with the call's seed extended by ``k``, and its role alternation
starts ``k`` games on. So for a given seed and number of workers the games, their order
and therefore their numbers are the same from run to run; a different number of
workers plays different games.

A worker is killed with the process that started it (Linux), and checks after each
chunk that this process is still there, quitting if not: a killed training process
leaves no self-play running. A program that starts self-play on several cores must
guard its entry point with ``if __name__ == "__main__":``, as every program that starts
Python processes with ``multiprocessing``'s ``spawn`` must (the workers import the main
module). A worker that
dies or raises makes the call fail with the worker's error.
"""

from __future__ import annotations

import logging
import multiprocessing as mp
import os
import queue
import signal
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from drl._system import MAIN_GUARD
from drl.rules import Variant
from drl.rules.core import code_winner
from drl.search import SearchConfig
from drl.train.buffer import GameBatch
from drl.train.minimax import MinimaxConfig, make_actor
from drl.train.selfplay import SelfPlayConfig, SelfPlayStats

__all__ = ["WorkerPool", "merge_stats", "quotas", "warm_kernels"]

log = logging.getLogger(__name__)

OnGames = Callable[[GameBatch, list[str]], None]
POLL_S = 1.0  # how often a waiting pool checks that the worker is alive
START_TIMEOUT_S = 600.0  # a worker's start: imports and loading the compiled code


def quotas(num_games: int, workers: int) -> list[int]:
    """Games each of ``workers`` workers plays of ``num_games``.

    ``n // W`` each, the first ``n % W`` one more.
    """
    base, extra = divmod(num_games, workers)
    return [base + (k < extra) for k in range(workers)]


def merge_stats(stats: Sequence[SelfPlayStats], seconds: float | None = None) -> SelfPlayStats:
    """The counters of several actors' calls as one.

    ``seconds`` is the wall time of the whole call (default: the longest one's).
    """
    out = SelfPlayStats()
    ent = 0.0
    for s in stats:
        out.games += s.games
        out.positions += s.positions
        out.searched += s.searched
        out.simulations += s.simulations
        out.leaf_evals += s.leaf_evals
        out.net_batches += s.net_batches
        out.seconds = max(out.seconds, s.seconds)
        out.game_plies += s.game_plies
        out.results += s.results
        out.takers += s.takers
        out.adjudicated += s.adjudicated
        ent += s.target_entropy * s.searched
    out.target_entropy = ent / max(out.searched, 1)
    if seconds is not None:
        out.seconds = seconds
    return out


def _worker_main(
    conn: Any,
    out: Any,
    variants: list[str],
    search: dict,
    config: dict,
    network: dict,
    rank: int,
    minimax: dict | None = None,
) -> None:
    """A worker's life: build its actor, then play what each message asks for."""
    from drl._numba_cache import compiled_kernels
    from drl.nn import NetworkEvaluator, build
    from drl.search.inline import set_search_threads

    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the driver's to handle
    # Games put on the queue after the driver stopped reading must not hold up the exit.
    out.cancel_join_thread()
    torch.set_num_threads(1)
    set_search_threads(1)
    parent = os.getppid()
    # Wait until the driver has the compiled code in numba's cache: then it is loaded here,
    # not compiled once more by every worker at the same time.
    try:
        if conn.recv() is None:
            return
    except (EOFError, OSError):
        return
    net = build(network["arch"], **network["net_config"]).eval()
    actor = make_actor(
        [Variant.parse(v) for v in variants],
        SearchConfig(**search),
        SelfPlayConfig(**config),
        minimax=minimax,
    )
    out.put(("ready", rank))

    def deliver(batch: GameBatch, pdns: list[str]) -> None:
        if os.getppid() != parent:  # the training process is gone
            os._exit(0)
        out.put(("games", batch, pdns))

    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        kind, args = msg
        if kind == "start":
            actor.games_started = int(args) + rank
            continue
        weights, seed, n, chunk = args
        try:
            net.load_state_dict({k: torch.from_numpy(v) for k, v in weights.items()})
            actor.rng = np.random.default_rng([*np.atleast_1d(seed).tolist(), rank])
            ev = NetworkEvaluator(net, "cpu")
            st = actor.play(ev, n, deliver, chunk)
            out.put(("done", st, ev.seconds, compiled_kernels()))
        except Exception as err:  # noqa: BLE001 - handed to the driver, which raises it
            out.put(("error", type(err).__name__, str(err), getattr(err, "what", None)))


def _die_with_parent() -> None:
    """Ask Linux to kill this process when the process that started it dies (no-op elsewhere)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def warm_kernels(
    variants: Sequence[Variant],
    search: SearchConfig,
    config: SelfPlayConfig,
    network: dict,
    minimax: MinimaxConfig | None = None,
) -> None:
    """Run, in this process, every compiled kernel a worker's self-play runs.

    Two games with an untrained network of the same architecture are played to
    ``2`` plies (cut there, so that their adjudication runs too, when it is on): numba
    compiles each kernel, or loads it from its cache, and writes what it compiled to
    the cache, where the workers find it. Nothing of this process's or the workers'
    generators is touched; the games are thrown away.

    Args:
        variants: the variants the workers play.
        search: their search settings.
        config: their self-play settings.
        network: ``describe(net)`` of their network.
        minimax: their minimax self-play settings, None for AlphaZero's.
    """
    from drl.nn import NetworkEvaluator, build

    with torch.random.fork_rng():  # an untrained network, without touching torch's seed
        torch.manual_seed(0)
        net = build(network["arch"], **network["net_config"]).eval()
    small = dict(config.__dict__, games_in_flight=2, max_plies=2, full_search_prob=1.0)
    actor = make_actor(list(variants), search, SelfPlayConfig(**small), 0, minimax)
    actor.play(NetworkEvaluator(net, "cpu"), 2)
    code_winner(np.int64(-1))  # these games end at the ply cap; one that ends by rule reads this


class WorkerPool:
    """W self-play worker processes, each with ``games_in_flight / W`` games in flight.

    Args:
        variants: the variants games are played under, in turn.
        search: the search settings.
        config: the self-play settings (``games_in_flight`` for all workers together).
        network: ``describe(net)`` of the network (architecture and sizes).
        workers: W >= 2.
        minimax: the settings of minimax self-play
            (:class:`~drl.train.minimax.MinimaxConfig`), None for AlphaZero's.

    The pool compiles (or loads) in this process, before its workers build their actors,
    every kernel their self-play runs (:func:`warm_kernels`), so that numba's cache holds
    them and W workers load them instead of each compiling the same code at once.

    Attributes:
        net_seconds: network time of the last call, summed over the workers.
        worker_compiles: kernels the workers have compiled since they started (numba's
            cache missed), as of the last call: 0 once the pool's own compiling has
            filled the cache.

    Raises:
        RuntimeError: if a worker fails to start.
    """

    def __init__(
        self,
        variants: Sequence[Variant],
        search: SearchConfig,
        config: SelfPlayConfig,
        network: dict,
        workers: int,
        minimax: MinimaxConfig | None = None,
    ) -> None:
        ctx = mp.get_context("spawn")  # no copy of this process's threads or locks
        per = max(1, -(-config.games_in_flight // workers))
        sub = dict(config.__dict__, games_in_flight=per)
        self.workers = workers
        self._conns: list[Any] = []
        self._queues: list[Any] = []
        self._procs: list[Any] = []
        self.net_seconds = 0.0
        self.worker_compiles = 0
        self._next_index = 0
        args = ([str(v) for v in variants], dict(search.__dict__), sub, network)
        mm = None if minimax is None else dict(minimax.__dict__)
        for k in range(workers):
            parent_end, child_end = ctx.Pipe()
            q = ctx.Queue()
            p = ctx.Process(
                target=_worker_main,
                args=(child_end, q, *args, k, mm),
                daemon=True,
                name=f"selfplay-{k}",
            )
            p.start()
            child_end.close()
            self._conns.append(parent_end)
            self._queues.append(q)
            self._procs.append(p)
        try:
            # while the workers import, compile here what they will run
            warm_kernels(variants, search, config, network, minimax)
            for conn in self._conns:
                conn.send("go")
            for k in range(workers):
                self._get(k, timeout=START_TIMEOUT_S)
        except BaseException:
            self.close()
            raise

    def _get(self, k: int, timeout: float | None = None) -> tuple:
        """Worker ``k``'s next message; raises its error, or RuntimeError if it died."""
        waited = 0.0
        while True:
            try:
                msg = self._queues[k].get(timeout=POLL_S)
                break
            except queue.Empty:
                waited += POLL_S
                if not self._procs[k].is_alive():
                    code = self._procs[k].exitcode
                    raise RuntimeError(
                        f"self-play worker {k} stopped (exit code {code}); {MAIN_GUARD}"
                    ) from None
                if timeout is not None and waited >= timeout:
                    raise RuntimeError(
                        f"self-play worker {k} did not answer in {timeout:g} s"
                    ) from None
        if msg[0] == "error":
            _, name, text, what = msg
            if name == "TrainingDiverged":
                from drl.nn import TrainingDiverged

                raise TrainingDiverged(text, what=what or "network output")
            raise RuntimeError(f"self-play worker {k}: {name}: {text}")
        return msg

    def set_next_game_index(self, index: int) -> None:
        """Number the games handed back from ``index`` on.

        Worker ``k``'s role alternation continues as if ``index + k`` games had started.
        """
        self._next_index = index
        for conn in self._conns:
            conn.send(("start", index))

    def play(
        self,
        state: dict[str, torch.Tensor],
        num_games: int,
        seed: Any,
        on_games: OnGames,
        chunk: int,
        progress: Callable[[int], None] | None = None,
    ) -> SelfPlayStats:
        """Deliver exactly ``num_games`` games played with the weights ``state``.

        The games reach ``on_games`` in the fixed order of the module's docstring, at
        most ``chunk`` at a time, numbered from the index set by
        :meth:`set_next_game_index` on.
        """
        from drl.train.selfplay import renumber_games

        weights = {k: v.detach().cpu().numpy() for k, v in state.items()}
        want = quotas(num_games, self.workers)
        for k, n in enumerate(want):
            if n > 0:
                self._conns[k].send(("play", (weights, seed, n, chunk)))
        got = [0] * self.workers
        stats: list[SelfPlayStats] = []
        self.net_seconds = 0.0
        delivered = 0
        t0 = _now()
        while any(g < n for g, n in zip(got, want, strict=True)):
            for k, n in enumerate(want):
                if got[k] >= n:
                    continue
                _, batch, pdns = self._get(k)
                got[k] += batch.num_games
                batch, pdns = renumber_games(batch, pdns, self._next_index)
                self._next_index += batch.num_games
                on_games(batch, pdns)
                delivered += batch.num_games
                if progress is not None:
                    progress(delivered)
        self.worker_compiles = 0
        for k, n in enumerate(want):
            if n > 0:
                _, st, net_s, compiled = self._get(k)
                stats.append(st)
                self.net_seconds += net_s
                self.worker_compiles += compiled
        return merge_stats(stats, _now() - t0)

    def close(self) -> None:
        """Stop the workers."""
        for conn in self._conns:
            try:
                conn.send(None)
                conn.close()
            except OSError:
                pass
        for p in self._procs:
            p.join(timeout=5)
            if p.is_alive():
                p.terminate()
                p.join(timeout=5)
        for q in self._queues:
            q.close()
            q.cancel_join_thread()
        self._conns, self._procs, self._queues = [], [], []


def _now() -> float:
    import time

    return time.perf_counter()
