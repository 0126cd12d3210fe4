"""The training config converted into the code's objects: :func:`train_settings`, once.

:func:`train_settings` is the one conversion: it parses ``variant.spec`` and builds each
of the code's dataclasses once (``SearchConfig``, ``SelfPlayConfig`` with
``variant.max_plies``, ``LossConfig``, :class:`~drl.train.config.TrainEvalCfg` twice,
:class:`~drl.train.config.LoopCfg`, :class:`~drl.train.config.RuntimeCfg`, the network's
config class), reporting a dataclass's error under its config key
(``config search.c_puct=-1.0: must be >= 0``); then it runs the checks that span several
keys on the result (:func:`drl.train.config.checks.check_settings`).

:func:`search_config`, :func:`selfplay_config`, :func:`loss_config` and
:func:`network_config` convert one group each, passing every field by name.
"""

from __future__ import annotations

import dataclasses
import re
import typing
from collections.abc import Callable, Mapping
from typing import Any

from drl.nn import make_config, registered_archs
from drl.rules import Variant
from drl.search import SearchConfig
from drl.train.config.budget import scaled_to_budget
from drl.train.config.checks import check_settings
from drl.train.config.schema import Config, VariantCfg, check_top_level
from drl.train.config.settings import AlgoCfg, LoopCfg, RuntimeCfg, TrainEvalCfg, TrainSettings
from drl.train.learner import LossConfig
from drl.train.minimax import MinimaxConfig
from drl.train.selfplay import SelfPlayConfig

__all__ = [
    "config_error",
    "loss_config",
    "network_config",
    "search_config",
    "selfplay_config",
    "train_settings",
    "variants_of",
]


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
    return _alternated(Variant.parse(variant.spec), variant.alternate_roles)


def _eval_copy(ev: Any) -> dict[str, Any]:
    return {**_fields_for(ev, TrainEvalCfg), "baselines": list(ev.baselines)}


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


def _keys(group: str, values: Mapping[str, Any]) -> _Keys:
    """The :data:`_Keys` of ``values`` (field name -> value) read from config ``group``."""
    prefix = f"{group}." if group else ""
    return {name: (prefix + name, value) for name, value in values.items()}


def _built(group: str, keys: _Keys, build: Callable[..., Any]) -> Any:
    """``build(**values of keys)``, its error raised under its config key."""
    try:
        return build(**{name: value for name, (_, value) in keys.items()})
    except (TypeError, ValueError) as err:
        raise config_error(err, keys, group) from None


def _variant(variant: VariantCfg) -> Variant:
    try:
        return Variant.parse(variant.spec)
    except ValueError as err:
        raise ValueError(f"config variant.spec={variant.spec!r}: {err}") from None


def _alternated(v: Variant, alternate_roles: bool) -> tuple[Variant, ...]:
    if v.is_asymmetric and alternate_roles:
        return (v.with_taker("black"), v.with_taker("white"))
    return (v,)


def _algo(cfg: Config, arch: str, net_config: Any) -> tuple[str, MinimaxConfig]:
    """``(algo.name, minimax settings)``, checked (the minimax keys whatever the algorithm).

    ``algo=minimax`` needs a network evaluated inside the compiled search.
    """
    from drl.nn import build_from

    name = _built("algo", _keys("algo", {"name": cfg.algo.name}), AlgoCfg).name
    m = cfg.minimax
    minimax = _built("minimax", _keys("minimax", _fields_for(m, MinimaxConfig)), MinimaxConfig)
    if name != "minimax":
        return name, minimax
    if not hasattr(build_from(arch, net_config), "compiled_weights"):
        raise ValueError(
            f"config algo=minimax: model.arch={arch!r} has no compiled forward pass; the "
            "alpha-beta search of minimax self-play evaluates the network inside its "
            "compiled code: use model=sparse"
        )
    return name, minimax


def train_settings(cfg: Config, available: tuple[int, str] | None = None) -> TrainSettings:
    """Convert a training configuration into :class:`TrainSettings`, and check it.

    The one conversion of a config (see the module docstring): each dataclass is built
    once, and the settings are then checked as a whole
    (:func:`~drl.train.config.checks.check_settings`: the learning settings together,
    the evaluations' distinct openings and baseline specs, the memory the run's arrays
    need).

    Args:
        cfg: a :class:`~drl.train.config.Config`, or the structured (Hydra) config of its
            schema.
        available: the memory the run may take, ``(bytes, source)``; default:
            :func:`drl._system.available_memory`.

    Returns:
        The settings; they are copies, so changing ``cfg`` afterwards changes nothing.

    Raises:
        ValueError: naming the key (dotted, e.g. ``train.eval.games``), its value and what
            is wrong: ``config KEY=VALUE: MESSAGE``.
    """
    from omegaconf import OmegaConf

    variant = _variant(cfg.variant)
    m, t = cfg.model, cfg.train
    if m.arch not in registered_archs():
        raise ValueError(
            f"config model.arch={m.arch!r}: not a registered architecture; registered: "
            f"{', '.join(registered_archs())}"
        )
    top = _keys("", {name: getattr(cfg, name) for name in ("seed", "threads", "device")})
    _built("", top, lambda **_: check_top_level(cfg))
    arch, net_fields = network_config(cfg, variant.board_size)
    net_config = _built("model", _keys("model", net_fields), lambda **kw: make_config(arch, **kw))
    search = _built("search", _keys("search", _fields_for(cfg.search, SearchConfig)), SearchConfig)
    selfplay = _keys("train", _fields_for(t, SelfPlayConfig))
    selfplay["max_plies"] = ("variant.max_plies", cfg.variant.max_plies)
    evals = {
        name: _built(
            f"train.{name}", _keys(f"train.{name}", _eval_copy(getattr(t, name))), TrainEvalCfg
        )
        for name in ("eval", "final_eval")
    }
    loop = {k: v for k, v in _fields_for(t, LoopCfg).items() if k not in evals}
    algo, minimax = _algo(cfg, arch, net_config)
    loss = _built("train", _keys("train", _fields_for(t, LossConfig)), LossConfig)
    if algo == "minimax":  # the learner's value target mixes by minimax.mix
        loss = dataclasses.replace(loss, search_value_weight=minimax.mix)
    settings = TrainSettings(
        variant_spec=cfg.variant.spec,
        variant_name=cfg.variant.name,
        variant=variant,
        variants=_alternated(variant, cfg.variant.alternate_roles),
        search=search,
        selfplay=_built("train", selfplay, SelfPlayConfig),
        loss=loss,
        arch=arch,
        net_fields=net_fields,
        net_config=net_config,
        model=typing.cast(dict, OmegaConf.to_container(OmegaConf.structured(m))),
        loop=scaled_to_budget(
            _built("train", _keys("train", loop), lambda **kw: LoopCfg(**kw, **evals))
        ),
        runtime=_built(
            "runtime", _keys("runtime", _fields_for(cfg.runtime, RuntimeCfg)), RuntimeCfg
        ),
        seed=cfg.seed,
        device=cfg.device,
        threads=cfg.threads,
        progress=cfg.progress,
        tensorboard=cfg.tensorboard,
        config_yaml=OmegaConf.to_yaml(OmegaConf.structured(cfg)),
        algo=algo,
        minimax=minimax,
    )
    check_settings(settings, available)
    return settings
