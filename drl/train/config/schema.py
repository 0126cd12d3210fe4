"""The Hydra schema of the training config, generated from the code's dataclasses.

:class:`Config` is registered with Hydra's ConfigStore as ``base_config``
(:func:`register_configs`); each group's schema copies the fields (types and defaults) of
the dataclasses the code uses (:func:`schema`), so that every default lives in one place.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field, make_dataclass
from typing import TYPE_CHECKING, Any, Optional, Union

from drl._checks import INT64_MAX, check_choice, check_range
from drl._configs import VariantCfg
from drl.nn import DEFAULT_ARCH, INPUT_FIELDS, arch_config_class, registered_archs
from drl.search import SearchConfig
from drl.train.config.settings import DEVICES, AlgoCfg, LoopCfg, RuntimeCfg, _Device
from drl.train.learner import LossConfig
from drl.train.minimax import MinimaxConfig
from drl.train.selfplay import SelfPlayConfig

__all__ = [
    "AlgoCfg",
    "Config",
    "MinimaxCfg",
    "ModelCfg",
    "ModelNode",
    "SearchCfg",
    "TrainCfg",
    "VariantCfg",
    "check_top_level",
    "model_node",
    "register_configs",
    "schema",
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

    class MinimaxCfg(MinimaxConfig):
        """The ``minimax`` node: the fields of ``MinimaxConfig``."""
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
    MinimaxCfg = schema(
        "MinimaxCfg",
        MinimaxConfig,
        doc="Minimax self-play (``algo=minimax``): the fields of "
        "``drl.train.minimax.MinimaxConfig``.",
    )


@dataclass
class Config:
    """The whole training configuration.

    Attributes:
        variant: the game (:class:`VariantCfg`).
        model: the network (:class:`ModelNode`; ``ModelCfg`` for ``resnet``).
        search: :class:`SearchCfg`.
        train: :class:`TrainCfg`.
        algo: the self-play algorithm (:class:`AlgoCfg`): ``algo=az`` (the default) or
            ``algo=minimax``.
        minimax: :class:`MinimaxCfg`, the settings of ``algo=minimax``.
        runtime: :class:`RuntimeCfg`.
        run_dir: run folder (default ``runs/<variant>-<time>``); re-running with an
            existing one continues it.
        resume: continue the newest run of this variant under ``runs/`` (when
            ``run_dir`` is not given).
        seed: master seed.
        device: ``auto`` (CUDA if available), ``cpu`` or ``cuda``.
        threads: CPU cores to use (0 = every CPU this process may use): self-play plays
            in one worker process per core, and torch uses as many threads.
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
    algo: AlgoCfg = field(default_factory=AlgoCfg)
    minimax: MinimaxCfg = field(default_factory=MinimaxCfg)
    runtime: RuntimeCfg = field(default_factory=RuntimeCfg)
    run_dir: str | None = None
    resume: bool = False
    seed: int = 0
    device: _Device = "auto"
    threads: int = 0
    progress: bool = True
    tensorboard: bool = True

    def __post_init__(self) -> None:
        check_top_level(self)


def check_top_level(cfg: Any) -> None:
    """The checks of :class:`Config`'s own fields, on ``cfg`` as it is now.

    Raises:
        ValueError: ``name=value: must ...`` (see :class:`Config`).
    """
    check_range("seed", cfg.seed, 0, INT64_MAX)
    check_range("threads", cfg.threads, 0, 1024)
    check_choice("device", cfg.device, DEVICES)


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
