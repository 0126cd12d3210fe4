"""Typed schema of the training configuration (the Hydra config groups).

``drl-train`` composes ``configs/config.yaml`` with the groups ``variant``, ``model``,
``search``, ``train`` and ``runtime`` on top of :class:`Config`, registered with
Hydra's ConfigStore as ``base_config``, so that a misspelt key or a value of the wrong
type is reported by Hydra when the config is composed. :func:`validate` then checks the
values that types cannot (choices, ranges, the variant string).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

__all__ = ["Config", "EvalCfg", "ModelCfg", "RuntimeCfg", "SearchCfg", "TrainCfg",
           "VariantCfg", "register_configs", "validate"]


@dataclass
class VariantCfg:
    """Which game is learned.

    Attributes:
        name: short name (run folders, logs).
        spec: variant string, ``name[:flag=value,...]`` (see ``drl.rules.Variant.parse``).
        alternate_roles: Give and Take: alternate the Taker's colour game by game so the
            one network learns both roles (ignored for symmetric variants).
        max_plies: self-play games are truncated here (value target 0).
    """

    name: str = "give_and_take"
    spec: str = "give_and_take"
    alternate_roles: bool = True
    max_plies: int = 200


@dataclass
class ModelCfg:
    """Network size (see ``drl.nn.NetConfig``)."""

    name: str = "small"
    channels: int = 32
    blocks: int = 3
    policy_channels: int = 4
    value_channels: int = 2
    value_hidden: int = 64
    aux_heads: bool = True


@dataclass
class SearchCfg:
    """Search settings (see ``drl.search.SearchConfig``)."""

    name: str = "gumbel"
    root_selection: str = "gumbel"
    num_simulations: int = 32
    c_puct: float = 1.5
    fpu_reduction: float = 0.2
    dirichlet_alpha: float = 0.5
    dirichlet_epsilon: float = 0.25
    gumbel_max_considered: int = 16
    gumbel_c_visit: float = 50.0
    gumbel_c_scale: float = 0.1


@dataclass
class EvalCfg:
    """Evaluation of the trained network (with search) against baseline agents.

    Attributes:
        every: evaluate every this many iterations (0 = never during training).
        baselines: agent specs (``random``, ``alphabeta:depth=2``, ``mcts:sims=200``).
        games: games per baseline (a multiple of 4 plays every colour/role pairing
            equally often in Give and Take, of 2 otherwise).
        simulations: search budget of the trained agent.
        max_plies: games longer than this are truncated (half a point each).
        openings: plies of the seeded random openings (0 = start position).
    """

    every: int = 0
    baselines: list[str] = field(default_factory=lambda: ["random", "alphabeta:depth=2"])
    games: int = 8
    simulations: int = 32
    max_plies: int = 200
    openings: int = 2


@dataclass
class TrainCfg:
    """The training loop.

    Attributes:
        name: preset name.
        iterations: self-play + learning rounds.
        games_per_iteration: self-play games finished per iteration.
        games_in_flight: games played side by side (the search batch).
        shard_games: finished games per replay shard (written as soon as they finish).
        temperature, temperature_plies: PUCT move sampling (see ``SelfPlayConfig``).
        full_search_prob, fast_simulations: playout-cap randomisation.
        record_forced: keep single-legal-step positions (value training only).
        steps_per_iteration: learner steps per iteration.
        batch_size: learner minibatch.
        replay_window: positions sampled from (the newest).
        min_replay: positions needed before the learner starts.
        lr, weight_decay, momentum: optimiser (``adamw`` or ``sgd``).
        optimizer: ``adamw`` or ``sgd``.
        value_loss_weight, aux_loss_weight, plies_scale, grad_clip: see ``LossConfig``.
        keep_checkpoints: good checkpoints kept.
        eval: periodic evaluation.
        final_eval: evaluation at the end (printed as a table).
    """

    name: str = "default"
    iterations: int = 16
    games_per_iteration: int = 128
    games_in_flight: int = 128
    shard_games: int = 32
    temperature: float = 1.0
    temperature_plies: int = 16
    full_search_prob: float = 1.0
    fast_simulations: int = 8
    record_forced: bool = True
    steps_per_iteration: int = 200
    batch_size: int = 256
    replay_window: int = 60000
    min_replay: int = 512
    optimizer: str = "adamw"
    lr: float = 2e-3
    weight_decay: float = 1e-4
    momentum: float = 0.9
    value_loss_weight: float = 1.0
    aux_loss_weight: float = 0.1
    plies_scale: float = 100.0
    grad_clip: float = 5.0
    keep_checkpoints: int = 3
    eval: EvalCfg = field(default_factory=lambda: EvalCfg(every=4))
    final_eval: EvalCfg = field(default_factory=lambda: EvalCfg(games=16, simulations=64))


@dataclass
class RuntimeCfg:
    """Where self-play runs.

    Attributes:
        name: ``local`` (this process) or ``ray`` (Ray actors; needs ``pip install ray``).
        actors: Ray self-play actors (each plays ``games_in_flight / actors`` games).
        address: Ray cluster address (None: start a local one).
        cpus_per_actor: CPUs reserved per Ray actor.
    """

    name: str = "local"
    actors: int = 1
    address: Optional[str] = None
    cpus_per_actor: float = 1.0


@dataclass
class Config:
    """The whole training configuration.

    Attributes:
        run_dir: run folder (default ``runs/<variant>-<time>``); re-running with an
            existing one continues it.
        resume: continue the newest run of this variant under ``runs/`` (when
            ``run_dir`` is not given).
        seed: master seed.
        device: ``auto`` (CUDA if available), ``cpu`` or ``cuda``.
        threads: torch CPU threads (0 = the CPUs this process may use).
        progress: show a progress bar.
        tensorboard: write TensorBoard scalars under ``<run_dir>/tb``.
    """

    variant: VariantCfg = field(default_factory=VariantCfg)
    model: ModelCfg = field(default_factory=ModelCfg)
    search: SearchCfg = field(default_factory=SearchCfg)
    train: TrainCfg = field(default_factory=TrainCfg)
    runtime: RuntimeCfg = field(default_factory=RuntimeCfg)
    run_dir: Optional[str] = None
    resume: bool = False
    seed: int = 0
    device: str = "auto"
    threads: int = 0
    progress: bool = True
    tensorboard: bool = True


def register_configs() -> None:
    """Register :class:`Config` with Hydra's ConfigStore as ``base_config``."""
    from hydra.core.config_store import ConfigStore

    ConfigStore.instance().store(name="base_config", node=Config)


