r"""``drl-eval``: matches, tournaments and ratings between agents (Hydra).

Examples::

    drl-eval variant=give_and_take agents='[alphabeta:depth=4,mcts:sims=400,random]' games=100
    drl-eval format=gauntlet agents='[az:ckpt=runs/gt-1,alphabeta:depth=4,random]'
    drl-eval variant=give_and_take:max_capture=true format=halftime \
        agents='[alphabeta:depth=4,greedy]' games=20
    drl-eval variant=losing format=pool agents='[alphabeta:depth=2,greedy,random]' lives=3
    drl-eval format=sprt agents='[alphabeta:depth=5,alphabeta:depth=4]' sprt.elo1=50

Formats: ``round_robin`` (every pair plays ``games`` games) and ``gauntlet`` (the first
agent against each other one) end with maximum-likelihood Elo (``anchor`` = 0);
``halftime`` is a Give and Take match of ``games`` games (an even number) with roles
switched at halftime; ``pool`` is pool play with ``lives`` (``docs/rules.md``, "Match formats");
``sprt`` plays the first agent against the second in batches of ``games`` (use an even number) until
the SPRT on game pairs (pentanomial: same opening, colours and roles swapped) decides.

Every two games start from a new opening (distinct seeded random openings of ``openings``
plies, 4 by default) with colours swapped; in Give and Take the two have the same Taker
colour (each agent plays each role from it once) and the next opening the other one.
Where the variant's endgame database is on disk (``drl-egtb build``), a game that
reaches a position it decides ends with the exact result (PDN ``Termination
"database"``, counted as ``database`` in ``results.json`` and the pairs table);
``egtb=false`` plays every game out. A progress bar runs
while games are played; a table is printed at the end; ``results.json``, ``games.pdn``
and ``elo.png`` are written to the Hydra run folder: beside the run evaluated
(``<run>/eval/<date>_<time>``, the run of the first agent that plays from a checkpoint,
``ckpt=``), else ``outputs/eval/<date>/<time>``; ``hydra.run.dir=PATH`` chooses another
(``-1``, ``-2``, ... are added for a second run started in the same second; checked and locked
before anything runs: a folder another run is writing to, or holding an earlier run's
``results.json``, is refused). Games are saved as they finish (``games.pdn`` game by
game, ``results.json`` every few seconds); Ctrl-C or SIGTERM, at any moment from
start-up to the last file, prints the tables of the games finished so far ("interrupted
after N of M games"), writes both files with them and exits with 130 (SIGINT) or 143
(SIGTERM); an error (a full disk included) is one line and exit status 1. Counts are
bounded (``games`` at most ``drl.eval.limits.MAX_GAMES`` in all, and the other
``MAX_*``): a larger one is refused at once, naming the key and the limit.

Agent specs contain ``=``, which Hydra's override grammar does not allow inside an
unquoted list, so ``agents=[...]`` is quoted for Hydra before it parses the command line
(a spec's own ``param=value`` items after the first stay with that spec). Likewise
``variant=name:flag=value,...`` selects the ``variant/name`` config and sets
``variant.spec`` to the full string.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from drl._atomic import error_line
from drl.cli._configs import config_dir
from drl.cli._output_folder import (
    LOCK_NAME,
    claim_output_dir,
    fresh_folder,
    refuse_earlier_results,
    release_output_dir,
    release_output_dirs,
)
from drl.cli._signals import StopSignals, Terminated, exit_status
from drl.cli._torch_logs import quiet_torch_exit_logs
from drl.eval.config import EvalConfig, planned_games

if TYPE_CHECKING:
    from omegaconf import DictConfig

    from drl.eval.records import GameRecord

__all__ = [
    "LOCK_NAME",
    "EvalConfig",
    "OutputDirCheck",
    "Terminated",
    "claim_output_dir",
    "main",
    "planned_games",
    "quote_overrides",
    "release_output_dir",
    "run",
]

CONFIG_DIR = config_dir()

_STOP = StopSignals()


def _register() -> None:
    from hydra.core.config_store import ConfigStore

    ConfigStore.instance().store(name="eval_schema", node=EvalConfig)


def _split_specs(body: str) -> list[str]:
    """Split a list of agent specs: ``a:x=1,b:y=2,z=3,c`` -> ``["a:x=1", "b:y=2,z=3", "c"]``.

    An item whose text before its first ``=`` has no ``:`` is another parameter of the
    previous spec. Commas inside quotes (``args='-a 1,2'``) do not split.
    """
    from drl.agents.registry import split_items

    specs: list[str] = []
    for item in filter(None, (p.strip() for p in split_items(body))):
        head = item.split("=", 1)[0]
        if specs and "=" in item and ":" not in head:
            specs[-1] += "," + item
        else:
            specs.append(item)
    return specs


def quote_overrides(argv: list[str]) -> list[str]:
    """Rewrite ``agents=[...]`` and ``variant=name:flags`` for Hydra (see module doc)."""
    out = []
    for arg in argv:
        key, eq, value = arg.partition("=")
        if (
            eq
            and key == "agents"
            and value.startswith("[")
            and value.endswith("]")
            and value[1:].lstrip()[:1] not in ("'", '"')
        ):
            items = _split_specs(value[1:-1])
            quoted = (s.replace('"', '\\"') for s in items)
            out.append("agents=[" + ",".join(f'"{s}"' for s in quoted) + "]")
        elif eq and key == "variant" and ":" in value and '"' not in value:
            name = value.split(":", 1)[0].strip()
            out += [f"variant={name}", f'variant.spec="{value}"']
        else:
            out.append(arg)
    return out


def run(
    cfg: EvalConfig,
    out_dir: Path,
    on_record: Callable[[GameRecord], None] | None = None,
) -> dict:
    """Play what ``cfg`` asks for, print tables and write results to ``out_dir``.

    The folder is locked for the run (``flock`` on the folder; ``.lock`` names the pid):
    another evaluation writing there is refused. Every game is kept as it finishes: it
    is appended to ``games.pdn`` (flushed), and ``results.json`` is rewritten atomically
    with the games so far every few seconds (``"status": "running"``,
    ``games_finished``, ``games_planned``). At the end both files are rewritten whole,
    the games in order (``"status": "complete"``). If the evaluation is interrupted
    (``KeyboardInterrupt``: Ctrl-C, or SIGTERM under ``drl-eval``) or fails at any point
    from its first file to the last (building agents, playing, rating, printing tables,
    writing the files), the tables of the games finished so far are printed, marked
    ``interrupted after N of M games``, both files are written with those games
    (``"status": "interrupted"`` or ``"failed"``; a file that cannot be written, as on a
    full disk, is named instead), and the exception is raised again. Signals that come
    while the final ``results.json`` is written wait for it (``drl-eval`` then exits with
    their status). The work is :func:`drl.eval.evaluation.evaluate`'s.

    Args:
        cfg: the evaluation (checked by the caller: :func:`drl.eval.checks.check_config`).
        out_dir: folder for ``results.json``, ``games.pdn`` and ``elo.png`` (created;
            files of an earlier run there are replaced: ``drl-eval`` refuses such a
            folder first).
        on_record: called with each finished game once it has been saved.

    Returns:
        The results dict written to ``results.json``.

    Raises:
        ValueError: ``out_dir`` or a file in it cannot be written, or another evaluation
            is writing there (before any game, naming the path), or what the match
            functions raise (bad agents...).
        KeyboardInterrupt: the evaluation was interrupted (after writing what it had).
    """
    from drl.cli._output import check_writable_dir, check_writable_file
    from drl.eval import evaluation

    check_writable_dir(out_dir)
    for name in ("results.json", "games.pdn") + (("elo.png",) if cfg.plot else ()):
        check_writable_file(out_dir / name)
    took = claim_output_dir(out_dir)
    try:
        return evaluation.evaluate(cfg, out_dir, _STOP, on_record)
    finally:
        if took:
            with _STOP.hold():
                release_output_dir(out_dir)


class _RunState:
    """What the Hydra callback did for this process's run (see :class:`OutputDirCheck`)."""

    folder: str | None = None  # the output folder claimed
    created: bool = False  # made by the callback (the default, unique folder)
    hydra_subdir: str | None = None  # Hydra's config files, written by ``_task`` instead


