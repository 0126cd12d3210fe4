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
from typing import TYPE_CHECKING

import hydra
from omegaconf import DictConfig

from drl.cli._configs import config_dir
from drl.eval.report import fmt_elo
from drl.train.config import register_configs

if TYPE_CHECKING:
    pass

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


def final_table(results: list, variant_spec: str):
    """The final evaluation's table, its title naming the agent spec that played."""
    agent = results[0].agent if results else ""
    return results_table(results, f"trained agent {agent} vs baselines, {variant_spec}")


def _run(cfg: DictConfig) -> None:
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode
    from rich.console import Console

    from drl.nn import TrainingDiverged
    from drl.nn.checkpoint import CheckpointError
    from drl.train.api import to_config
    from drl.train.config import train_settings
    from drl.train.loop import train
    from drl.train.run_folder import resolve_run_dir

    console = Console()
    hc = HydraConfig.get()
    job = hc.job.num if hc.mode == RunMode.MULTIRUN else None
    try:
        conf = to_config(cfg)
        settings = train_settings(conf)  # the one conversion, checked
        run_dir = resolve_run_dir(conf, job=job)
    except (ValueError, FileNotFoundError) as err:
        sys.exit(f"drl-train: {err}")
    console.print(f"[bold]drl-train[/] {conf.variant.spec} -> {run_dir}")
    try:
        result = train(settings, run_dir)
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
        console.print(final_table(result.final_eval, conf.variant.spec))


def _print_keys(argv: list[str]) -> None:
    """After Hydra's ``--help``: every key, its default and its meaning.

    The defaults are those of ``argv``'s overrides; the meanings come from the code's
    dataclasses (:mod:`drl.train.config_doc`).
    """
    from drl.train.config_doc import keys_text

    overrides = [a for a in argv if not a.startswith("-")]
    try:
        text = keys_text(overrides)
    except ValueError as err:  # the overrides do not compose: Hydra has said why
        print(f"(keys not listed: {err})")
        return
    print("\n== Keys: default and meaning ==\n" + text)


def main() -> None:
    """Console entry point."""
    from drl.cli._torch_logs import quiet_torch_exit_logs

    register_configs()
    argv = sys.argv[1:]
    try:
        hydra.main(config_path=CONFIG_DIR, config_name="config", version_base="1.3")(_run)()
    except SystemExit as done:
        if done.code in (0, None) and any(a in ("--help", "-h") for a in argv):
            _print_keys(argv)
        raise
    finally:
        quiet_torch_exit_logs()


if __name__ == "__main__":
    main()
