"""Where self-play runs: on this machine's cores (``local``) or in Ray actors (``ray``).

The local runtime plays on ``cores`` cores: with one, in this process; with more, and a
network evaluated inside the compiled search (the ``sparse`` one, on the CPU), in one
worker process per core (:class:`~drl.train.workers.WorkerPool`); a network called with
batches of planes (the residual ones) is run in this process on ``cores`` torch threads.
Each Ray actor uses the cores it reserves (``cpus_per_actor``) the same way: its compiled
search shares its trees over that many threads.

Both runtimes drive the same :class:`~drl.train.selfplay.SelfPlayActor` code (or its
minimax twin, :class:`~drl.train.minimax.MinimaxActor`, made by
:func:`~drl.train.minimax.make_actor`) and hand finished games back in chunks
(``on_games``), which the training loop writes to the replay buffer at once. Either way
the games reach ``on_games`` numbered contiguously in the order they are handed back,
from the index set by ``set_next_game_index`` (the Ray driver numbers each actor's chunk
as it arrives, with :func:`~drl.train.selfplay.renumber_games`), and a call hands back
exactly the games it was asked for.

A Ray actor lost mid-call (its node stopped, its process killed) loses no finished game:
the chunks it delivered are kept, the chunk it was playing is played again by another
actor, and a replacement actor is started where the cluster has room.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch

from drl.nn import NetworkEvaluator, PolicyValueModel, build, describe
from drl.rules import Variant
from drl.search import SearchConfig
from drl.search.inline import set_search_threads
from drl.train.buffer import GameBatch
from drl.train.minimax import MinimaxConfig, make_actor
from drl.train.selfplay import SelfPlayConfig, SelfPlayStats, renumber_games
from drl.train.workers import WorkerPool, merge_stats

if TYPE_CHECKING:
    from drl.train.config import RuntimeCfg

__all__ = ["ActorReport", "LocalRuntime", "RayRuntime", "make_runtime"]

log = logging.getLogger(__name__)

LOOPBACK = "127.0.0.1"
REPLACEMENT_TIMEOUT_S = 60.0

OnGames = Callable[[GameBatch, list[str]], None]


class LocalRuntime:
    """Self-play on ``cores`` cores of this machine with the learner's own network.

    Args:
        variants: the variants games are played under, in turn.
        search: the search settings.
        config: the self-play settings.
        device: where a network called with batches of planes is evaluated.
        seed: seeds the in-process actor (each call reseeds it).
        cores: cores to play on (>= 1).
        net: the network; with ``cores > 1`` and a compiled forward pass on the CPU, the
            games are played by ``cores`` worker processes built for its architecture.
        minimax: minimax self-play's settings, None for AlphaZero's.

    Attributes:
        net_seconds: time spent in the network's forward pass during the last call.
        workers: the worker processes playing (1: this process).
    """

    def __init__(
        self,
        variants: Sequence[Variant],
        search: SearchConfig,
        config: SelfPlayConfig,
        device: torch.device,
        seed: int = 0,
        cores: int = 1,
        net: PolicyValueModel | None = None,
        minimax: MinimaxConfig | None = None,
    ) -> None:
        self.device = torch.device(device)
        self.net_seconds = 0.0
        self.pool: WorkerPool | None = None
        compiled = net is not None and hasattr(net, "compiled_weights")
        if cores > 1 and compiled and self.device.type == "cpu":
            assert net is not None
            self.pool = WorkerPool(variants, search, config, describe(net), cores, minimax)
        else:
            self.actor = make_actor(variants, search, config, seed, minimax)
        self.workers = cores if self.pool is not None else 1
        self.cores = max(1, cores)
        # The compiled search of this process (self-play here, the training's evaluation
        # games) keeps to the cores given.
        set_search_threads(self.cores)

    def set_next_game_index(self, index: int) -> None:
        """Number the games handed back from ``index`` on.

        The role alternation continues as if ``index`` games had been started (in a worker
        ``k``, ``index + k``).
        """
        if self.pool is not None:
            self.pool.set_next_game_index(index)
            return
        self.actor.next_game_index = index
        self.actor.games_started = index

    def play(
        self,
        net: PolicyValueModel,
        num_games: int,
        seed: Any,
        on_games: OnGames,
        chunk: int,
        progress: Callable[[int], None] | None = None,
    ) -> SelfPlayStats:
        """Deliver exactly ``num_games`` games played with ``net``.

        See :meth:`SelfPlayActor.play` and :meth:`WorkerPool.play`.
        """
        import numpy as np

        if self.pool is not None:
            st = self.pool.play(net.state_dict(), num_games, seed, on_games, chunk, progress)
            self.net_seconds = self.pool.net_seconds
            return st
        set_search_threads(self.cores)
        self.actor.rng = np.random.default_rng(seed)
        evaluator = NetworkEvaluator(net, self.device)
        stats = self.actor.play(evaluator, num_games, on_games, chunk, progress)
        self.net_seconds = evaluator.seconds
        return stats

    def close(self) -> None:
        """Stop the worker processes, if any."""
        if self.pool is not None:
            self.pool.close()


@dataclass(frozen=True)
class ActorReport:
    """What one Ray actor's chunk was played with.

    Attributes:
        actor: the actor's number (a replacement gets a new one).
        node: the Ray node id it ran on.
        weights: checksum of the weights it played with (see :func:`weights_checksum`).
        games: games in the chunk.
        cores: threads its compiled search (and torch) ran on.
    """

    actor: int
    node: str
    weights: str
    games: int
    cores: int = 1


def weights_checksum(state: dict[str, torch.Tensor]) -> str:
    """A short sha256 of a state dict's names and values."""
    h = hashlib.sha256()
    for k in sorted(state):
        h.update(k.encode())
        h.update(state[k].detach().cpu().contiguous().numpy().tobytes())
    return h.hexdigest()[:16]


