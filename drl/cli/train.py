"""``drl-train``: AlphaZero-style self-play training (Hydra).

Examples::

    drl-train                                   # give_and_take, ~10 min on 2 CPU cores
    drl-train variant=english model=medium search=puct train.iterations=50
    drl-train run_dir=runs/gt-1                 # continue that run if it exists
    drl-train resume=true                       # continue the newest run of the variant
    drl-train runtime=ray runtime.actors=4      # self-play in Ray actors
    drl-train --multirun search=gumbel,puct seed=0,1

The configs are the repository's ``configs/`` folder (groups ``variant``, ``model``,
``search``, ``train``, ``runtime``); this works from any working directory with the
package installed in editable mode. The run ends with a table of the trained network
against the baselines of ``train.final_eval`` in both colours and (Give and Take) roles.
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, cast

import hydra
from omegaconf import DictConfig, OmegaConf

from drl.cli._configs import config_dir
from drl.eval.report import fmt_elo
from drl.train.config import register_configs

if TYPE_CHECKING:
    from drl.train.config import Config

CONFIG_DIR = config_dir()


def results_table(results: list, title: str):
    """A rich table of :class:`~drl.train.evaluate.BaselineResult` s (by role and colour)."""
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for col in ("opponent", "as", "games", "W-D-L", "score", "95% CI", "Elo"):
        table.add_column(
            col, justify="left" if col in ("opponent", "as") else "right", no_wrap=True
        )
    for r in results:
        keys = [k for k in ("all", "taker", "giver", "black", "white") if k in r.summary]
        for key in keys:
            w = r.summary[key]
            lo, hi = w.score_interval
            table.add_row(
                r.baseline if key == "all" else "",
                key,
                str(w.games),
                f"{w.wins}-{w.draws}-{w.losses}",
                f"{w.score:.2f}",
                f"{lo:.2f}-{hi:.2f}",
                fmt_elo(w.elo),
            )
    return table


def _failing_node(node: DictConfig, group: str = "") -> tuple[str, DictConfig]:
    """The innermost node of ``node`` that OmegaConf cannot build, with its dotted key."""
    for name in map(str, node):
        child = node[name]
        if isinstance(child, DictConfig):
            try:
                OmegaConf.to_object(child)
            except ValueError:
                return _failing_node(child, f"{group}.{name}" if group else name)
    return group, node


def _typed(cfg: DictConfig) -> Config:
    """The composed config as the base_config schema's dataclass (:class:`Config`).

    Raises:
        ValueError: from a node's own checks, under its key
            (``config runtime.actors=0: must lie in [1, 1024]``).
    """
    from drl.train.config import config_error

    try:
        return cast("Config", OmegaConf.to_object(cfg))
    except ValueError as err:
        group, node = _failing_node(cfg)
        prefix = f"{group}." if group else ""
        keys = {n: (f"{prefix}{n}", node[n]) for n in map(str, node)}
        raise config_error(err, keys, group) from None


def _run(cfg: DictConfig) -> None:
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode
    from rich.console import Console

    from drl.nn import TrainingDiverged
    from drl.nn.checkpoint import CheckpointError
    from drl.train.config import validate
    from drl.train.loop import resolve_run_dir, train

    console = Console()
    hc = HydraConfig.get()
    job = hc.job.num if hc.mode == RunMode.MULTIRUN else None
    try:
        conf = _typed(cfg)
        validate(conf)
        run_dir = resolve_run_dir(conf, job=job)
    except (ValueError, FileNotFoundError) as err:
        sys.exit(f"drl-train: {err}")
    console.print(f"[bold]drl-train[/] {conf.variant.spec} -> {run_dir}")
    try:
        result = train(conf, run_dir)
    except (ValueError, CheckpointError, RuntimeError, TrainingDiverged) as err:
        sys.exit(f"drl-train: {err}")
    except OSError as err:  # e.g. the disk filled up: the message names the file
        sys.exit(f"drl-train: {run_dir}: {err}")
    except KeyboardInterrupt:
        print(
            f"drl-train: interrupted; every finished game is saved in {run_dir}. To go on, "
            f"run again with run_dir={run_dir} and the same overrides (the run's settings "
            f"are in {Path(run_dir) / 'config.yaml'})",
            file=sys.stderr,
        )
        sys.exit(128 + signal.SIGINT)
    if result.finished_before:
        console.print(
            f"nothing to do: the run is finished (iteration {result.iterations} of "
            f"{conf.train.iterations}); checkpoint {result.checkpoint}. To train on, "
            "raise train.iterations (or train.max_minutes)"
        )
        return
    console.print(
        f"{result.iterations} iterations, {result.learner_steps} learner steps, "
        f"{result.games} games, {result.positions} positions; "
        f"checkpoint {result.checkpoint}"
    )
    if result.final_eval:
        sims = conf.train.final_eval.simulations
        console.print(
            results_table(
                result.final_eval,
                f"trained network (search {sims} sims) vs baselines, {conf.variant.spec}",
            )
        )


def main() -> None:
    """Console entry point."""
    register_configs()
    hydra.main(config_path=CONFIG_DIR, config_name="config", version_base="1.3")(_run)()


if __name__ == "__main__":
    main()
