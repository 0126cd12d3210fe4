"""The memory a training run's arrays take, estimated from its settings, and the check.

:func:`memory_estimate` adds up upper estimates from the arrays' shapes;
:func:`check_memory` refuses settings that do not fit in the memory available and names
the one key (of :data:`MEMORY_KEYS` or a ``model`` size field) to lower, with the
largest value that fits. A key's value is read from, and replaced in, the
:class:`~drl.train.config.TrainSettings` by its dotted config key (:func:`setting`,
:func:`with_setting`), so that a replaced value goes through its dataclass's own checks.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

from drl._system import format_bytes as _fmt_bytes
from drl.nn import INPUT_FIELDS, build_from, make_config
from drl.train.config.settings import LoopCfg, TrainSettings
from drl.train.learner import LossConfig
from drl.train.minimax import MinimaxConfig
from drl.train.selfplay import SelfPlayConfig

__all__ = ["MEMORY_KEYS", "check_memory", "memory_estimate", "setting", "with_setting"]

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

_TRAIN_PARTS = (("loop", LoopCfg), ("selfplay", SelfPlayConfig), ("loss", LossConfig))


def _path(key: str) -> tuple[str, ...]:
    """Where the value of dotted config ``key`` is in a ``TrainSettings``.

    Raises:
        KeyError: a key the settings do not hold as one value.
    """
    group, _, rest = key.partition(".")
    if key == "variant.max_plies":
        return ("selfplay", "max_plies")
    if group == "search":
        return ("search", rest)
    if group == "model":
        return ("net_fields", rest)
    if group == "minimax" and rest in {f.name for f in dataclasses.fields(MinimaxConfig)}:
        return ("minimax", rest)
    if group == "train":
        head, _, leaf = rest.partition(".")
        if head in ("eval", "final_eval") and leaf:
            return ("loop", head, leaf)
        for part, cls in _TRAIN_PARTS:
            if rest in {f.name for f in dataclasses.fields(cls)}:
                return (part, rest)
    raise KeyError(key)


def setting(s: TrainSettings, key: str) -> Any:
    """The value of dotted config ``key`` (``train.batch_size``, ``model.channels``) in ``s``.

    Raises:
        KeyError: a key the settings do not hold as one value.
    """
    node: Any = s
    for part in _path(key):
        node = node[part] if isinstance(node, dict) else getattr(node, part)
    return node


def _replaced(node: Any, path: tuple[str, ...], value: Any) -> Any:
    head, *rest = path
    new = _replaced(getattr(node, head), tuple(rest), value) if rest else value
    return dataclasses.replace(node, **{head: new})


def with_setting(s: TrainSettings, key: str, value: Any) -> TrainSettings:
    """``s`` with dotted config ``key`` set to ``value``.

    The dataclass holding it is built again, so its own checks apply.

    Raises:
        KeyError: a key the settings do not hold as one value.
        ValueError: ``value`` out of the key's range.
    """
    path = _path(key)
    if path[0] == "net_fields":
        fields = {**s.net_fields, path[1]: value}
        return dataclasses.replace(s, net_fields=fields, net_config=make_config(s.arch, **fields))
    return typing.cast(TrainSettings, _replaced(s, path, value))


def _network_size(arch: str, config: Any) -> tuple[int, int]:
    """``(parameters, activations per position)`` of the network.

    The network is built on torch's meta device (no memory, no weights). The activations are
    the outputs of its convolution, normalisation and linear layers (8x8 or 10x10 planes).
    """
    import torch

    with torch.device("meta"):
        net = build_from(arch, config)
    module = typing.cast(torch.nn.Module, net)
    params = sum(p.numel() for p in module.parameters())
    area = int(config.board_size) ** 2
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


def _tree_bytes(sims: int, planes: int, actions: int) -> int:
    """One game's search tree of ``sims + 1`` nodes and its leaf slot."""
    from drl.game.kernels import POS_SIZE
    from drl.rules.variant import PARAMS_SIZE

    nodes = sims + 1
    edges = max(64, 8 * nodes)
    return (
        nodes * (POS_SIZE + 6) * 8
        + edges * 5 * 8
        + (64 + nodes) * 8
        + actions * 16
        + sims * 8
        + (PARAMS_SIZE + 6) * 8
        + planes * 4
        + actions
    )


def _learner_bytes(s: TrainSettings, planes: int, actions: int) -> int:
    """The network's weights, gradients, moments and checkpoint copy, and a minibatch."""
    key = (s.arch, tuple(sorted(s.net_fields.items())))
    if key not in _NET_SIZES:
        _NET_SIZES[key] = _network_size(s.arch, s.net_config)
    params, acts = _NET_SIZES[key]
    batch = s.loop.batch_size
    return params * 4 * 5 + batch * (planes * 4 * 2 + actions * 4 * 6 + acts * 4 * 3)


