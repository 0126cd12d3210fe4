"""The training loop's own settings, and :class:`TrainSettings`, all the loop reads.

Plain dataclasses, each checking its own ranges in ``__post_init__``; nothing here imports
Hydra or the config schema (:mod:`drl.train.config.schema` copies these fields).
"""

from __future__ import annotations

import typing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from drl._checks import INT32_MAX, INT64_MAX, check_choice, check_range
from drl.rules import Variant
from drl.search import SearchConfig
from drl.train.learner import LossConfig
from drl.train.minimax import ALGOS, MinimaxConfig
from drl.train.selfplay import SelfPlayConfig

__all__ = [
    "ALGOS",
    "AlgoCfg",
    "DEVICES",
    "Device",
    "LoopCfg",
    "OPTIMIZERS",
    "Optimizer",
    "RUNTIMES",
    "RuntimeCfg",
    "RuntimeName",
    "TrainEvalCfg",
    "TrainSettings",
]

Optimizer = Literal["adamw", "sgd"]
Device = Literal["auto", "cpu", "cuda"]
RuntimeName = Literal["local", "ray"]
OPTIMIZERS: tuple[str, ...] = typing.get_args(Optimizer)
DEVICES: tuple[str, ...] = typing.get_args(Device)
RUNTIMES: tuple[str, ...] = typing.get_args(RuntimeName)
if TYPE_CHECKING:
    _Device: typing.TypeAlias = Device
    _RuntimeName: typing.TypeAlias = RuntimeName
else:
    # OmegaConf reads the annotations of Config and RuntimeCfg itself and knows no
    # Literal: there these fields are str, and __post_init__ checks the choice.
    _Device = _RuntimeName = str


@dataclass
class TrainEvalCfg:
    """Evaluation of the trained network (with search) against baseline agents.

    These are ``train.eval`` and ``train.final_eval``; ``drl-eval``'s settings are
    ``drl.cli.eval.EvalConfig``.

    Attributes:
        every: evaluate every this many iterations (0 = never during training).
        baselines: agent specs (``random``, ``alphabeta:depth=2``, ``mcts:sims=200``).
        games: games per baseline (a multiple of 4 plays every colour/role pairing
            equally often in Give and Take, of 2 otherwise).
        simulations: MCTS simulations of the trained agent with ``algo=az`` (minimax
            self-play is rated as ``alphabeta:ckpt=<checkpoint>,depth=<minimax.depth>``).
        max_plies: games longer than this are truncated (half a point each).
        openings: plies of the distinct seeded random openings, one per two games (0 =
            start position; 4 plies give every preset at least 400 distinct ones).

    Raises:
        ValueError: ``name=value: must ...`` for a count out of its range: ``every``,
            ``games`` in [0, 2**31 - 1], ``simulations``, ``max_plies`` in
            [1, 2**31 - 1], ``openings`` in [0, 1000].
    """

    every: int = 0
    baselines: list[str] = field(default_factory=lambda: ["random", "alphabeta:depth=2"])
    games: int = 8
    simulations: int = 32
    max_plies: int = 200
    openings: int = 4

    def __post_init__(self) -> None:
        check_range("every", self.every, 0, INT32_MAX)
        check_range("games", self.games, 0, INT32_MAX)
        check_range("simulations", self.simulations, 1, INT32_MAX)
        check_range("max_plies", self.max_plies, 1, INT32_MAX)
        check_range("openings", self.openings, 0, 1000)


