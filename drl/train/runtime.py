"""Where self-play runs: in this process (``local``) or in Ray actors (``ray``).

Both runtimes drive the same :class:`~drl.train.selfplay.SelfPlayActor` code and hand
finished games back in chunks (``on_games``), which the training loop writes to the
replay buffer at once. Either way the games reach ``on_games`` numbered contiguously in
the order they are handed back, from the index set by ``set_next_game_index`` (the Ray
driver numbers each actor's chunk as it arrives, with
:func:`~drl.train.selfplay.renumber_games`), and a call hands back exactly the games it
was asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

from drl.nn import NetworkEvaluator, PolicyValueModel, build, describe
from drl.rules import Variant
from drl.search import SearchConfig
from drl.train.buffer import GameBatch
from drl.train.selfplay import SelfPlayActor, SelfPlayConfig, SelfPlayStats, renumber_games

__all__ = ["LocalRuntime", "RayRuntime", "make_runtime"]

OnGames = Callable[[GameBatch, list[str]], None]


def _merge(stats: Sequence[SelfPlayStats]) -> SelfPlayStats:
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
    return out


class LocalRuntime:
    """Self-play in this process with the learner's own network.

    Attributes:
        net_seconds: time spent in the network's forward pass during the last call.
    """

    def __init__(
        self,
        variants: Sequence[Variant],
        search: SearchConfig,
        config: SelfPlayConfig,
        device: torch.device,
        seed: int = 0,
    ) -> None:
        self.actor = SelfPlayActor(variants, search, config, seed)
        self.device = device
        self.net_seconds = 0.0

    def set_next_game_index(self, index: int) -> None:
        """Number the games handed back from ``index`` on, and continue the role
        alternation as if ``index`` games had been started."""
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
        """Deliver exactly ``num_games`` games played with ``net`` (see
        :meth:`SelfPlayActor.play`)."""
        import numpy as np

        self.actor.rng = np.random.default_rng(seed)
        evaluator = NetworkEvaluator(net, self.device)
        stats = self.actor.play(evaluator, num_games, on_games, chunk, progress)
        self.net_seconds = evaluator.seconds
        return stats

    def close(self) -> None:
        """Nothing to release."""


class RayRuntime:
    """Self-play in ``actors`` Ray actors, each with ``games_in_flight / actors`` games.

    Each call ships the current weights to every actor, then collects finished games
    chunk by chunk as actors deliver them.

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
            ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
        per = max(1, config.games_in_flight // actors)
        sub = SelfPlayConfig(**{**config.__dict__, "games_in_flight": per})
        remote_cls = ray.remote(num_cpus=cpus_per_actor)(_RayActor)
        # Actor k starts its role alternation at k, so that actors do not all play the
        # same role at once.
        self.actors = [
            remote_cls.remote(
                [str(v) for v in variants],
                search.__dict__,
                sub.__dict__,
                describe(net),
                seed + k,
                k,
            )
            for k in range(actors)
        ]
        self.net_seconds = 0.0
        self._next_index = 0

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
        """Deliver exactly ``num_games`` games over all actors, in chunks, numbered in
        the order they arrive."""
        ray = self.ray
        weights = ray.put({k: v.detach().cpu() for k, v in net.state_dict().items()})
        ray.get([a.load.remote(weights, seed, k) for k, a in enumerate(self.actors)])
        left = num_games
        running = {}
        for a in self.actors:
            if left <= 0:
                break
            n = min(chunk, left)
            left -= n
            running[a.play.remote(n)] = a
        stats: list[SelfPlayStats] = []
        done = 0
        while running:
            ready, _ = ray.wait(list(running), num_returns=1)
            actor = running.pop(ready[0])
            batch, pdns, st, net_s = ray.get(ready[0])
            batch, pdns = renumber_games(batch, pdns, self._next_index)
            self._next_index += batch.num_games
            on_games(batch, pdns)
            stats.append(st)
            self.net_seconds += net_s
            done += st.games
            if progress is not None:
                progress(done)
            if left > 0:
                n = min(chunk, left)
                left -= n
                running[actor.play.remote(n)] = actor
        return _merge(stats)

    def close(self) -> None:
        """Stop the actors."""
        for a in self.actors:
            self.ray.kill(a)


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
    ) -> None:
        torch.set_num_threads(1)
        self.net = build(network["arch"], **network["net_config"]).eval()
        self.actor = SelfPlayActor(
            [Variant.parse(v) for v in variants],
            SearchConfig(**search),
            SelfPlayConfig(**config),
            seed,
        )
        self.actor.games_started = first_variant

    def load(self, weights: dict, seed: Any, rank: int) -> None:
        """New weights, and the call's seed extended by the actor's rank (the games'
        numbers are the driver's; see :meth:`RayRuntime.play`)."""
        import numpy as np

        self.net.load_state_dict(weights)
        self.actor.rng = np.random.default_rng([*np.atleast_1d(seed).tolist(), rank])

    def play(self, n: int) -> tuple[GameBatch, list[str], SelfPlayStats, float]:
        got: list[tuple[GameBatch, list[str]]] = []
        ev = NetworkEvaluator(self.net, "cpu")
        st = self.actor.play(ev, n, lambda b, p: got.append((b, p)), chunk=n)
        return (
            GameBatch.concat([g[0] for g in got]),
            [p for g in got for p in g[1]],
            st,
            ev.seconds,
        )


def make_runtime(
    name: str,
    variants: Sequence[Variant],
    search: SearchConfig,
    config: SelfPlayConfig,
    net: PolicyValueModel,
    device: torch.device,
    seed: int,
    actors: int = 1,
    address: str | None = None,
    cpus_per_actor: float = 1.0,
) -> LocalRuntime | RayRuntime:
    """Build the runtime named ``local`` or ``ray``.

    Raises:
        ValueError: for another name.
        RuntimeError: ``ray`` without Ray installed.
    """
    if name == "local":
        return LocalRuntime(variants, search, config, device, seed)
    if name == "ray":
        return RayRuntime(variants, search, config, net, actors, address, cpus_per_actor, seed)
    raise ValueError(f"runtime must be local or ray, got {name!r}")