_RUN = _RunState()


def _nothing(*args: Any, **kwargs: Any) -> None:
    return None


class OutputDirCheck:
    """Hydra callback that checks and locks ``drl-eval``'s run folder before Hydra writes anything.

    It is named in ``hydra.callbacks`` of ``configs/eval.yaml``. For ``drl-eval``'s run
    folder, ``hydra.run.dir``:

    - the default one (``outputs/eval/<date>/<time>``, not given on the command line) is
      made unique: created here, with ``-1``, ``-2``, ... added when it exists (two runs
      started in the same second);
    - a folder that cannot be written is refused, naming the key, instead of a
      traceback from Hydra creating it;
    - the folder is locked for the run (:func:`claim_output_dir`): a second ``drl-eval``
      with the same folder is refused, naming the pid of the first;
    - a folder holding an earlier evaluation's ``results.json`` is refused;
    - Hydra's own config files (``.hydra/``) are written by ``drl-eval`` after this, so
      that a full disk there ends in one line, not a traceback.

    In a multirun only the writability of ``hydra.sweep.dir`` is checked here; each job's
    folder is locked by :func:`run`.
    """

    def _folder(self, config: DictConfig, key: str) -> str | None:
        from omegaconf import OmegaConf

        try:
            folder = OmegaConf.select(config, key)
        except Exception:  # an interpolation only Hydra resolves later: Hydra reports it
            return None
        return None if folder is None else str(folder)

    def _beside_run(self, config: DictConfig) -> str | None:
        """``<run>/eval/<date>_<time>`` for the run of the first agent with a checkpoint.

        None when no agent names one (``ckpt=``) or the run's folder does not exist.
        """
        from omegaconf import OmegaConf

        agents = OmegaConf.select(config, "agents", default=None) or []
        for spec in agents:
            run = checkpoint_run(str(spec))
            if run is not None:  # (Hydra's ``now`` resolver: the time of its run folders)
                when = OmegaConf.create({"t": "${now:%Y-%m-%d_%H-%M-%S}"}).t
                return str(run / "eval" / str(when))
        return None

    def on_run_start(self, config: DictConfig, **kwargs: Any) -> None:
        """Make ``hydra.run.dir`` unique when defaulted, check it, lock it, refuse old results.

        When it is defaulted and an agent plays from a checkpoint, the folder is
        ``<run>/eval/<date>_<time>`` beside that checkpoint's run (see
        :func:`checkpoint_run`) instead of ``outputs/eval/<date>/<time>``.

        Exits with ``drl-eval: <message>`` (status 1) when the folder cannot be used.
        """
        from omegaconf import OmegaConf, open_dict, read_write

        from drl.cli._output import check_writable_dir

        key = "hydra.run.dir"
        folder = self._folder(config, key)
        if folder is None:
            return
        given = OmegaConf.select(config, "hydra.overrides.hydra", default=None) or []
        chosen = any(str(o).split("=", 1)[0].lstrip("+~") == key for o in given)
        try:
            if not chosen:
                folder = str(fresh_folder(self._beside_run(config) or folder, key))
                _RUN.created = True
                with read_write(config.hydra), open_dict(config.hydra):
                    config.hydra.run.dir = folder
            check_writable_dir(folder, key)
            claim_output_dir(folder, key)
            _RUN.folder = folder
            refuse_earlier_results(folder, key)
        except ValueError as err:
            sys.exit(f"drl-eval: {err}")
        subdir = OmegaConf.select(config, "hydra.output_subdir", default=None)
        if subdir is not None:
            _RUN.hydra_subdir = str(subdir)
            with read_write(config.hydra), open_dict(config.hydra):
                config.hydra.output_subdir = None

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        """Check that ``hydra.sweep.dir`` can be written; exit with ``drl-eval: <message>``."""
        from drl.cli._output import check_writable_dir

        folder = self._folder(config, "hydra.sweep.dir")
        if folder is None:
            return
        try:
            check_writable_dir(folder, "hydra.sweep.dir")
        except ValueError as err:
            sys.exit(f"drl-eval: {err}")

    def __getattr__(self, name: str) -> Callable[..., None]:
        if name.startswith("on_"):  # Hydra's other callback hooks: nothing to do
            return _nothing
        raise AttributeError(name)