def _check(ok: bool, key: str, message: str, value: Any) -> None:
    if not ok:
        raise ValueError(f"config {key}={value!r}: {message}")


def validate(cfg: Config) -> None:
    """Check values that the schema's types cannot.

    Raises:
        ValueError: naming the key, its value and what is wrong.
    """
    from drl.rules import Variant

    try:
        Variant.parse(cfg.variant.spec)
    except ValueError as err:
        raise ValueError(f"config variant.spec={cfg.variant.spec!r}: {err}") from None
    t, s, m, r = cfg.train, cfg.search, cfg.model, cfg.runtime
    _check(s.root_selection in ("puct", "gumbel"), "search.root_selection",
           "must be puct or gumbel", s.root_selection)
    _check(s.num_simulations >= 1, "search.num_simulations", "must be >= 1", s.num_simulations)
    _check(cfg.device in ("auto", "cpu", "cuda"), "device", "must be auto, cpu or cuda",
           cfg.device)
    _check(r.name in ("local", "ray"), "runtime.name", "must be local or ray", r.name)
    _check(r.actors >= 1, "runtime.actors", "must be >= 1", r.actors)
    _check(t.optimizer in ("adamw", "sgd"), "train.optimizer", "must be adamw or sgd",
           t.optimizer)
    for key in ("iterations", "games_per_iteration", "games_in_flight", "shard_games",
                "batch_size", "replay_window", "keep_checkpoints"):
        _check(getattr(t, key) >= 1, f"train.{key}", "must be >= 1", getattr(t, key))
    _check(t.steps_per_iteration >= 0, "train.steps_per_iteration", "must be >= 0",
           t.steps_per_iteration)
    _check(0.0 < t.full_search_prob <= 1.0, "train.full_search_prob", "must lie in (0, 1]",
           t.full_search_prob)
    _check(m.channels >= 1 and m.blocks >= 0, "model.channels/blocks",
           "need channels >= 1 and blocks >= 0", (m.channels, m.blocks))
    _check(cfg.variant.max_plies >= 1, "variant.max_plies", "must be >= 1",
           cfg.variant.max_plies)
    for key, ev in (("train.eval", t.eval), ("train.final_eval", t.final_eval)):
        _check(ev.games >= 0, f"{key}.games", "must be >= 0", ev.games)
        _check(ev.simulations >= 1, f"{key}.simulations", "must be >= 1", ev.simulations)
        _check(ev.every >= 0, f"{key}.every", "must be >= 0", ev.every)
        from drl.agents import spec_name

        for spec in ev.baselines:
            try:
                spec_name(spec)
            except ValueError as err:
                first = str(err).splitlines()[0]
                raise ValueError(f"config {key}.baselines: {first}") from None
