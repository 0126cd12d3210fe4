"""``drl.train(overrides, run_dir=None)``: ``drl-train`` from Python.

The same ``key=value`` overrides as ``drl-train``, composed through Hydra's compose API
from the same ``configs/``; with :func:`drl.eval.api.evaluate` (``drl.evaluate``) and
``drl.agents.make(spec)`` they are the Python twins of the command lines::

    import drl

    run = drl.train(["train=tiny", "variant=english"], run_dir="runs/first")
    run                    # TrainResult(run_dir='runs/first', iterations=2, games=8, ...)
    result = drl.evaluate([run.agent(sims=32), "random"], "english", games=8)
    result                 # Evaluation(english, 8 games: az:... 0.81 [...], random 0.19 [...])
    run.metrics()[-1]      # the last line of metrics.jsonl, a dict of scalars
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from drl.train.loop import TrainResult

if TYPE_CHECKING:
    from drl.train.config import Config

__all__ = ["TrainRun", "compose_config", "metrics", "to_config", "train"]


def compose_config(overrides: Sequence[str] = ()) -> Config:
    """The training configuration ``drl-train OVERRIDES...`` would run with, checked.

    Args:
        overrides: Hydra overrides as on the command line, e.g.
            ``["variant=english", "train=tiny", "train.max_minutes=2"]``.

    Returns:
        The :class:`~drl.train.config.Config` dataclass, checked by
        :func:`~drl.train.config.train_settings` (which :func:`train` calls once
        instead).

    Raises:
        ValueError: an override that does not parse, names an unknown key or group
            option, or a value out of its range (the message names the key).
    """
    from drl.train.config import train_settings

    cfg = _composed(overrides)
    train_settings(cfg)
    return cfg


def _composed(overrides: Sequence[str]) -> Config:
    """:func:`compose_config` without the checks that span several keys."""
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    from drl._paths import config_dir
    from drl.train.config import register_configs

    if isinstance(overrides, str):
        raise TypeError(f"overrides must be a list of key=value strings, got {overrides!r}")
    register_configs()
    was = GlobalHydra.instance().is_initialized()
    if was:  # inside a Hydra application: compose beside it
        GlobalHydra.instance().clear()
    try:
        with initialize_config_dir(config_dir=config_dir(), version_base="1.3"):
            dict_cfg = compose(config_name="config", overrides=list(overrides))
    except (HydraException, OmegaConfBaseException) as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise ValueError(f"overrides {list(overrides)}: {first}") from None
    return to_config(dict_cfg)


def _failing_node(node: Any, group: str = "") -> tuple[str, Any]:
    """The innermost node of ``node`` that OmegaConf cannot build, with its dotted key."""
    from omegaconf import DictConfig, OmegaConf

    for name in map(str, node):
        child = node[name]
        if isinstance(child, DictConfig):
            try:
                OmegaConf.to_object(child)
            except ValueError:
                return _failing_node(child, f"{group}.{name}" if group else name)
    return group, node


def to_config(cfg: Any) -> Config:
    """The composed (Hydra) config as the ``base_config`` schema's dataclass.

    Args:
        cfg: the ``DictConfig`` Hydra composed (``drl-train``, or ``drl.train``).

    Raises:
        ValueError: from a node's own checks, under its key
            (``config runtime.actors=0: must lie in [1, 1024]``).
    """
    from omegaconf import OmegaConf

    from drl.train.config import config_error

    try:
        return cast("Config", OmegaConf.to_object(cfg))
    except ValueError as err:
        group, node = _failing_node(cfg)
        prefix = f"{group}." if group else ""
        keys = {n: (f"{prefix}{n}", node[n]) for n in map(str, node)}
        raise config_error(err, keys, group) from None


def train(
    overrides: Sequence[str] = (),
    run_dir: str | os.PathLike | None = None,
    *,
    progress: bool | None = None,
) -> TrainRun:
    """Train as ``drl-train OVERRIDES... run_dir=RUN_DIR`` does, and return the result.

    Args:
        overrides: the same ``key=value`` overrides as ``drl-train``
            (:func:`compose_config`), e.g. ``["train=tiny"]``.
        run_dir: the run folder (created, or continued if it holds a checkpoint); None:
            ``run_dir=`` of the overrides, or a new ``runs/<variant>-<time>`` folder.
        progress: show progress (a bar on a terminal, one line per iteration
            elsewhere); None: the config's ``progress``.

    Returns:
        :class:`TrainRun`, a :class:`~drl.train.loop.TrainResult` whose repr is one line;
        ``result.agent()`` is its network's agent spec, ``result.metrics()`` the rows
        of its ``metrics.jsonl``.

    Raises:
        ValueError: a bad override (naming the key), or a run folder of another variant
            or network.
        TrainingDiverged: the training diverged (``drl.train.TrainingDiverged``).
        CheckpointError: the run folder's checkpoints are damaged.
        RunFolderError: the run folder cannot be written, or another process trains
            in it.
        RuntimeError: called at the top level of a script that a self-play worker
            process is importing (put the call under ``if __name__ == "__main__":``).
    """
    from drl._system import check_not_in_worker_import
    from drl.train.config import train_settings

    check_not_in_worker_import("drl.train")
    from drl.train.loop import train as train_loop
    from drl.train.run_folder import resolve_run_dir

    cfg = _composed(overrides)
    if run_dir is not None:
        cfg.run_dir = str(run_dir)
    settings = train_settings(cfg)  # the one conversion, checked
    result = train_loop(settings, resolve_run_dir(cfg), progress=progress)
    return TrainRun(**{f.name: getattr(result, f.name) for f in fields(result)})


class TrainRun(TrainResult):
    """:class:`~drl.train.loop.TrainResult` with what a script does next with a run."""

    def agent(self, sims: int = 200) -> str:
        """The agent spec of the run's network with ``sims`` search simulations.

        Raises:
            ValueError: the run has no checkpoint.
        """
        if self.checkpoint is None:
            raise ValueError(f"{self.run_dir}: the run has no checkpoint")
        return f"az:ckpt={self.checkpoint},sims={sims}"

    def metrics(self) -> list[dict[str, float]]:
        """The rows of the run's ``metrics.jsonl`` (:func:`metrics`)."""
        return metrics(self.run_dir)


def metrics(run_dir: str | os.PathLike) -> list[dict[str, float]]:
    """The rows of a run's ``metrics.jsonl``: one dict of scalars per line.

    Each iteration's row has ``iteration``, ``wall_minutes``, ``loss/loss``,
    ``replay/games`` and the others listed in :mod:`drl.train.loop`; the final
    evaluation's row comes last.

    Raises:
        FileNotFoundError: the run has no ``metrics.jsonl``.
    """
    path = Path(run_dir) / "metrics.jsonl"
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]