def checkpoint_run(spec: str) -> Path | None:
    """The run folder an agent spec's checkpoint belongs to, or None.

    ``ckpt=runs/x`` (a run folder) gives ``runs/x``; ``ckpt=runs/x/checkpoints/ckpt-8.pt``
    gives ``runs/x``; ``ckpt=experiments/e/agent.pt`` gives ``experiments/e``. None when
    the spec names no checkpoint or the folder does not exist (the agent's own check then
    reports the path).
    """
    from drl.agents.registry import split_items

    _, _, params = spec.partition(":")
    for item in split_items(params):
        key, eq, value = item.strip().partition("=")
        if eq and key.strip() == "ckpt" and value.strip():
            path = Path(value.strip().strip("'\"")).expanduser()
            run = path if path.is_dir() else path.parent
            if run.name == "checkpoints" and not path.is_dir():
                run = run.parent
            return run if run.is_dir() else None
    return None


def _save_hydra_files(cfg: DictConfig, out_dir: Path) -> None:
    """Write ``.hydra/config.yaml``, ``hydra.yaml`` and ``overrides.yaml`` as Hydra would have.

    The callback turned Hydra's own writing off. Raises ValueError naming the file that
    cannot be written.
    """
    import copy

    from hydra.core.hydra_config import HydraConfig
    from omegaconf import OmegaConf, open_dict, read_write

    if _RUN.hydra_subdir is None:
        return
    hydra_cfg = cast("DictConfig", copy.deepcopy(HydraConfig.instance().cfg))  # {"hydra": ...}
    with read_write(hydra_cfg.hydra), open_dict(hydra_cfg.hydra):
        hydra_cfg.hydra.output_subdir = _RUN.hydra_subdir
    folder = out_dir / _RUN.hydra_subdir
    for name, node in (
        ("config.yaml", cfg),
        ("hydra.yaml", hydra_cfg),
        ("overrides.yaml", hydra_cfg.hydra.overrides.task),
    ):
        path = folder / name
        try:
            folder.mkdir(parents=True, exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(OmegaConf.to_yaml(node))
        except OSError as err:
            with contextlib.suppress(OSError):
                path.unlink()
            raise ValueError(f"{path}: cannot write the run's config ({error_line(err)})") from None


def _task(cfg: DictConfig) -> None:
    """``drl-eval``'s Hydra task: check the config, save it, run.

    Every exit is a line and an exit status (1 for errors, 130 / 143 for SIGINT / SIGTERM).
    """
    from hydra.core.hydra_config import HydraConfig
    from omegaconf import OmegaConf

    from drl.eval import checks, evaluation

    out_dir = Path(HydraConfig.get().runtime.output_dir)
    conf: EvalConfig | None = None
    _STOP.reported = False
    try:
        conf = cast("EvalConfig", OmegaConf.to_object(cfg))  # the eval_schema's dataclass
        _save_hydra_files(cfg, out_dir)
        checks.check_config(conf)
        run(conf, out_dir)
    except KeyboardInterrupt as err:
        if conf is None:
            raise  # (main reports it)
        if not _STOP.reported:  # stopped before run made its journal
            with _STOP.hold():
                try:
                    head, console = evaluation.header(conf), evaluation.make_console()
                    evaluation.report_unplayed(conf, out_dir, head, console, err)
                except Exception as why:
                    print(f"drl-eval: could not save the results ({why})", file=sys.stderr)
        sys.exit(exit_status(err))
    except (ValueError, RuntimeError, OSError) as err:
        sys.exit(f"drl-eval: {error_line(err)}")


def _interrupted_at_start() -> None:
    """Ctrl-C before the config was read: say so, and leave no empty folder of ours."""
    from drl.cli._signals import INTERRUPTED_AT_START

    print(INTERRUPTED_AT_START, file=sys.stderr)
    folder = _RUN.folder
    if folder is not None:
        release_output_dir(folder)
        if _RUN.created:
            with contextlib.suppress(OSError):
                os.rmdir(folder)  # only when empty


def main() -> None:
    """Console entry point (``drl-eval``).

    The SIGINT / SIGTERM handler is installed before anything else (Hydra, the config,
    the agents) and stays until the process exits, so that every exit is one of
    ``drl-eval``'s: complete (0), an error (1, one line), or interrupted (130 / 143,
    with "interrupted after N of M games" and the files written once the folder is
    known).
    """
    _STOP.install()
    status: int | None = None
    try:
        import hydra

        _register()
        sys.argv[1:] = quote_overrides(sys.argv[1:])
        hydra.main(version_base=None, config_path=CONFIG_DIR, config_name="eval")(_task)()
    except KeyboardInterrupt as err:
        with _STOP.hold():
            _interrupted_at_start()
        status = exit_status(err)
    finally:
        _STOP.holding = True  # from here on a signal only sets the exit status
        release_output_dirs()
        quiet_torch_exit_logs()  # before torch's exit functions log at INFO
    if status is None and _STOP.received is not None:
        status = 128 + _STOP.received  # it came while the results were written
    for sig in (signal.SIGINT, signal.SIGTERM):  # done: no signal ends the exit itself (at
        signal.signal(sig, signal.SIG_IGN)  # shutdown Python would restore the defaults)
    if status is not None:
        sys.exit(status)


if __name__ == "__main__":
    # ``python -m drl.cli.eval``: run the module's own copy, the one Hydra's callback
    # (``drl.cli.eval.OutputDirCheck``) imports, so that both share one state
    from drl.cli.eval import main as _main_of_the_module

    _main_of_the_module()
