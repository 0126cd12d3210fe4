"""Typed schema of the training configuration (the Hydra config groups).

It is built from the dataclasses the code uses.

``drl-train`` composes ``configs/config.yaml`` with the groups ``variant``, ``model``,
``search``, ``train`` and ``runtime`` on top of :class:`Config`, registered with
Hydra's ConfigStore as ``base_config``, so that a misspelt key or a value of the wrong
type is reported by Hydra when the config is composed. Each setting's range (or choices)
is checked once, by the dataclass that holds it, in its ``__post_init__``;
:func:`validate` builds those dataclasses from the config, reports their errors under
the config key (``config search.c_puct=-1.0: must be >= 0``), and checks what spans
several keys (the variant string, the learning settings together, the evaluation's
openings and baselines, the memory the run needs).

Each default lives in one place, the dataclass the code uses; the schema of a group is
derived from it field by field (:func:`schema`) and the YAML files in ``configs/`` state
only what differs:

- ``search``: a ``name`` and the fields of :class:`drl.search.SearchConfig`;
- ``model``: ``name``, ``arch`` and the size fields of the architecture's config class
  (``resnet``: :class:`drl.nn.NetConfig`); each registered architecture is also a
  ``model`` option of its own (``model=resnet`` is the code's defaults), and the option
  files extend it (``defaults: [resnet]``);
- ``train``: the loop's own settings, the fields of
  :class:`drl.train.selfplay.SelfPlayConfig` (except ``max_plies``, which is
  ``variant.max_plies``) and those of :class:`drl.train.learner.LossConfig`;
- ``variant``: :class:`drl._configs.VariantCfg` (shared with ``drl-eval``).

:func:`search_config`, :func:`selfplay_config`, :func:`loss_config` and
:func:`network_config` turn a config into the code's objects, passing every field by name;
:func:`train_settings` turns a whole config into them at once (:class:`TrainSettings`),
which is all the training loop reads.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, make_dataclass
from typing import TYPE_CHECKING, Any, Literal, Optional, Union

from drl._checks import INT32_MAX, INT64_MAX, check_choice, check_range
from drl._configs import VariantCfg
from drl._system import available_memory
from drl._system import format_bytes as _fmt_bytes
from drl.nn import DEFAULT_ARCH, INPUT_FIELDS, arch_config_class, make_config, registered_archs
from drl.rules import Variant
from drl.search import SearchConfig
from drl.train.learner import LossConfig
from drl.train.selfplay import SelfPlayConfig

__all__ = [
    "Config",
    "DEVICES",
    "Device",
    "LoopCfg",
    "ModelCfg",
    "ModelNode",
    "OPTIMIZERS",
    "Optimizer",
    "RUNTIMES",
    "RuntimeCfg",
    "RuntimeName",
    "SearchCfg",
    "TrainCfg",
    "TrainEvalCfg",
    "TrainSettings",
    "VariantCfg",
    "MEMORY_KEYS",
    "available_memory",
    "check_memory",
    "config_error",
    "memory_estimate",
    "loss_config",
    "model_node",
    "network_config",
    "register_configs",
    "schema",
    "search_config",
    "selfplay_config",
    "train_settings",
    "validate",
    "variants_of",
]

_PRIMITIVES = (int, float, bool, str)


def _hydra_type(tp: Any) -> Any:
    """The annotation OmegaConf gets for a code field of type ``tp``.

    ``Any`` when it has no equivalent; the code's own dataclass checks the value on
    conversion.
    """
    if tp in _PRIMITIVES or tp is Any or dataclasses.is_dataclass(tp):
        return tp
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1 and len(rest) < len(args) and _hydra_type(rest[0]) is not Any:
            # typing.Optional, not ``X | None``: OmegaConf's documented form of an optional
            # field, and a value computed at run time (not an annotation).
            return Optional[_hydra_type(rest[0])]  # noqa: UP045
    if (
        origin is typing.Literal
        and len({type(a) for a in args}) == 1
        and type(args[0]) in _PRIMITIVES
    ):
        return type(args[0])
    if origin is list and len(args) == 1 and args[0] in _PRIMITIVES:
        return types.GenericAlias(list, (args[0],))  # list[args[0]], built at run time
    return Any


def schema(
    cls_name: str,
    *sources: type,
    first: tuple = (),
    drop: tuple[str, ...] = (),
    bases: tuple[type, ...] = (),
    doc: str | None = None,
) -> type:
    """A Hydra schema dataclass with the fields (types and defaults) of ``sources``.

    Args:
        cls_name: name of the new class (shown in Hydra's errors).
        *sources: dataclasses whose ``init`` fields are copied, in order.
        first: ``(name, type, dataclasses.field(...))`` specs placed before them.
        drop: field names not copied.
        bases: base classes of the new dataclass.
        doc: its docstring.

    Returns:
        A mutable dataclass (OmegaConf cannot override fields of a frozen one). A copied
        field without a default is ``MISSING`` (``???``): Hydra asks for it.

    Raises:
        TypeError: if two sources (or ``first``) define the same field.
    """
    from omegaconf import MISSING

    specs = list(first)
    seen = {s[0] for s in specs}
    for src in sources:
        hints = typing.get_type_hints(src)
        for f in dataclasses.fields(src):
            if not f.init or f.name in drop:
                continue
            if f.name in seen:
                raise TypeError(f"{cls_name}: field {f.name!r} of {src.__name__} is defined twice")
            seen.add(f.name)
            if f.default is not dataclasses.MISSING:
                default = field(default=f.default)
            elif f.default_factory is not dataclasses.MISSING:
                default = field(default_factory=f.default_factory)
            else:
                default = field(default=MISSING)
            specs.append((f.name, _hydra_type(hints[f.name]), default))
    cls = make_dataclass(
        cls_name, specs, bases=bases, namespace={"__module__": __name__, "__doc__": doc}
    )
    return cls


def _named(default: str) -> tuple:
    return (("name", str, field(default=default)),)


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
        simulations: search budget of the trained agent.
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
            proportion (``drl.train.config_budget``), so that a run of a few minutes
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
            ``adamw``, ``momentum`` with ``sgd``) is checked by :func:`validate`.
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
        check_range("min_replay", self.min_replay, 0)  # <= replay_window: validate
        check_choice("optimizer", self.optimizer, OPTIMIZERS)
        check_range("lr", self.lr, 0, open_low=True)
        check_range("weight_decay", self.weight_decay, 0)
        check_range("momentum", self.momentum, 0, 1, open_high=True)
        check_range("max_minutes", self.max_minutes, 0)


@dataclass
class ModelNode:
    """The ``model`` group: a preset ``name`` and the architecture ``arch``.

    The fields of each architecture's config come with its node (:func:`model_node`).

    A bare ``ModelNode`` stands for the architecture with all its defaults.
    """

    name: str = DEFAULT_ARCH
    arch: str = DEFAULT_ARCH


_MODEL_NODES: dict[tuple[str, type], type] = {}


def model_node(arch: str) -> type:
    """The ``model`` schema of architecture ``arch``.

    Its fields are ``name``, ``arch`` and the architecture's config class's fields except
    :data:`drl.nn.INPUT_FIELDS` (which follow from the variant).

    Raises:
        ValueError: if ``arch`` is not registered.
    """
    cls = arch_config_class(arch)
    key = (arch, cls)
    if key not in _MODEL_NODES:
        name = "ModelCfg" if arch == DEFAULT_ARCH else f"ModelCfg_{arch}"
        _MODEL_NODES[key] = schema(
            name,
            cls,
            first=(*_named(arch), ("arch", str, field(default=arch))),
            drop=INPUT_FIELDS,
            bases=(ModelNode,),
            doc=f"``model`` with arch {arch!r}: the fields of ``{cls.__qualname__}``.",
        )
    return _MODEL_NODES[key]


ModelCfg = model_node(DEFAULT_ARCH)
if TYPE_CHECKING:
    # What type checkers see of the two schemas built below at run time: the fields of the
    # code's dataclasses they copy, plus ``name``.
    class SearchCfg(SearchConfig):
        """The ``search`` group: a preset ``name`` and the fields of ``SearchConfig``."""

        name: str

    class TrainCfg(LoopCfg, SelfPlayConfig, LossConfig):
        """The ``train`` group: a ``name`` and the loop's, self-play's and loss's fields."""

        name: str
else:
    SearchCfg = schema(
        "SearchCfg",
        SearchConfig,
        first=_named("default"),
        doc="Search settings: ``name`` and the fields of ``drl.search.SearchConfig``.",
    )
    TrainCfg = schema(
        "TrainCfg",
        LoopCfg,
        SelfPlayConfig,
        LossConfig,
        first=_named("default"),
        drop=("max_plies",),
        doc="The training loop: ``name``, the fields of :class:`LoopCfg`, of "
        "``SelfPlayConfig`` (but ``max_plies``: ``variant.max_plies``) and "
        "of ``LossConfig``.",
    )


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


@dataclass
class Config:
    """The whole training configuration.

    Attributes:
        variant: the game (:class:`VariantCfg`).
        model: the network (:class:`ModelNode`; ``ModelCfg`` for ``resnet``).
        search: :class:`SearchCfg`.
        train: :class:`TrainCfg`.
        runtime: :class:`RuntimeCfg`.
        run_dir: run folder (default ``runs/<variant>-<time>``); re-running with an
            existing one continues it.
        resume: continue the newest run of this variant under ``runs/`` (when
            ``run_dir`` is not given).
        seed: master seed.
        device: ``auto`` (CUDA if available), ``cpu`` or ``cuda``.
        threads: torch CPU threads (0 = the CPUs this process may use).
        progress: show progress: a bar on a terminal, one plain line per iteration
            when stderr is not one (a log file, a pipe, a notebook).
        tensorboard: write TensorBoard scalars under ``<run_dir>/tb``.

    Raises:
        ValueError: ``name=value: must ...``: ``seed`` outside [0, 2**63 - 1],
            ``threads`` outside [0, 1024], ``device`` not one of :data:`DEVICES` (the
            groups check their own fields).
    """

    variant: VariantCfg = field(default_factory=VariantCfg)
    model: ModelNode = field(default_factory=ModelNode)
    search: SearchCfg = field(default_factory=SearchCfg)
    train: TrainCfg = field(default_factory=TrainCfg)
    runtime: RuntimeCfg = field(default_factory=RuntimeCfg)
    run_dir: str | None = None
    resume: bool = False
    seed: int = 0
    device: _Device = "auto"
    threads: int = 0
    progress: bool = True
    tensorboard: bool = True

    def __post_init__(self) -> None:
        check_range("seed", self.seed, 0, INT64_MAX)
        check_range("threads", self.threads, 0, 1024)
        check_choice("device", self.device, DEVICES)


def register_configs() -> None:
    """Register the training config and each architecture's ``model`` option with Hydra.

    :class:`Config` goes to Hydra's ConfigStore as ``base_config``, and each registered
    architecture's :func:`model_node` as the ``model`` option of its name.
    """
    from hydra.core.config_store import ConfigStore

    store = ConfigStore.instance()
    store.store(name="base_config", node=Config)
    for arch in registered_archs():
        store.store(group="model", name=arch, node=model_node(arch))


def _fields_for(node: Any, target: type) -> dict[str, Any]:
    """The values in ``node`` of the ``init`` fields of dataclass ``target``."""
    return {
        f.name: getattr(node, f.name)
        for f in dataclasses.fields(target)
        if f.init and hasattr(node, f.name)
    }


def search_config(cfg: Config, simulations: int | None = None) -> SearchConfig:
    """The :class:`~drl.search.SearchConfig` of ``cfg.search`` (budget optionally replaced).

    Raises:
        ValueError: from ``SearchConfig`` for a value out of range.
    """
    fields = _fields_for(cfg.search, SearchConfig)
    if simulations is not None:
        fields["num_simulations"] = simulations
    return SearchConfig(**fields)


def selfplay_config(cfg: Config) -> SelfPlayConfig:
    """The :class:`~drl.train.selfplay.SelfPlayConfig` of a training config.

    Built from ``cfg.train`` and ``cfg.variant.max_plies``.

    Raises:
        ValueError: from ``SelfPlayConfig`` for a value out of range.
    """
    return SelfPlayConfig(
        **{**_fields_for(cfg.train, SelfPlayConfig), "max_plies": cfg.variant.max_plies}
    )


def loss_config(cfg: Config) -> LossConfig:
    """The :class:`~drl.train.learner.LossConfig` of ``cfg.train``."""
    return LossConfig(**_fields_for(cfg.train, LossConfig))


def network_config(cfg: Config, board_size: int) -> tuple[str, dict[str, Any]]:
    """``(arch, fields)`` for :func:`drl.nn.build`.

    The fields are ``cfg.model``'s (but ``name`` and ``arch``) and the input fields of the
    encoder for ``board_size``.
    """
    from drl.encode.dims import encoding

    m = cfg.model
    fields = {
        f.name: getattr(m, f.name) for f in dataclasses.fields(m) if f.name not in ("name", "arch")
    }
    fields.update(encoding(board_size).net_fields())
    return m.arch, fields


def variants_of(variant: VariantCfg) -> tuple[Variant, ...]:
    """The variants self-play alternates between.

    ``variant.spec``, or in Give and Take with ``alternate_roles`` both Taker colours (black
    first).

    Raises:
        ValueError: ``variant.spec`` does not parse.
    """
    v = Variant.parse(variant.spec)
    if v.is_asymmetric and variant.alternate_roles:
        return (v.with_taker("black"), v.with_taker("white"))
    return (v,)


@dataclass(frozen=True)
class TrainSettings:
    """The training configuration as the code's objects, converted once from a :class:`Config`.

    :func:`train_settings` converts it; nothing below ``drl.train.loop.train`` reads the
    config itself. The pieces are copies, so changing the config afterwards changes nothing
    here.

    Attributes:
        variant_spec: ``variant.spec``, as checkpoints record it.
        variant_name: ``variant.name`` (the progress bar's label).
        variants: the variants self-play alternates between (:func:`variants_of`).
        search: the self-play search (``search``).
        selfplay: the self-play settings (``train`` and ``variant.max_plies``).
        loss: the learner's loss (``train``).
        arch: the network's architecture (``model.arch``).
        net_fields: the keyword arguments of :func:`drl.nn.build` after ``arch``: the
            ``model`` fields and the input fields of the board size's encoding.
        model: the ``model`` node as a plain dict (as ``config.yaml`` records it).
        loop: the loop's own numbers, optimiser and evaluations (``train``).
        runtime: where self-play runs (``runtime``).
        seed: the master seed.
        device: ``auto``, ``cpu`` or ``cuda``.
        threads: torch CPU threads (0: the CPUs this process may use).
        progress: show a progress bar.
        tensorboard: write TensorBoard scalars.
        config_yaml: the resolved configuration as YAML (``config.yaml``, checkpoints).
    """

    variant_spec: str
    variant_name: str
    variants: tuple[Variant, ...]
    search: SearchConfig
    selfplay: SelfPlayConfig
    loss: LossConfig
    arch: str
    net_fields: dict[str, Any]
    model: dict[str, Any]
    loop: LoopCfg
    runtime: RuntimeCfg
    seed: int
    device: str
    threads: int
    progress: bool
    tensorboard: bool
    config_yaml: str

    @property
    def board_size(self) -> int:
        """The board's side (8 or 10)."""
        return self.variants[0].board_size


def _eval_copy(ev: Any) -> TrainEvalCfg:
    return TrainEvalCfg(**{**_fields_for(ev, TrainEvalCfg), "baselines": list(ev.baselines)})


def train_settings(cfg: Config) -> TrainSettings:
    """Convert a training configuration into :class:`TrainSettings`.

    Args:
        cfg: a :class:`Config`, or the structured (Hydra) config of its schema; check it
            with :func:`validate` first, whose errors name the key.

    Returns:
        The settings, each field by name (:func:`search_config`,
        :func:`selfplay_config`, :func:`loss_config`, :func:`network_config`).

    Raises:
        ValueError: ``variant.spec`` does not parse, or a value the code's dataclasses
            refuse.
    """
    from omegaconf import OmegaConf

    from drl.train.config_budget import scaled_to_budget

    variants = variants_of(cfg.variant)
    arch, net_fields = network_config(cfg, variants[0].board_size)
    t = cfg.train
    evals = {"eval": _eval_copy(t.eval), "final_eval": _eval_copy(t.final_eval)}
    return TrainSettings(
        variant_spec=cfg.variant.spec,
        variant_name=cfg.variant.name,
        variants=variants,
        search=search_config(cfg),
        selfplay=selfplay_config(cfg),
        loss=loss_config(cfg),
        arch=arch,
        net_fields=net_fields,
        model=typing.cast(dict, OmegaConf.to_container(OmegaConf.structured(cfg.model))),
        loop=scaled_to_budget(LoopCfg(**{**_fields_for(t, LoopCfg), **evals})),
        runtime=RuntimeCfg(**_fields_for(cfg.runtime, RuntimeCfg)),
        seed=cfg.seed,
        device=cfg.device,
        threads=cfg.threads,
        progress=cfg.progress,
        tensorboard=cfg.tensorboard,
        config_yaml=OmegaConf.to_yaml(OmegaConf.structured(cfg)),
    )


def _check(ok: bool, key: str, message: str, value: Any) -> None:
    if not ok:
        raise ValueError(f"config {key}={value!r}: {message}")


# -- each dataclass's own checks, reported by config key -------------------------------

# ``{field name: (dotted config key, value)}``: the keyword arguments of a code dataclass
# built from the config, and where each one comes from.
_Keys = dict[str, tuple[str, Any]]


def config_error(err: Exception, keys: Mapping[str, tuple[str, Any]], group: str) -> ValueError:
    """The config error for ``err``, raised by a dataclass built from config values.

    Args:
        err: the dataclass's error; its own checks say ``name=value: must ...``
            (``drl._checks``), others name the field somewhere in the text.
        keys: ``{field name: (dotted config key, value)}`` of the values it was built from.
        group: the config group, named when the text names none of the fields.

    Returns:
        ``ValueError("config KEY=VALUE: MESSAGE")`` for the first field the text names
        (``config search.c_puct=-1.0: must be >= 0``), else ``config GROUP: TEXT``.
    """
    text = str(err)
    for name, (key, value) in keys.items():
        own = f"{name}={value!r}: "
        if text.startswith(own):
            return ValueError(f"config {key}={value!r}: {text[len(own) :]}")
    for name, (key, value) in keys.items():
        if re.search(rf"(?<![\w.])(?:\w+\.)?{re.escape(name)}\b", text):
            return ValueError(f"config {key}={value!r}: {text}")
    return ValueError(f"config {group}: {text}" if group else f"config: {text}")


def _keys(group: str, node: Any, target: type) -> _Keys:
    """The :data:`_Keys` of the ``init`` fields of dataclass ``target`` in ``node``."""
    prefix = f"{group}." if group else ""
    return {name: (prefix + name, value) for name, value in _fields_for(node, target).items()}


def _parts(cfg: Config, board_size: int) -> list[tuple[str, _Keys, Callable[..., object]]]:
    """``(group, keys, build)`` of every code dataclass the config holds.

    ``build(**kw)`` with the values of ``keys`` runs that dataclass's own checks.
    """
    t = cfg.train
    arch, net = network_config(cfg, board_size)
    selfplay = _keys("train", t, SelfPlayConfig)
    selfplay["max_plies"] = ("variant.max_plies", cfg.variant.max_plies)
    model = {k: (f"model.{k}", v) for k, v in net.items()}
    return [
        ("", _keys("", cfg, Config), Config),
        ("model", model, lambda **kw: make_config(arch, **kw)),
        ("search", _keys("search", cfg.search, SearchConfig), SearchConfig),
        ("train", _keys("train", t, LoopCfg), LoopCfg),
        ("train", selfplay, SelfPlayConfig),
        ("train", _keys("train", t, LossConfig), LossConfig),
        ("train.eval", _keys("train.eval", t.eval, TrainEvalCfg), TrainEvalCfg),
        ("train.final_eval", _keys("train.final_eval", t.final_eval, TrainEvalCfg), TrainEvalCfg),
        ("runtime", _keys("runtime", cfg.runtime, RuntimeCfg), RuntimeCfg),
    ]


def _check_parts(
    parts: list[tuple[str, _Keys, Callable[..., object]]],
    override: Mapping[str, Any] | None = None,
) -> None:
    """Build every part (:func:`_parts`), or with ``override`` only those it touches.

    With ``override``, only the parts holding one of its dotted keys are built, with its
    value. The first error is raised under its config key (:func:`config_error`).
    """
    for group, keys, build in parts:
        if override is not None:
            if not any(key in override for key, _ in keys.values()):
                continue
            keys = {n: (k, override.get(k, v)) for n, (k, v) in keys.items()}
        try:
            build(**{name: value for name, (_, value) in keys.items()})
        except (TypeError, ValueError) as err:
            raise config_error(err, keys, group) from None


def _numbers(node: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """``(dotted key, value)`` of every int and float leaf of a config dataclass."""
    out = []
    for f in dataclasses.fields(node):
        value = getattr(node, f.name)
        key = f"{prefix}{f.name}"
        if dataclasses.is_dataclass(value):
            out += _numbers(value, key + ".")
        elif isinstance(value, int | float) and not isinstance(value, bool):
            out.append((key, value))
    return out


def _check_learning(t: Any) -> None:
    """Refuse ``train`` settings that make the learner diverge or do nothing by construction.

    Each message names the key and its allowed range.
    """
    # Each key's own range (lr > 0, weight_decay >= 0, ...) is checked by the dataclass
    # that holds it (_parts); here what depends on two keys.
    if t.optimizer == "adamw":
        # AdamW multiplies every weight by (1 - lr * weight_decay) at each step.
        _check(
            t.lr * t.weight_decay < 1,
            "train.lr",
            f"with adamw, lr * train.weight_decay ({t.weight_decay!r}) must be < 1 "
            "(each step multiplies the weights by 1 - lr * weight_decay)",
            t.lr,
        )
    if t.optimizer == "sgd":
        _check(
            0 < t.momentum < 1,
            "train.momentum",
            "must lie in (0, 1) with sgd (Nesterov momentum; 1 or more never decays)",
            t.momentum,
        )
    _check(
        0 <= t.min_replay <= t.replay_window,
        "train.min_replay",
        f"must lie in [0, train.replay_window={t.replay_window}] (the learner draws from "
        "the newest replay_window positions; more would never start it)",
        t.min_replay,
    )


# -- memory --------------------------------------------------------------------------

# The keys whose values size the arrays of a run (with the model's int size fields, see
# _memory_keys): check_memory names one of them, with the largest value it may take.
MEMORY_KEYS: tuple[str, ...] = (
    "train.games_in_flight",
    "search.num_simulations",
    "variant.max_plies",
    "train.shard_games",
    "train.replay_window",
    "train.batch_size",
    "train.eval.games",
    "train.eval.simulations",
    "train.eval.max_plies",
    "train.final_eval.games",
    "train.final_eval.simulations",
    "train.final_eval.max_plies",
)


def _network_size(arch: str, fields: tuple[tuple[str, Any], ...]) -> tuple[int, int]:
    """``(parameters, activations per position)`` of the network.

    The network is built on torch's meta device (no memory, no weights). The activations are
    the outputs of its convolution, normalisation and linear layers (8x8 or 10x10 planes).
    """
    import torch

    from drl.nn import build

    kw = dict(fields)
    with torch.device("meta"):
        net = build(arch, **kw)
    module = typing.cast(torch.nn.Module, net)
    params = sum(p.numel() for p in module.parameters())
    area = int(kw["board_size"]) ** 2
    acts = 0
    for m in module.modules():
        if isinstance(m, torch.nn.Conv2d):
            acts += m.out_channels * area
        elif isinstance(m, torch.nn.BatchNorm2d):
            acts += m.num_features * area
        elif isinstance(m, torch.nn.Linear):
            acts += m.out_features
    return int(params), acts


_NET_SIZES: dict[tuple, tuple[int, int]] = {}


def memory_estimate(
    cfg: Config, board_size: int, override: dict[str, Any] | None = None
) -> dict[str, int]:
    """Estimated bytes the arrays of a run with ``cfg`` take, by part.

    Upper estimates from the arrays' shapes (``drl.search.tree.allocate``,
    ``drl.train.selfplay``, ``drl.train.buffer``, the learner's minibatch):

    - ``selfplay``: per game in flight, a search tree of ``search.num_simulations + 1``
      nodes, the game's rows and its recorded positions (up to ``variant.max_plies``), and
      the finished games of a shard not written yet (``train.shard_games``);
    - ``replay``: the ``train.replay_window`` positions held in memory;
    - ``learner``: the network's weights, gradients, two optimiser moments and a
      checkpoint copy (5 floats per parameter), and a ``train.batch_size`` minibatch with
      its activations (forward, after the activation function, gradient);
    - ``evaluation``: the search trees of the evaluation's games in flight (the larger
      of ``train.eval``, when it runs, and ``train.final_eval``).

    Args:
        cfg: the configuration.
        board_size: 8 or 10.
        override: dotted keys (those of :data:`MEMORY_KEYS` or ``model.*`` fields) to
            read from here instead of ``cfg``.

    Returns:
        ``{part: bytes}``.
    """
    from drl.encode.dims import encoding
    from drl.eval.arena import DEFAULT_IN_FLIGHT
    from drl.game.kernels import POS_SIZE
    from drl.rules.variant import PARAMS_SIZE

    over = override or {}

    def get(key: str) -> int:
        if key in over:
            return int(over[key])
        node: Any = cfg
        for part in key.split("."):
            node = getattr(node, part)
        return int(node)

    enc = encoding(board_size)
    area, A = board_size * board_size, enc.actions
    planes = enc.channels * area
    move = 32 * 8  # a played move's row (MOVE_WIDTH int64)

    def tree(sims: int) -> int:  # one game's search tree and leaf slot
        nodes = sims + 1
        edges = max(64, 8 * nodes)
        return (
            nodes * (POS_SIZE + 6) * 8
            + edges * 5 * 8
            + (64 + nodes) * 8
            + A * 16
            + sims * 8
            + (PARAMS_SIZE + 6) * 8
            + planes * 4
            + A
        )

    plies = get("variant.max_plies")
    record = planes * 4 + move + 400  # a recorded position: planes, move, steps, headers
    game_rows = (plies + 2) * 8 + (POS_SIZE + PARAMS_SIZE) * 8 + planes * 4 + move
    selfplay = (
        get("train.games_in_flight")
        * (tree(get("search.num_simulations")) + game_rows + plies * record)
        + get("train.shard_games") * plies * record
    )
    replay = get("train.replay_window") * (planes * 2 + 160)  # float16 planes, steps

    m = cfg.model
    fields = {
        f.name: over.get(f"model.{f.name}", getattr(m, f.name))
        for f in dataclasses.fields(m)
        if f.name not in ("name", "arch")
    }
    fields.update(enc.net_fields())
    key = (m.arch, tuple(sorted(fields.items())))
    if key not in _NET_SIZES:
        _NET_SIZES[key] = _network_size(m.arch, key[1])
    params, acts = _NET_SIZES[key]
    batch = get("train.batch_size")
    learner = params * 4 * 5 + batch * (planes * 4 * 2 + A * 4 * 6 + acts * 4 * 3)

    evaluation = 0
    for name in ("train.eval", "train.final_eval"):
        games = get(f"{name}.games")
        if games < 1 or (name == "train.eval" and get("train.eval.every") == 0):
            continue
        per_game = tree(get(f"{name}.simulations")) + (get(f"{name}.max_plies") + 2) * 8
        evaluation = max(evaluation, min(games, DEFAULT_IN_FLIGHT) * per_game)
    return {
        "selfplay": selfplay,
        "replay": replay,
        "learner": learner,
        "evaluation": evaluation,
    }


def _memory_keys(cfg: Config) -> list[str]:
    model = [
        f"model.{f.name}"
        for f in dataclasses.fields(cfg.model)
        if f.name not in ("name", "arch")
        and isinstance(getattr(cfg.model, f.name), int)
        and not isinstance(getattr(cfg.model, f.name), bool)
    ]
    return [*MEMORY_KEYS, *model]


def check_memory(cfg: Config, board_size: int, available: tuple[int, str] | None = None) -> None:
    """Refuse a configuration whose arrays do not fit in the memory available.

    The arrays are those :func:`memory_estimate` counts; the memory available is
    :func:`available_memory`, or ``available``.

    The message names one key of :data:`MEMORY_KEYS` (or a ``model`` size field): of
    those that alone can make the run fit, the one furthest above its limit; the limit
    is the largest value that fits with the other settings as they are.

    Raises:
        ValueError: ``config KEY=VALUE: must be <= LIMIT on this machine ...``, with the
            estimate by part and the memory available (and where that figure is from).
    """
    got = available if available is not None else available_memory()
    if got is None:
        return
    room, source = got
    need = memory_estimate(cfg, board_size)
    total = sum(need.values())
    if total <= room:
        return

    checked = _parts(cfg, board_size)

    def fits(key: str, value: int) -> bool:
        try:
            _check_parts(checked, {key: value})  # a value out of the key's own range
            return sum(memory_estimate(cfg, board_size, {key: value}).values()) <= room
        except (TypeError, ValueError):
            return False

    best: tuple[float, str, int, int] | None = None
    for key in _memory_keys(cfg):
        node: Any = cfg
        for part in key.split("."):
            node = getattr(node, part)
        value = int(node)
        lo, hi = 0, value  # the largest v in [0, value) that fits: bisect
        if value == 0 or not fits(key, 0) and not fits(key, 1):
            continue
        lo = 0 if fits(key, 0) else 1
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if fits(key, mid):
                lo = mid
            else:
                hi = mid
        ratio = value / max(lo, 1)
        if best is None or ratio > best[0]:
            best = (ratio, key, value, lo)
    parts = ", ".join(f"{k} {_fmt_bytes(v)}" for k, v in need.items() if v)
    why = (
        f"the run's arrays would take about {_fmt_bytes(total)} ({parts}) and "
        f"{_fmt_bytes(room)} is available ({source})"
    )
    if best is None:
        keys = ", ".join(_memory_keys(cfg))
        raise ValueError(
            f"config: too large for this machine's memory: {why}; no one of "
            f"{keys} alone can make it fit"
        )
    _, key, value, limit = best
    raise ValueError(
        f"config {key}={value!r}: must be <= {limit} on this machine (with the other "
        f"settings as they are): {why}"
    )


def validate(cfg: Config) -> None:
    """Check the configuration before anything is written.

    The code's dataclasses are built from it (:func:`_parts`: ``Config``'s own fields,
    the network's config class, ``SearchConfig``, :class:`LoopCfg`, ``SelfPlayConfig``
    with ``variant.max_plies``, ``LossConfig``, :class:`TrainEvalCfg`,
    :class:`RuntimeCfg`), so that each one's range and choice checks apply (every int has
    an upper bound, a float must be finite); then what spans several keys: the variant
    string, the learning settings together (``_check_learning``), the distinct openings
    and the baseline specs of the evaluations, and the memory the run's arrays need
    (:func:`check_memory`).

    Raises:
        ValueError: naming the key (dotted, e.g. ``train.eval.games``), its value and
            what is wrong: ``config KEY=VALUE: MESSAGE``.
    """
    from drl.rules import Variant

    try:
        variant = Variant.parse(cfg.variant.spec)
    except ValueError as err:
        raise ValueError(f"config variant.spec={cfg.variant.spec!r}: {err}") from None
    t, m = cfg.train, cfg.model
    _check(
        m.arch in registered_archs(),
        "model.arch",
        f"not a registered architecture; registered: {', '.join(registered_archs())}",
        m.arch,
    )
    _check_parts(_parts(cfg, variant.board_size))
    _check_learning(t)
    for key, ev in (("train.eval", t.eval), ("train.final_eval", t.final_eval)):
        if (
            ev.games >= 1
            and ev.baselines
            and ev.openings > 0
            and (ev.every > 0 or key != "train.eval")
        ):
            from drl.eval.arena import check_distinct_openings

            try:
                check_distinct_openings(variant, ev.openings, ev.games)
            except ValueError as err:
                raise ValueError(f"config {key}.openings={ev.openings}: {err}") from None
    check_memory(cfg, variant.board_size)
    from drl.agents import spec_name

    for key, ev in (("train.eval", t.eval), ("train.final_eval", t.final_eval)):
        for spec in ev.baselines:
            try:
                spec_name(spec)
            except ValueError as err:
                first = str(err).splitlines()[0]
                raise ValueError(f"config {key}.baselines: {first}") from None


def __getattr__(name: str) -> Any:
    """The names this module had before.

    ``EvalCfg`` (now :class:`TrainEvalCfg`) with a DeprecationWarning; ``RANGES`` is gone
    (each dataclass checks its own ranges).
    """
    if name == "EvalCfg":
        warnings.warn(
            "drl.train.config.EvalCfg is renamed TrainEvalCfg (drl-eval's settings are "
            "drl.cli.eval.EvalConfig)",
            DeprecationWarning,
            stacklevel=2,
        )
        return TrainEvalCfg
    if name == "RANGES":
        raise AttributeError(
            "drl.train.config.RANGES is gone: each setting's range is checked by the "
            "dataclass that holds it (its __post_init__, e.g. drl.search.SearchConfig), "
            "and validate() reports it under the config key"
        )
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