def _is_loopback(address: str | None) -> bool:
    if address is None:
        return True
    host = address.split("://")[-1].rsplit(":", 1)[0]
    return host in ("127.0.0.1", "localhost")


@contextlib.contextmanager
def _signal_handlers_kept() -> Iterator[None]:
    """Put back the SIGINT and SIGTERM handlers found on entry.

    ``ray.init`` installs a SIGTERM handler of its own in the driver and leaves it after
    ``ray.shutdown()``; the caller's handling of Ctrl-C and SIGTERM (drl-train's interrupt
    path, a test's guard) must survive starting Ray. Only the main thread can set
    handlers; elsewhere nothing is changed.
    """
    main = threading.current_thread() is threading.main_thread()
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        if main:
            for sig, handler in saved.items():
                if handler is not None and signal.getsignal(sig) is not handler:
                    signal.signal(sig, handler)


class RayRuntime:
    """Self-play in ``actors`` Ray actors, each with ``games_in_flight / actors`` games.

    Each call ships the current weights to every actor, then collects finished games
    chunk by chunk as actors deliver them. Actors are spread over the cluster's nodes.
    A local cluster (no ``address``) and a cluster at a loopback address are used on
    127.0.0.1 only.

    Attributes:
        reports: one :class:`ActorReport` per chunk of the last call.
        weights: checksum of the weights shipped in the last call.

    Raises:
        RuntimeError: if Ray is not installed (``pip install -e ".[ray]"``).
    """

    def __init__(
        self,
        variants: Sequence[Variant],
        search: SearchConfig,
        config: SelfPlayConfig,
        net: PolicyValueModel,
        actors: int,
        address: str | None = None,
        cpus_per_actor: float = 1.0,
        seed: int = 0,
        minimax: MinimaxConfig | None = None,
    ) -> None:
        try:
            import ray
        except ImportError:
            raise RuntimeError(
                "runtime=ray needs the 'ray' package, which is not installed; "
                'install it with pip install -e ".[ray]" in the drl checkout, or use runtime=local'
            ) from None
        self.ray = ray
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {}
            if _is_loopback(address):
                # Ray swaps 127.0.0.1 for the machine's outward address unless told
                # that this is a one-machine cluster.
                from ray._private import ray_constants

                ray_constants.ENABLE_RAY_CLUSTER = False
                kwargs["_node_ip_address"] = LOOPBACK
            if address is None:
                kwargs["include_dashboard"] = False
            with _signal_handlers_kept():
                ray.init(address=address, ignore_reinit_error=True, log_to_driver=False, **kwargs)
        per = max(1, config.games_in_flight // actors)
        sub = SelfPlayConfig(**{**config.__dict__, "games_in_flight": per})
        self._remote_cls = ray.remote(num_cpus=cpus_per_actor)(_RayActor).options(
            scheduling_strategy="SPREAD"
        )
        self._cpus = cpus_per_actor
        self._cores = max(1, int(cpus_per_actor))  # threads of each actor's search
        self._args = ([str(v) for v in variants], search.__dict__, sub.__dict__, describe(net))
        self._minimax = None if minimax is None else dict(minimax.__dict__)
        self._seed = seed
        self._started = 0
        self.actors: dict[int, Any] = {}
        self._wanted = actors
        for _ in range(actors):
            self._start_actor()
        self.net_seconds = 0.0
        self.reports: list[ActorReport] = []
        self.weights = ""
        self._next_index = 0

    def _start_actor(self) -> int:
        # Actor k starts its role alternation at k, so that actors do not all play the
        # same role at once.
        k = self._started
        self._started += 1
        self.actors[k] = self._remote_cls.remote(
            *self._args, self._seed + k, k, self._cores, self._minimax
        )
        return k

    def _lost(self, k: int, err: Exception) -> None:
        actor = self.actors.pop(k, None)
        log.warning("Ray self-play actor %d lost (%s); its games are played again", k, err)
        if actor is not None:
            try:
                self.ray.kill(actor)
            except Exception:  # noqa: BLE001 - it is gone already
                pass

    def _restore(self, weights: Any, seed: Any) -> list[int]:
        """Start replacements for lost actors while the cluster has CPUs free.

        Returns the numbers of those that loaded ``weights`` in time.
        """
        from ray.exceptions import GetTimeoutError, RayActorError

        started = []
        while (
            len(self.actors) < self._wanted
            and self.ray.available_resources().get("CPU", 0) >= self._cpus
        ):
            k = self._start_actor()
            try:
                self.ray.get(
                    self.actors[k].load.remote(weights, seed, k, self.weights),
                    timeout=REPLACEMENT_TIMEOUT_S,
                )
            except (GetTimeoutError, RayActorError) as err:
                self._lost(k, err)
                break
            log.info("Ray self-play actor %d started in place of a lost one", k)
            started.append(k)
        return started

    @property
    def workers(self) -> int:
        """The actors playing."""
        return len(self.actors)

    def set_next_game_index(self, index: int) -> None:
        """Number the games handed back from ``index`` on, in the order they arrive."""
        self._next_index = index

    def play(
        self,
        net: PolicyValueModel,
        num_games: int,
        seed: Any,
        on_games: OnGames,
        chunk: int,
        progress: Callable[[int], None] | None = None,
    ) -> SelfPlayStats:
        """Deliver exactly ``num_games`` games over all actors, in chunks.

        The games are numbered in the order they arrive.

        Raises:
            RuntimeError: if every actor is lost.
        """
        ray = self.ray
        from ray.exceptions import RayActorError

        state = {k: v.detach().cpu() for k, v in net.state_dict().items()}
        self.weights = weights_checksum(state)
        self.reports = []
        weights = ray.put(state)
        loads = {k: a.load.remote(weights, seed, k, self.weights) for k, a in self.actors.items()}
        for k, ref in loads.items():
            try:
                ray.get(ref)
            except RayActorError as err:
                self._lost(k, err)
        self._restore(weights, seed)
        left = num_games
        running: dict[Any, tuple[int, int]] = {}  # task -> (actor, games)
        idle = list(self.actors)
        stats: list[SelfPlayStats] = []
        done = 0
        while left > 0 or running:
            while left > 0 and idle:
                k = idle.pop(0)
                n = min(chunk, left)
                left -= n
                running[self.actors[k].play.remote(n)] = (k, n)
            if not running:
                raise RuntimeError("every Ray self-play actor was lost")
            ready, _ = ray.wait(list(running), num_returns=1)
            k, n = running.pop(ready[0])
            try:
                batch, pdns, st, net_s, node, used, cores = ray.get(ready[0])
            except RayActorError as err:
                self._lost(k, err)
                left += n  # nothing of the chunk was delivered: play it again
                idle += self._restore(weights, seed)
                continue
            batch, pdns = renumber_games(batch, pdns, self._next_index)
            self._next_index += batch.num_games
            on_games(batch, pdns)
            self.reports.append(ActorReport(k, node, used, batch.num_games, cores))
            stats.append(st)
            self.net_seconds += net_s
            done += st.games
            if progress is not None:
                progress(done)
            idle.append(k)
        return merge_stats(stats)

    def close(self) -> None:
        """Stop the actors."""
        for a in self.actors.values():
            try:
                self.ray.kill(a)
            except Exception:  # noqa: BLE001 - a lost actor
                pass


class _RayActor:
    """One Ray self-play actor (runs in its own process)."""

    def __init__(
        self,
        variants: list[str],
        search: dict,
        config: dict,
        network: dict,
        seed: int,
        first_variant: int = 0,
        cores: int = 1,
        minimax: dict | None = None,
    ) -> None:
        torch.set_num_threads(cores)
        self.cores = set_search_threads(cores)
        self.net = build(network["arch"], **network["net_config"]).eval()
        self.actor = make_actor(
            [Variant.parse(v) for v in variants],
            SearchConfig(**search),
            SelfPlayConfig(**config),
            seed,
            minimax,
        )
        self.actor.games_started = first_variant

    def load(self, weights: dict, seed: Any, rank: int, checksum: str = "") -> None:
        """Load new weights, and the call's seed extended by the actor's rank.

        The games' numbers are the driver's (see :meth:`RayRuntime.play`).
        """
        import numpy as np

        self.net.load_state_dict(weights)
        self.checksum = weights_checksum(self.net.state_dict()) if checksum else ""
        self.actor.rng = np.random.default_rng([*np.atleast_1d(seed).tolist(), rank])

    def play(self, n: int) -> tuple[GameBatch, list[str], SelfPlayStats, float, str, str, int]:
        """Play ``n`` games; with them the node they ran on and the checksum of the weights.

        The checksum is that of the weights loaded.
        """
        import ray

        got: list[tuple[GameBatch, list[str]]] = []
        ev = NetworkEvaluator(self.net, "cpu")
        set_search_threads(self.cores)  # a setting of the calling thread
        st = self.actor.play(ev, n, lambda b, p: got.append((b, p)), chunk=n)
        return (
            GameBatch.concat([g[0] for g in got]),
            [p for g in got for p in g[1]],
            st,
            ev.seconds,
            ray.get_runtime_context().get_node_id(),
            self.checksum,
            self.cores,
        )


def make_runtime(
    runtime: RuntimeCfg,
    variants: Sequence[Variant],
    search: SearchConfig,
    config: SelfPlayConfig,
    net: PolicyValueModel,
    device: torch.device,
    seed: int,
    cores: int = 1,
    minimax: MinimaxConfig | None = None,
) -> LocalRuntime | RayRuntime:
    """Build the runtime ``runtime.name`` names.

    Args:
        runtime: the ``runtime`` settings: ``name`` (``local`` or ``ray``) and, for Ray,
            ``actors``, ``address`` and ``cpus_per_actor``.
        variants: the variants self-play alternates between (both role assignments in
            Give and Take).
        search: the search settings.
        config: the self-play settings.
        net: the network (Ray actors get a copy of its weights).
        device: where the local runtime evaluates the network.
        seed: the self-play seed.
        cores: the local runtime's cores (each Ray actor uses ``cpus_per_actor``).
        minimax: minimax self-play's settings (``algo=minimax``), None for AlphaZero's.

    Raises:
        ValueError: for another name.
        RuntimeError: ``ray`` without Ray installed.
    """
    if runtime.name == "local":
        return LocalRuntime(variants, search, config, device, seed, cores, net, minimax)
    if runtime.name == "ray":
        return RayRuntime(
            variants,
            search,
            config,
            net,
            runtime.actors,
            runtime.address,
            runtime.cpus_per_actor,
            seed,
            minimax,
        )
    raise ValueError(f"runtime must be local or ray, got {runtime.name!r}")
