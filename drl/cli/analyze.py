"""``drl-analyze``: analyse trained agents and write the report.

    drl-analyze runs/english runs/give_and_take --out report/
    drl-analyze runs/english --out report/ --sims 64 --games 32
    drl-analyze --summaries report/summary.json --out report2/   # re-render, no games

Each RUN is a run folder (``drl-train run_dir=...``; its newest good checkpoint) or a
checkpoint file. Each is analysed by :func:`drl.analysis.analyze_run` (self-play at
``--sims`` simulations, material values, first moves, style, and the endgame accuracy
where the variant's endgame database is on disk: ``drl-egtb build``), then
:func:`drl.analysis.report.write_report` writes ``index.html`` (self-contained),
``report.md`` and ``summary.json`` into ``--out``.

Exit status: 0 done, 2 bad arguments or input (one line on stderr), 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from drl._configs import DEFAULT_MAX_PLIES

__all__ = ["main", "run_name"]

PROG = "drl-analyze"


def _count(minimum: int, maximum: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(f"{value} is outside [{minimum}, {maximum:,}]")
        return value

    return parse


def _path(text: str) -> str:
    """A path argument with ``~`` expanded (the shell leaves ``--out=~/x`` as it is)."""
    return os.path.expanduser(text)


class _Parser(argparse.ArgumentParser):
    """Bad arguments are one line (``--help`` gives the usage)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        _fail(f"{message} (see --help)")


def _parser() -> argparse.ArgumentParser:
    ap = _Parser(prog=PROG, description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "runs", nargs="*", type=_path, metavar="RUN", help="run folders or checkpoint files"
    )
    ap.add_argument("--out", required=True, type=_path, help="report folder (created)")
    ap.add_argument(
        "--sims",
        type=_count(1, 100_000),
        default=64,
        help="search simulations per step in the agent's self-play (64)",
    )
    ap.add_argument(
        "--games", type=_count(1, 100_000), default=32, help="self-play games per run (32)"
    )
    ap.add_argument(
        "--openings", type=_count(0, 40), default=4, help="plies of each seeded random opening (4)"
    )
    ap.add_argument("--max-plies", type=_count(1, 100_000), default=DEFAULT_MAX_PLIES)
    ap.add_argument("--seed", type=_count(0, 2**32 - 1), default=0)
    ap.add_argument(
        "--workers",
        type=_count(1, 256),
        default=None,
        help="processes playing the self-play games (default: every usable CPU)",
    )
    ap.add_argument("--threads", type=_count(1, 256), default=1, help="torch threads (1)")
    ap.add_argument(
        "--human-games",
        default=None,
        type=_path,
        metavar="DIR",
        help="folder of PDN folders per variant (default ../shared/data/games)",
    )
    ap.add_argument(
        "--sample-games", type=_count(0, 100), default=3, help="sample games drawn per run (3)"
    )
    ap.add_argument(
        "--summaries",
        nargs="+",
        default=[],
        type=_path,
        metavar="JSON",
        help="summary.json files to include as they are (no new games)",
    )
    ap.add_argument(
        "--tables",
        default=None,
        type=_path,
        metavar="JSON",
        help="extra tables: a JSON list of [title, [row dicts]]",
    )
    ap.add_argument("--title", default="drl analysis")
    return ap


def run_name(source: str | Path) -> str:
    """A run's display name: the folder's name, or a checkpoint file's stem.

    The folder's parent's name when the folder is called ``run``
    (``experiments/<name>/run``); a checkpoint's folder name when its stem names no run
    (``experiments/<name>/agent.pt``, ``<run>/checkpoints/ckpt-00000024.pt``).
    """
    path = Path(source)
    if path.is_dir():
        return path.resolve().parent.name if path.name == "run" else path.name
    if path.stem == "agent" or path.stem.startswith("ckpt-"):
        folder = path.resolve().parent
        return folder.parent.name if folder.name == "checkpoints" else folder.name
    return path.stem


