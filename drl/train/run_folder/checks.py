"""Whether a configuration may continue what a run folder holds.

:func:`check_checkpoint` and :func:`check_config_file` refuse to continue a folder under
another game, encoding or network; :func:`refuse_without_checkpoint` refuses to start a
folder afresh when it holds work (:func:`~drl.train.run_folder.log.work_in`) that a new
network would be mixed with. Each error names both values.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from drl.nn.checkpoint import CheckpointError

if TYPE_CHECKING:
    pass

__all__ = ["check_checkpoint", "check_config_file", "encoding_of", "refuse_without_checkpoint"]

log = logging.getLogger(__name__)


def encoding_of(payload: Mapping[str, Any]) -> dict[str, int]:
    """The position encoding a checkpoint's network reads and writes.

    ``board_size``, ``channels`` (observation planes) and ``actions`` (policy outputs), from
    its ``encoding`` entry or else its ``net_config``; a value it does not record is -1.
    """
    enc = payload.get("encoding")
    if isinstance(enc, Mapping):
        return {k: int(enc.get(k, -1)) for k in ("board_size", "channels", "actions")}
    net = payload.get("net_config") or {}
    return {
        "board_size": int(net.get("board_size", -1)),
        "channels": int(net.get("in_channels", -1)),
        "actions": int(net.get("num_actions", -1)),
    }


def _fmt_encoding(enc: Mapping[str, int]) -> str:
    n = enc["board_size"]
    return f"{n}x{n} boards, {enc['channels']} observation planes, {enc['actions']} actions"


def _rules(spec: str) -> dict[str, Any]:
    """The rule flags of a variant string.

    The preset's name is left out: two spellings of one game are the same game.
    """
    from drl.rules import Variant

    v = Variant.parse(spec)
    return {f.name: getattr(v, f.name) for f in dataclasses.fields(v) if f.name != "name"}


def _check_variant(source: str, stored: str, wanted: str) -> None:
    try:
        same = _rules(stored) == _rules(wanted)
    except ValueError as err:
        raise ValueError(
            f"{source} records variant {stored!r}, which does not parse: {err}"
        ) from None
    if not same:
        raise ValueError(
            f"{source} is a run of variant {stored!r}; this config asks for "
            f"variant.spec={wanted!r}. A run keeps its game: use another run_dir, or "
            f"variant.spec={stored!r}"
        )


def check_checkpoint(
    path: Path,
    payload: Mapping[str, Any],
    variant_spec: str,
    encoding: Mapping[str, int],
    arch: str,
    net_config: Mapping[str, Any],
) -> None:
    """Check that the checkpoint a run continues from is of this run's game, encoding and network.

    Args:
        path: the checkpoint (for messages).
        payload: its payload (``variant``, ``encoding`` or ``net_config``, ``arch``).
        variant_spec: the config's ``variant.spec``.
        encoding: this run's ``board_size``, ``channels`` and ``actions``.
        arch: the architecture this run asks for (``model.arch``).
        net_config: the network fields this run asks for (see :func:`drl.nn.describe`).

    Raises:
        ValueError: naming the checkpoint, what it holds and what the config asks for
            (variant rules, encoding, architecture or network fields).
    """
    from drl.nn import check_compatible

    stored = payload.get("variant")
    if isinstance(stored, str):
        _check_variant(f"checkpoint {path}", stored, variant_spec)
    got = encoding_of(payload)
    if any(got[k] not in (-1, encoding[k]) for k in got):
        raise ValueError(
            f"checkpoint {path} encodes positions as {_fmt_encoding(got)}; this run "
            f"encodes {_fmt_encoding(encoding)}; a network of one encoding cannot continue "
            "in the other: use another run_dir"
        )
    try:
        check_compatible(payload, arch, net_config)
    except ValueError as err:
        raise ValueError(
            f"{path}: {err}; use another run_dir or the run's own model settings"
        ) from None


def check_config_file(path: Path, variant_spec: str, model: Mapping[str, Any]) -> None:
    """Check a run folder's ``config.yaml`` against the config that would continue it.

    Used when the folder has no checkpoint to go by. It must have the same variant rules,
    model architecture and model fields (the preset's ``name`` aside; a field one side lacks
    is not compared).

    Args:
        path: the folder's ``config.yaml``.
        variant_spec: the config's ``variant.spec``.
        model: the config's ``model`` node as a plain dict.

    Raises:
        ValueError: naming the file, the key and both values; or the file is unreadable.
    """
    from omegaconf import OmegaConf

    try:
        old = OmegaConf.to_container(OmegaConf.load(path))
    except Exception as err:  # omegaconf and yaml raise several types
        raise ValueError(f"{path} is unreadable ({err}); cannot tell which run it holds") from None
    if not isinstance(old, dict):
        raise ValueError(f"{path} does not hold a configuration; cannot tell which run it is")
    stored = (old.get("variant") or {}).get("spec")
    if isinstance(stored, str):
        _check_variant(str(path), stored, variant_spec)
    old_model = old.get("model") or {}
    for key in sorted(set(old_model) & set(model)):
        if key != "name" and old_model[key] != model[key]:
            raise ValueError(
                f"{path} is a run with model.{key}={old_model[key]!r}; this config asks for "
                f"model.{key}={model[key]!r}. Use another run_dir or the run's own model "
                "settings"
            )


def refuse_without_checkpoint(
    run_dir: Path, work: list[str], damaged: list[str], set_aside: list[Path]
) -> None:
    """Refuse to start a run folder afresh that holds work but no good checkpoint.

    A new network trained into such a folder would mix its games with the old ones,
    number its checkpoints, games and metrics over theirs, and play its first session's
    games from their seeds.

    Args:
        run_dir: the run folder.
        work: what it holds (:func:`work_in`).
        damaged: messages of the damaged checkpoints found (why each is damaged).
        set_aside: checkpoints set aside earlier as ``*.corrupt``.

    Raises:
        CheckpointError: always, saying what is there and what to do.
    """
    parts = list(work)
    if damaged:
        parts.append("damaged checkpoints:\n  " + "\n  ".join(damaged) + "\n")
    if set_aside:
        parts.append("checkpoints set aside as damaged: " + ", ".join(p.name for p in set_aside))
    raise CheckpointError(
        f"run folder {run_dir} holds " + "; ".join(parts) + " but no good checkpoint, so "
        "it cannot be continued, and starting it afresh would mix a new network's games "
        f"with these. Put a good checkpoint (with its .sha256) back into "
        f"{run_dir / 'checkpoints'}, or train in another run_dir."
    )