@dataclass
class LoopCfg:
    """The training loop's own settings (the ``train`` group holds these and more).

    Attributes:
        iterations: self-play + learning rounds.
        games_per_iteration: self-play games finished per iteration.
        shard_games: finished games per replay shard (written as soon as they finish).
        steps_per_iteration: learner steps per iteration.
        batch_size: learner minibatch.
        replay_window: positions sampled from (the newest).
        min_replay: positions needed before the learner starts.
        optimizer: ``adamw`` or ``sgd``.
        lr: the optimiser's learning rate.
        weight_decay: the optimiser's weight decay.
        momentum: ``sgd`` only (Nesterov momentum).
        keep_checkpoints: good checkpoints kept.
        max_minutes: training wall-time budget in minutes (0 = none): the run ends, as
            after its last iteration, once an iteration finishes at or past it; the time
            of earlier sessions of the run counts. The default (12) keeps ``make run``
            within 15 minutes on a slow machine; set 0 for runs that must be the same
            number of iterations everywhere.
        scale_to_budget: with a budget shorter than the default one (0 <
            ``max_minutes`` < 12), an iteration's games and learner steps shrink in
            proportion (``drl.train.config.budget``), so that a run of a few minutes
            gives a learning curve of several points instead of one 512-game
            iteration; false keeps them as set.
        eval: periodic evaluation.
        final_eval: evaluation at the end (printed as a table).

    Raises:
        ValueError: ``name=value: must ...`` for a value out of its range: the counts
            ``iterations``, ``games_per_iteration``, ``shard_games``, ``batch_size``,
            ``keep_checkpoints`` in [1, 2**31 - 1], ``steps_per_iteration`` in
            [0, 2**31 - 1], ``replay_window`` in [1, 2**63 - 1], ``min_replay`` >= 0;
            ``lr`` > 0; ``weight_decay``, ``max_minutes`` >= 0; ``momentum`` in [0, 1);
            every float finite; ``optimizer`` one of :data:`OPTIMIZERS`. What depends on
            two of them (``min_replay <= replay_window``, ``lr * weight_decay`` with
            ``adamw``, ``momentum`` with ``sgd``) is checked by
            :func:`~drl.train.config.train_settings` (:mod:`drl.train.config.checks`).
    """

    iterations: int = 1000
    games_per_iteration: int = 512
    shard_games: int = 128
    steps_per_iteration: int = 400
    batch_size: int = 256
    replay_window: int = 200000
    min_replay: int = 512
    optimizer: Optimizer = "adamw"
    lr: float = 2e-3
    weight_decay: float = 1e-4
    momentum: float = 0.9
    keep_checkpoints: int = 3
    max_minutes: float = 12.0
    scale_to_budget: bool = True
    eval: TrainEvalCfg = field(default_factory=lambda: TrainEvalCfg(every=10))
    final_eval: TrainEvalCfg = field(
        default_factory=lambda: TrainEvalCfg(
            baselines=["random", "alphabeta:depth=4"], games=16, simulations=800
        )
    )

    def __post_init__(self) -> None:
        for name in (
            "iterations",
            "games_per_iteration",
            "shard_games",
            "batch_size",
            "keep_checkpoints",
        ):
            check_range(name, getattr(self, name), 1, INT32_MAX)
        check_range("steps_per_iteration", self.steps_per_iteration, 0, INT32_MAX)
        check_range("replay_window", self.replay_window, 1, INT64_MAX)
        check_range("min_replay", self.min_replay, 0)  # <= replay_window: checks.py
        check_choice("optimizer", self.optimizer, OPTIMIZERS)
        check_range("lr", self.lr, 0, open_low=True)
        check_range("weight_decay", self.weight_decay, 0)
        check_range("momentum", self.momentum, 0, 1, open_high=True)
        check_range("max_minutes", self.max_minutes, 0)


@dataclass
class AlgoCfg:
    """Which self-play algorithm makes the training games (the ``algo`` group).

    Attributes:
        name: ``az`` (AlphaZero: games played by MCTS, the network learns its visit
            counts and values) or ``minimax`` (games played by alpha-beta with the
            network's value at the leaves, the network learns the search's values: the
            ``minimax`` keys, ``drl.train.minimax``).

    Raises:
        ValueError: ``name=value: must ...``: ``name`` not one of :data:`ALGOS`.
    """

    name: str = "az"

    def __post_init__(self) -> None:
        check_choice("name", self.name, ALGOS)