# The parts of a summary and the JSON type each must have (None: left out).
_PARTS = {
    "outcomes": dict,
    "material": dict,
    "openings": dict,
    "style": dict,
    "endgame": dict,
    "self_play": dict,
    "sample_games": list,
}


def summary_problem(summary: dict) -> str | None:
    """What makes ``summary`` unusable by the report (a part of the wrong type), or None."""
    for key, kind in _PARTS.items():
        value = summary.get(key)
        if value is not None and not isinstance(value, kind):
            return f"{key} must be a JSON {'object' if kind is dict else 'list'}, got {value!r:.40}"
    games = summary.get("sample_games") or []
    if not all(isinstance(g, dict) for g in games):
        return "sample_games must be a list of objects"
    return None


def _fail(message: str) -> None:
    print(f"{PROG}: {message}", file=sys.stderr)
    sys.exit(2)


def _load_summaries(paths: list[str]) -> list[dict]:
    out: list[dict] = []
    for p in paths:
        try:
            data = json.loads(Path(p).read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            _fail(f"--summaries {p}: cannot read it ({err})")
        items = data if isinstance(data, list) else [data]
        if not all(isinstance(s, dict) for s in items):
            _fail(f"--summaries {p}: not a summary or a list of summaries")
        for k, s in enumerate(items):
            problem = summary_problem(s)
            if problem:
                _fail(f"--summaries {p}: summary {k + 1}: {problem}")
        out += items
    return out


def _load_tables(path: str | None) -> list[tuple[str, list[dict[str, Any]]]]:
    if path is None:
        return []
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        tables = [(str(t), [dict(r) for r in rows]) for t, rows in data]
    except (OSError, ValueError, TypeError) as err:
        _fail(f"--tables {path}: not a JSON list of [title, [row dicts]] ({err})")
    return tables


def main(argv: list[str] | None = None) -> None:
    """Console entry point (``drl-analyze``)."""
    args = _parser().parse_args(argv)
    if not args.runs and not args.summaries:
        _fail("give at least one RUN (or --summaries)")
    for run in args.runs:
        if not Path(run).exists():
            _fail(f"{run}: no such run folder or checkpoint")
    from drl.cli._output import check_writable_dir

    try:
        check_writable_dir(args.out, "--out")
    except ValueError as err:
        _fail(str(err))
    summaries = _load_summaries(args.summaries)
    tables = _load_tables(args.tables)
    from drl.analysis import load_source

    for run in args.runs:  # every checkpoint is read before any game is played
        try:
            load_source(run)
        except ValueError as err:
            _fail(f"{run}: {err}")
    try:
        import torch

        torch.set_num_threads(args.threads)
        from rich.console import Console

        from drl.analysis import analyze_run
        from drl.analysis.report import write_report
        from drl.eval.settings import MatchSettings

        console = Console(stderr=True)
        for k, run in enumerate(args.runs, 1):
            t0 = time.perf_counter()
            console.print(
                f"[{k}/{len(args.runs)}] {run}: {args.games} games at {args.sims} simulations ..."
            )
            try:
                settings = MatchSettings(
                    openings=args.openings,
                    seed=args.seed,
                    workers=args.workers,
                    max_plies=args.max_plies,
                    progress=sys.stderr.isatty(),
                )
                summary = analyze_run(
                    run,
                    simulations=args.sims,
                    games=args.games,
                    settings=settings,
                    human_games_dir=args.human_games,
                )
            except (ValueError, RuntimeError) as err:  # RuntimeError: TrainingDiverged
                _fail(f"{run}: {err}")
            summary["name"] = run_name(run)
            summaries.append(summary)
            console.print(f"[{k}/{len(args.runs)}] {run}: done in {time.perf_counter() - t0:.0f} s")
        try:
            paths = write_report(
                summaries,
                args.out,
                title=args.title,
                extra_tables=tables,
                sample_games=args.sample_games,
            )
        except ValueError as err:
            _fail(str(err))
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted; nothing written", file=sys.stderr)
        sys.exit(128 + signal.SIGINT)
    print(f"report: {paths['html']} (and {paths['markdown'].name}, {paths['summary'].name})")


if __name__ == "__main__":
    main()