def memory_estimate(s: TrainSettings) -> dict[str, int]:
    """Estimated bytes the arrays of a run with settings ``s`` take, by part.

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

    Returns:
        ``{part: bytes}``.
    """
    from drl.encode.dims import encoding
    from drl.eval.play import DEFAULT_IN_FLIGHT
    from drl.game.kernels import POS_SIZE
    from drl.rules.variant import PARAMS_SIZE

    enc = encoding(s.board_size)
    planes, actions = enc.channels * s.board_size**2, enc.actions
    move = 32 * 8  # a played move's row (MOVE_WIDTH int64)
    plies = s.selfplay.max_plies
    record = planes * 4 + move + 400  # a recorded position: planes, move, steps, headers
    game_rows = (plies + 2) * 8 + (POS_SIZE + PARAMS_SIZE) * 8 + planes * 4 + move
    selfplay = (
        s.selfplay.games_in_flight
        * (_tree_bytes(s.search.num_simulations, planes, actions) + game_rows + plies * record)
        + s.loop.shard_games * plies * record
    )
    evaluation = 0
    for name, ev in (("eval", s.loop.eval), ("final_eval", s.loop.final_eval)):
        if ev.games < 1 or (name == "eval" and ev.every == 0):
            continue
        per_game = _tree_bytes(ev.simulations, planes, actions) + (ev.max_plies + 2) * 8
        evaluation = max(evaluation, min(ev.games, DEFAULT_IN_FLIGHT) * per_game)
    return {
        "selfplay": selfplay,
        "replay": s.loop.replay_window * (planes * 2 + 160),  # float16 planes, steps
        "learner": _learner_bytes(s, planes, actions),
        "evaluation": evaluation,
    }


def _memory_keys(s: TrainSettings) -> list[str]:
    model = [
        f"model.{name}"
        for name, value in s.net_fields.items()
        if name not in INPUT_FIELDS and isinstance(value, int) and not isinstance(value, bool)
    ]
    return [*MEMORY_KEYS, *model]


def _largest_fitting(s: TrainSettings, key: str, room: int) -> int | None:
    """The largest value below the key's own that fits in ``room`` (None: none does)."""

    def fits(value: int) -> bool:
        try:
            return sum(memory_estimate(with_setting(s, key, value)).values()) <= room
        except (TypeError, ValueError):  # a value out of the key's own range
            return False

    value = int(setting(s, key))
    if value == 0 or not fits(0) and not fits(1):
        return None
    lo, hi = (0 if fits(0) else 1), value  # the largest v in [0, value) that fits: bisect
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return lo


def check_memory(s: TrainSettings, available: tuple[int, str] | None = None) -> None:
    """Refuse settings whose arrays do not fit in the memory available.

    The arrays are those :func:`memory_estimate` counts; the memory available is
    :func:`drl._system.available_memory`, or ``available``.

    The message names one key of :data:`MEMORY_KEYS` (or a ``model`` size field): of
    those that alone can make the run fit, the one furthest above its limit; the limit
    is the largest value that fits with the other settings as they are.

    Raises:
        ValueError: ``config KEY=VALUE: must be <= LIMIT on this machine ...``, with the
            estimate by part and the memory available (and where that figure is from).
    """
    from drl._system import available_memory

    got = available if available is not None else available_memory()
    if got is None:
        return
    room, source = got
    need = memory_estimate(s)
    total = sum(need.values())
    if total <= room:
        return
    best: tuple[float, str, int, int] | None = None
    for key in _memory_keys(s):
        limit = _largest_fitting(s, key, room)
        if limit is None:
            continue
        value = int(setting(s, key))
        ratio = value / max(limit, 1)
        if best is None or ratio > best[0]:
            best = (ratio, key, value, limit)
    parts = ", ".join(f"{k} {_fmt_bytes(v)}" for k, v in need.items() if v)
    why = (
        f"the run's arrays would take about {_fmt_bytes(total)} ({parts}) and "
        f"{_fmt_bytes(room)} is available ({source})"
    )
    if best is None:
        keys = ", ".join(_memory_keys(s))
        raise ValueError(
            f"config: too large for this machine's memory: {why}; no one of "
            f"{keys} alone can make it fit"
        )
    _, key, value, limit = best
    raise ValueError(
        f"config {key}={value!r}: must be <= {limit} on this machine (with the other "
        f"settings as they are): {why}"
    )