@dataclass
class RuntimeCfg:
    """Where self-play runs.

    Attributes:
        name: ``local`` (this process) or ``ray`` (Ray actors; needs ``pip install ray``).
        actors: Ray self-play actors (each plays ``games_in_flight / actors`` games).
        address: Ray cluster address (None: start a local one).
        cpus_per_actor: CPUs reserved per Ray actor.

    Raises:
        ValueError: ``name=value: must ...``: ``name`` not one of :data:`RUNTIMES`,
            ``actors`` outside [1, 1024], ``cpus_per_actor`` outside (0, 1024].
    """

    name: _RuntimeName = "local"
    actors: int = 1
    address: str | None = None
    cpus_per_actor: float = 1.0

    def __post_init__(self) -> None:
        check_choice("name", self.name, RUNTIMES)
        check_range("actors", self.actors, 1, 1024)
        check_range("cpus_per_actor", self.cpus_per_actor, 0, 1024, open_low=True)


@dataclass(frozen=True)
class TrainSettings:
    """The training configuration as the code's objects, converted once from a :class:`Config`.

    :func:`~drl.train.config.train_settings` converts it (every dataclass here is built
    once, there) and checks it; nothing below ``drl.train.loop.train`` reads the config
    itself. The pieces are copies, so changing the config afterwards changes nothing
    here.

    Attributes:
        variant_spec: ``variant.spec``, as checkpoints record it.
        variant_name: ``variant.name`` (the progress bar's label).
        variant: ``variant.spec`` parsed (the evaluations play it).
        variants: the variants self-play alternates between
            (:func:`~drl.train.config.variants_of`).
        search: the self-play search (``search``).
        selfplay: the self-play settings (``train`` and ``variant.max_plies``).
        loss: the learner's loss (``train``).
        arch: the network's architecture (``model.arch``).
        net_fields: the keyword arguments of :func:`drl.nn.build` after ``arch``: the
            ``model`` fields and the input fields of the board size's encoding.
        net_config: the architecture's config object made of ``net_fields``
            (:func:`drl.nn.make_config`; :func:`drl.nn.build_from` builds it).
        model: the ``model`` node as a plain dict (as ``config.yaml`` records it).
        loop: the loop's own numbers, optimiser and evaluations (``train``).
        runtime: where self-play runs (``runtime``).
        seed: the master seed.
        device: ``auto``, ``cpu`` or ``cuda``.
        threads: CPU cores for self-play worker processes and torch (0: every CPU this
            process may use).
        progress: show a progress bar.
        tensorboard: write TensorBoard scalars.
        config_yaml: the resolved configuration as YAML (``config.yaml``, checkpoints).
        algo: the self-play algorithm (``algo.name``: ``az`` or ``minimax``).
        minimax: the settings of the ``minimax`` keys, checked whatever ``algo`` is;
            self-play reads them only with ``algo=minimax`` (:attr:`minimax_selfplay`).
    """

    variant_spec: str
    variant_name: str
    variant: Variant
    variants: tuple[Variant, ...]
    search: SearchConfig
    selfplay: SelfPlayConfig
    loss: LossConfig
    arch: str
    net_fields: dict[str, Any]
    net_config: Any
    model: dict[str, Any]
    loop: LoopCfg
    runtime: RuntimeCfg
    seed: int
    device: str
    threads: int
    progress: bool
    tensorboard: bool
    config_yaml: str
    algo: str = "az"
    minimax: MinimaxConfig = field(default_factory=MinimaxConfig)

    @property
    def minimax_selfplay(self) -> MinimaxConfig | None:
        """The minimax settings self-play plays with: None for AlphaZero's (``algo=az``)."""
        return self.minimax if self.algo == "minimax" else None

    @property
    def board_size(self) -> int:
        """The board's side (8 or 10)."""
        return self.variants[0].board_size
