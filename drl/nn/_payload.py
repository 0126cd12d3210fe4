"""Checks of a checkpoint's payload before anything is built from it.

A checkpoint's digest says that the file is the one that was written, not that what was
written is sound: a payload can be well-formed pickle and still hold a list where a
mapping belongs, a training config that is not YAML, or the config of a network far
larger than its weights. Each check here raises one
:class:`~drl.nn.errors.CheckpointError` naming the file and the key.

- :func:`check_payload`: the types of the keys every reader uses (``model``,
  ``net_config``, ``counters``, ``arch``, ``variant``, ``config_yaml`` and the versions);
  :func:`drl.nn.checkpoint.load_checkpoint` applies it to every file it reads.
- :func:`check_field_types`: the types of a stored network config's fields; with it,
  :func:`drl.nn.load` checks the stored architecture and sizes against the limits of the
  architecture's config class (the ones ``drl-train`` applies), the state dict's names and
  shapes against those of the network the config describes (built on torch's ``meta``
  device, which allocates nothing), and the network's size against the memory available,
  before it builds the network.
- :func:`stored_search`: the ``search`` settings of the stored training config.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from typing import Any

from drl.nn.errors import CheckpointError

__all__ = ["check_field_types", "check_payload", "stored_config", "stored_search"]

_OPTIONAL_TEXT = ("arch", "variant", "config_yaml", "code_version", "drl_version")


def _kind(value: Any) -> str:
    """``a list``, ``a str``...: the type of a value, for messages."""
    name = type(value).__name__
    return f"an {name}" if name[:1] in "aeiou" else f"a {name}"


def check_payload(payload: Any, source: str, required: tuple[str, ...]) -> None:
    """Check the types of a checkpoint payload's keys.

    Args:
        payload: what the file unpickled to.
        source: the file, for messages (``"checkpoint runs/x/ckpt-00000003.pt"``).
        required: keys that must be present.

    Raises:
        CheckpointError: the payload is not a dict or lacks a required key; ``model`` is
            not a mapping of names to tensors; ``net_config`` or ``counters`` is not a
            mapping with string keys; ``arch``, ``variant``, ``config_yaml``,
            ``code_version`` or ``drl_version`` is present but not a string; or
            ``config_yaml`` is not a YAML mapping (see :func:`stored_config`).
    """
    import torch

    if not isinstance(payload, dict) or any(k not in payload for k in required):
        raise CheckpointError(f"{source} is not a drl checkpoint (needs keys {list(required)})")
    model = payload.get("model")
    if model is not None:
        if not isinstance(model, Mapping):
            raise CheckpointError(
                f"{source}: model must be a state dict (a mapping of names to tensors), "
                f"got {_kind(model)}"
            )
        for name, tensor in model.items():
            if not isinstance(name, str) or not isinstance(tensor, torch.Tensor):
                raise CheckpointError(
                    f"{source}: model must map names to tensors; entry {str(name)[:80]!r} "
                    f"is {_kind(tensor)}"
                )
    for key in ("net_config", "counters"):
        value = payload.get(key)
        if value is not None and (
            not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value)
        ):
            raise CheckpointError(
                f"{source}: {key} must be a mapping of names to values, got {_kind(value)}"
            )
    for key in _OPTIONAL_TEXT:
        value = payload.get(key)
        if value is not None and not isinstance(value, str):
            raise CheckpointError(f"{source}: {key} must be a string, got {_kind(value)}")
    stored_config(payload, source)


def stored_config(payload: Mapping[str, Any], source: str) -> dict[str, Any]:
    """The training config stored in ``config_yaml``, as plain data (``{}`` without one).

    The text is read with YAML's safe loader: nothing in it is resolved or run
    (an OmegaConf interpolation stays a string).

    Raises:
        CheckpointError: ``config_yaml`` is not a string, not YAML, or not a mapping at
            the top, or its ``search`` is not a mapping.
    """
    import yaml  # type: ignore[import-untyped]

    text = payload.get("config_yaml")
    if text is None or text == "":
        return {}
    if not isinstance(text, str):
        raise CheckpointError(f"{source}: config_yaml must be a string, got {_kind(text)}")
    try:
        root = yaml.safe_load(text)
    except yaml.YAMLError as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise CheckpointError(f"{source}: config_yaml is not YAML ({first})") from None
    if root is None:
        return {}
    if not isinstance(root, dict):
        raise CheckpointError(
            f"{source}: config_yaml must hold the training config (a mapping), got {_kind(root)}"
        )
    search = root.get("search")
    if search is not None and not isinstance(search, dict):
        raise CheckpointError(
            f"{source}: config_yaml key search must be a mapping of search settings, got "
            f"{_kind(search)}"
        )
    return root


def stored_search(payload: Mapping[str, Any], source: str, names: typing.Iterable[str]) -> dict:
    """The stored ``search`` settings among ``names`` (the fields of the search config).

    Raises:
        CheckpointError: as :func:`stored_config`.
    """
    search = stored_config(payload, source).get("search") or {}
    wanted = set(names)
    return {k: v for k, v in search.items() if k in wanted}


def check_field_types(cls: type, cfg: Mapping[str, Any], source: str, arch: str) -> None:
    """Refuse a stored size that is not of its field's type (a bool or float for an int)."""
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        if f.name not in cfg:
            continue
        value, hint = cfg[f.name], hints.get(f.name)
        if hint is bool:
            ok = isinstance(value, bool)
        elif hint is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
        else:
            continue
        if not ok:
            raise CheckpointError(
                f"{source}: net_config {f.name} of arch {arch!r} must be "
                f"{'an int' if hint is int else 'a bool'}, got {value!r}"
            )
