"""Network architectures by name: build one from its config, rebuild one from a checkpoint.

An architecture is a factory ``config -> model`` and the frozen dataclass of its config.
Every config class has the fields ``in_channels``, ``board_size`` and ``num_actions``
(they follow from the game; see :data:`INPUT_FIELDS`); its other fields, with their
defaults, are what ``configs/model/*.yaml`` set. ``resnet``
(:class:`~drl.nn.PolicyValueNet`, :class:`~drl.nn.NetConfig`) and ``sparse``
(:class:`~drl.nn.sparse.SparseNet`, :class:`~drl.nn.config.SparseConfig`, evaluated
inside the compiled search) are registered here. A new
architecture is one call::

    register_arch("mlp", MLPNet, MLPConfig)      # then: drl-train model=mlp

Checkpoints store the architecture's name (``arch``) next to its config (``net_config``);
a checkpoint without ``arch`` was written before there was a choice and holds a
``resnet``. This module imports torch only when a network is built.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from drl.nn._payload import check_field_types, check_payload
from drl.nn.config import NetConfig, SparseConfig
from drl.nn.errors import CheckpointError
from drl.nn.model import PolicyValueModel

__all__ = [
    "DEFAULT_ARCH",
    "INPUT_FIELDS",
    "arch_config_class",
    "build",
    "build_from",
    "check_compatible",
    "check_variant",
    "describe",
    "load",
    "make_config",
    "register_arch",
    "registered_archs",
]

DEFAULT_ARCH = "resnet"
INPUT_FIELDS = ("in_channels", "board_size", "num_actions")


@dataclass(frozen=True)
class _Arch:
    factory: Callable[[Any], PolicyValueModel]
    config_cls: type


_ARCHS: dict[str, _Arch] = {}


def register_arch(
    name: str,
    factory: Callable[[Any], PolicyValueModel],
    config_cls: type,
    *,
    replace: bool = False,
) -> None:
    """Make architecture ``name`` buildable (and selectable as ``model.arch``).

    Args:
        name: the architecture's name, stored in configs and checkpoints.
        factory: ``factory(config)`` returns a network (a ``torch.nn.Module`` whose forward
            pass returns a :class:`~drl.nn.NetOutput`, see
            :class:`~drl.nn.PolicyValueModel`).
        config_cls: dataclass of its config, with the fields :data:`INPUT_FIELDS`.
        replace: allow re-registering an existing name.

    Raises:
        ValueError: for an empty name, a name already registered (without ``replace``), or a
            config class that is not a dataclass or lacks one of :data:`INPUT_FIELDS`.
    """
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"architecture name must be an identifier, got {name!r}")
    if name in _ARCHS and not replace:
        raise ValueError(f"architecture {name!r} is already registered")
    if not dataclasses.is_dataclass(config_cls) or not isinstance(config_cls, type):
        raise ValueError(f"config_cls of {name!r} must be a dataclass, got {config_cls!r}")
    have = {f.name for f in dataclasses.fields(config_cls)}
    missing = [f for f in INPUT_FIELDS if f not in have]
    if missing:
        raise ValueError(
            f"config class {config_cls.__name__} of architecture {name!r} lacks "
            f"the fields {missing} (every architecture gets {list(INPUT_FIELDS)})"
        )
    _ARCHS[name] = _Arch(factory, config_cls)


def registered_archs() -> tuple[str, ...]:
    """Names of the registered architectures, sorted."""
    return tuple(sorted(_ARCHS))


def _arch(name: str) -> _Arch:
    try:
        return _ARCHS[name]
    except KeyError:
        raise ValueError(
            f"unknown network architecture {name!r}; registered: {', '.join(registered_archs())}"
        ) from None


def arch_config_class(name: str) -> type:
    """The config dataclass of architecture ``name``.

    Raises:
        ValueError: if ``name`` is not registered (the message lists those that are).
    """
    return _arch(name).config_cls


def make_config(arch: str = DEFAULT_ARCH, **config: Any) -> Any:
    """The config object of architecture ``arch`` from its fields (the network is not built).

    Args:
        arch: a registered architecture name.
        **config: fields of its config class: :data:`INPUT_FIELDS` and any size fields
            (the others take the class's defaults).

    Returns:
        An instance of :func:`arch_config_class` ``(arch)``.

    Raises:
        ValueError: unknown ``arch`` (listing the registered ones), a field its config class
            does not have or lacks, or a value the config class rejects.
    """
    cls = _arch(arch).config_cls
    fields = [f for f in dataclasses.fields(cls) if f.init]
    known = {f.name for f in fields}
    unknown = sorted(set(config) - known)
    if unknown:
        raise ValueError(
            f"architecture {arch!r} has no config field(s) {unknown}; its fields "
            f"are {sorted(known)}"
        )
    required = [
        f.name
        for f in fields
        if f.default is dataclasses.MISSING
        and f.default_factory is dataclasses.MISSING
        and f.name not in config
    ]
    if required:
        raise ValueError(f"architecture {arch!r} needs the config field(s) {required}")
    return cls(**config)


def build(arch: str = DEFAULT_ARCH, **config: Any) -> PolicyValueModel:
    """Build a freshly initialised network.

    Args:
        arch: a registered architecture name.
        **config: fields of its config class (see :func:`make_config`).

    Returns:
        The network (train mode, on the CPU), with ``arch`` and ``config`` attributes.

    Raises:
        ValueError: as :func:`make_config`.
    """
    return build_from(arch, make_config(arch, **config))


def build_from(arch: str, config: Any) -> PolicyValueModel:
    """Build a freshly initialised network from a config object already made.

    Args:
        arch: a registered architecture name.
        config: an instance of :func:`arch_config_class` ``(arch)`` (see
            :func:`make_config`), used as it is.

    Returns:
        The network, as :func:`build` returns it.

    Raises:
        ValueError: unknown ``arch``.
    """
    net = _arch(arch).factory(config)
    net.arch = arch
    if getattr(net, "config", None) is None:
        net.config = config
    return net


def describe(net: PolicyValueModel) -> dict[str, Any]:
    """What a checkpoint stores to rebuild ``net``: ``{"arch": str, "net_config": dict}``."""
    return {
        "arch": getattr(net, "arch", DEFAULT_ARCH),
        "net_config": dataclasses.asdict(net.config),
    }


def _stored(payload: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    if "net_config" not in payload:
        raise ValueError("checkpoint has no net_config: it is not a drl network checkpoint")
    return str(payload.get("arch") or DEFAULT_ARCH), dict(payload["net_config"])


def _board(cfg: Mapping[str, Any]) -> str:
    n = cfg.get("board_size")
    return f"{n}x{n} boards" if n is not None else "an unknown board size"


def check_compatible(payload: Mapping[str, Any], arch: str, config: Mapping[str, Any]) -> None:
    """Check that a checkpoint holds the network a run asks for.

    Args:
        payload: checkpoint payload (``arch``, optional for ``resnet``; ``net_config``).
        arch: the architecture asked for.
        config: the full config asked for, as a dict (see :func:`describe`).

    Raises:
        ValueError: naming both sides, e.g. ``checkpoint holds arch 'resnet' for 10x10
            boards; this run is arch 'resnet' for 8x8 boards``, or the differing fields.
    """
    got_arch, got = _stored(payload)
    if got_arch != arch or got.get("board_size") != config.get("board_size"):
        raise ValueError(
            f"checkpoint holds arch {got_arch!r} for {_board(got)}; this run is "
            f"arch {arch!r} for {_board(config)}"
        )
    if got != dict(config):
        keys = sorted(k for k in set(got) | set(config) if got.get(k) != config.get(k))
        theirs = ", ".join(f"{k}={got.get(k)!r}" for k in keys)
        ours = ", ".join(f"{k}={config.get(k)!r}" for k in keys)
        raise ValueError(
            f"checkpoint holds a {got_arch!r} network with {theirs}; this run asks for {ours}"
        )


def _config_dict(config: Mapping[str, Any] | Any) -> dict[str, Any]:
    if isinstance(config, Mapping):
        return dict(config)
    return dataclasses.asdict(config)


def _check_board(
    cfg: Mapping[str, Any],
    board_size: int,
    game: str,
    source: str,
    trained_on: str | None,
    arch: str | None,
    planes: bool = True,
) -> None:
    """The one test that a network's inputs and outputs fit a board size.

    With ``planes``, it also tests them against this version's observation planes.
    """
    from drl.encode import encoding

    what = f"arch {arch!r}" if arch else "a network"
    enc = encoding(board_size)
    actions = enc.actions
    have_size, have_actions = cfg.get("board_size"), cfg.get("num_actions")
    if have_size != board_size or (have_actions is not None and have_actions != actions):
        trained = f", trained on {trained_on}" if trained_on else ""
        raise ValueError(
            f"{source} holds {what} for {_board(cfg)}; {game} is played on "
            f"{board_size}x{board_size} boards (the network has {have_actions} step "
            f"actions{trained}; the game has {actions})"
        )
    have_planes = cfg.get("in_channels")
    if planes and have_planes is not None and have_planes != enc.channels:
        raise ValueError(
            f"{source} holds {what} reading {have_planes} input planes; {game} is "
            f"encoded in {enc.channels} planes by this version of drl"
        )


def check_variant(
    config: Mapping[str, Any] | Any,
    variant: Any,
    source: str = "the network",
    trained_on: str | None = None,
    arch: str | None = None,
) -> None:
    """Check that a network can play a variant.

    This is the one check every network loaded for a game goes through (:func:`load`, the
    ``az`` agent, ``drl-play``, the arena, the training evaluation).

    Args:
        config: the network's config (a dataclass such as :class:`~drl.nn.NetConfig`, or
            the ``net_config`` mapping of a checkpoint) with ``board_size`` and, where
            known, ``num_actions`` and ``in_channels``.
        variant: a :class:`~drl.rules.Variant` or variant string.
        source: what holds the network, for the message (e.g. ``"checkpoint runs/x.pt"``).
        trained_on: the variant the network was trained on, for the message.
        arch: the network's architecture name, for the message.

    Raises:
        ValueError: the board size, the number of step actions (896 on 8x8, 1800 on
            10x10) or the number of input planes differs; the message names ``source``,
            the network's board and ``trained_on``, and the variant's board.
    """
    from drl.rules import Variant

    v = Variant.parse(variant)
    _check_board(_config_dict(config), v.board_size, str(v), source, trained_on, arch)
    _warn_other_rules(v, source, trained_on)


_WARNED: set[tuple[str, str, str]] = set()  # (source, trained on, played): warned once


def _warn_other_rules(v: Any, source: str, trained_on: str | None) -> None:
    """Warn (once per pair) when a network plays other rules than it was trained on.

    That is allowed (cross-variant play) but easy to do by mistake, e.g. by leaving out
    ``variant=``. Which colour is the Taker does not count: both roles are trained.
    """
    import warnings

    from drl.rules import Variant

    if not trained_on:
        return
    try:
        trained = Variant.parse(trained_on)
    except ValueError:
        return
    if trained.is_asymmetric and v.is_asymmetric:
        trained = trained.with_taker(v.taker)
    if trained != v and (source, trained_on, str(v)) not in _WARNED:
        _WARNED.add((source, trained_on, str(v)))
        warnings.warn(
            f"{source} was trained on {trained_on} and plays {v} here; pass "
            f"variant={trained_on} to play it under its own rules",
            UserWarning,
            stacklevel=3,
        )


def load(
    payload: Mapping[str, Any],
    device: Any = "cpu",
    board_size: int | None = None,
    *,
    variant: Any = None,
    source: str = "checkpoint",
) -> PolicyValueModel:
    """Rebuild the network stored in a checkpoint payload, in eval mode on ``device``.

    Args:
        payload: checkpoint payload with ``net_config``, ``model`` (the state dict) and
            ``arch`` (absent in old checkpoints: ``resnet``).
        device: torch device (or its name) for the network.
        board_size: when given, the board size the network must be for (8 or 10).
        variant: when given, the variant the network must play (:func:`check_variant`).
        source: what the payload was read from, for messages (e.g. its path).

    Returns:
        The network with its weights loaded.

    Raises:
        CheckpointError: (a ``ValueError``) the payload is malformed, the architecture is
            not registered, the stored config does not fit the architecture's limits, the
            weights' names or shapes do not fit the stored config, or the network does not
            fit in memory; all checked before the network is built
            (:func:`_check_network`), each naming ``source`` and the key.
        ValueError: the network does not fit ``board_size`` or ``variant``
            (:func:`check_variant`).
    """
    arch, cfg = _check_network(payload, source)
    trained_on = payload.get("variant")
    if board_size is not None:
        _check_board(cfg, board_size, "this game", source, trained_on, arch, planes=False)
    if variant is not None:
        check_variant(cfg, variant, source, trained_on, arch)
    net = build(arch, **cfg)
    net.load_state_dict(payload["model"])
    return net.to(device).eval()


def _resnet(config: NetConfig) -> PolicyValueModel:
    from drl.nn.network import PolicyValueNet

    return PolicyValueNet(config)


def _sparse(config: SparseConfig) -> PolicyValueModel:
    from drl.nn.sparse import SparseNet

    return SparseNet(config)


register_arch(DEFAULT_ARCH, _resnet, NetConfig)
register_arch("sparse", _sparse, SparseConfig)


def _check_network(payload: Mapping[str, Any], source: str) -> tuple[str, dict[str, Any]]:
    """Check the stored network against its architecture before anything is allocated.

    Args:
        payload: a checkpoint payload (see :func:`check_payload`).
        source: the file, for messages.

    Returns:
        ``(arch, net_config)``: the architecture's name and its config as a dict.

    Raises:
        CheckpointError: no ``net_config``; ``arch`` not registered (the message lists
            those that are); a ``net_config`` field unknown, missing, of the wrong type or
            outside the limits of the architecture's config class; a state dict whose
            names or shapes differ from those of the network the config describes; or a
            network larger than the memory available. Each message names ``source`` and
            the key.
    """
    import torch

    from drl._system import available_memory, format_bytes

    check_payload(payload, source, ("model", "net_config"))
    arch = payload.get("arch") or DEFAULT_ARCH
    try:
        cls = arch_config_class(arch)
    except ValueError as err:
        raise CheckpointError(f"{source}: arch: {err}") from None
    cfg = dict(payload["net_config"])
    check_field_types(cls, cfg, source, arch)
    try:
        make_config(arch, **cfg)
        with torch.device("meta"):  # shapes only: nothing is allocated
            shape_net = typing.cast(torch.nn.Module, build(arch, **cfg))
    except (TypeError, ValueError) as err:
        raise CheckpointError(f"{source}: net_config: {err}") from None
    want = {k: tuple(t.shape) for k, t in shape_net.state_dict().items()}
    have = {k: tuple(t.shape) for k, t in payload["model"].items()}
    problems = [f"{k} is missing" for k in want if k not in have]
    problems += [f"{k} is not in the network" for k in have if k not in want]
    problems += [
        f"{k} has shape {list(have[k])}, the network {list(want[k])}"
        for k in want
        if k in have and have[k] != want[k]
    ]
    if problems:
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        raise CheckpointError(
            f"{source}: model: the weights do not fit its arch {arch!r} with net_config "
            f"{cfg}: {'; '.join(problems[:3])}{more}"
        )
    need = sum(t.numel() * t.element_size() for t in shape_net.state_dict().values())
    room = available_memory()
    if room is not None and need > room[0]:
        raise CheckpointError(
            f"{source}: net_config: the network would take {format_bytes(need)} and "
            f"{format_bytes(room[0])} is available ({room[1]})"
        )
    return arch, cfg
