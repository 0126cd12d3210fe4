"""The cross-variant study: train every preset and the Give and Take variations with one
config and an equal budget, rate each final agent against the alpha-beta ladder, and
analyse them all with ``drl-analyze``.

    python experiments/cross_variant/run_study.py                      # every stage
    python experiments/cross_variant/run_study.py --stages ladder,analyze
    python experiments/cross_variant/run_study.py --only english,losing --minutes 6
    python experiments/cross_variant/run_study.py --study strong --iterations 24

``--study NAME`` puts a study in ``cross_variant/NAME/`` (its run folders, results,
analyses, report and summary), so that studies of different budgets stand side by side;
without it the study is the folder itself (the 6-minute study).

Stages (``--stages``, in this order):

- ``train``: ``experiments/run_experiment.py cross_variant/<name> --variant SPEC --stages
  train -- train.max_minutes=M ...`` for each entry of :data:`STUDY`, ``--jobs`` at a time,
  each with ``threads=1``; the run folders (``<name>/run``) are not committed.
- ``ladder``: each agent (``<name>/agent.pt`` when there is one: the checkpoint adopted
  by ``budget.py --adopt``; else the run's newest checkpoint) plays ``--games`` games
  against ``alphabeta:depth=D`` for each D of ``--ladder``, from seeded distinct openings,
  colours (and Give and Take roles) swapped (``run_experiment.py ... --stages
  eval,report``); ``<name>/results.json``.
- ``analyze``: ``drl-analyze`` over every agent into ``report/`` (HTML, Markdown,
  ``summary.json``, plots); the ladder table is added to the report; ``summary.json`` is
  copied to this folder for the notebook.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import shlex
import subprocess
import sys
import time
from pathlib import Path

BASE = Path(__file__).resolve().parent
ROOT = BASE.parents[1]
PY = sys.executable
HERE = BASE  # the study folder: BASE, or BASE / --study

# name -> (variant spec, note). One config and one budget for all (see README).
STUDY: dict[str, tuple[str, str]] = {
    "english": ("english", ""),
    "russian": ("russian", ""),
    "brazilian": ("brazilian", ""),
    "international": ("international", "10x10: fewer games in the same time"),
    "giveaway": ("giveaway", ""),
    "losing": ("losing", ""),
    "give_and_take": ("give_and_take", ""),
    "gt-max_capture": ("give_and_take:max_capture=true", "maximum capture"),
    "gt-both_givers": ("give_and_take:objectives=give/give", "both Givers: no Taker"),
    "gt-continue_as_king": ("give_and_take:promotion_mid_capture=continue_as_king",
                            "promotion continues as king"),
    "gt-10x10": ("give_and_take:board_size=10", "10x10: fewer games in the same time"),
}


def train_overrides(minutes: float, iterations: int | None = None,
                    keep: int | None = None) -> list[str]:
    """The study's one training config: the default config under a wall budget, or under
    a budget of ``iterations`` (of 512 self-play games each) with no wall limit, which
    does not depend on what else the machine is doing. ``keep`` checkpoints are kept
    (default: the config's), for ``budget.py`` to rate the earlier ones."""
    budget = ([f"train.iterations={iterations}", "train.max_minutes=0"] if iterations
              else [f"train.max_minutes={minutes}"])
    kept = [f"train.keep_checkpoints={keep}"] if keep else []
    return [*budget, "train.eval.every=0", "train.final_eval.baselines=[random]",
            "train.final_eval.games=8", *kept]


def _rel_here() -> str:
    return HERE.relative_to(ROOT / "experiments").as_posix()


def _run(cmd: list[str], log: Path) -> int:
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("a") as fh:
        fh.write(f"$ {shlex.join(cmd)}\n")
        fh.flush()
        return subprocess.call(cmd, cwd=ROOT, stdout=fh, stderr=subprocess.STDOUT)


def stage_train(names: list[str], minutes: float, jobs: int,
                iterations: int | None = None, keep: int | None = None) -> None:
    def one(name: str) -> tuple[str, int, float]:
        spec = STUDY[name][0]
        t0 = time.time()
        rc = _run([PY, "experiments/run_experiment.py", f"{_rel_here()}/{name}", "--variant",
                   spec, "--stages", "train", "--", *train_overrides(minutes, iterations, keep)],
                  HERE / name / "study.log")
        return name, rc, time.time() - t0

    with cf.ThreadPoolExecutor(jobs) as pool:
        for name, rc, sec in pool.map(one, names):
            print(f"[train] {name}: exit {rc} after {sec / 60:.1f} min", flush=True)


def stage_ladder(names: list[str], depths: list[int], games: int, sims: int,
                 jobs: int, extra: list[str] = ()) -> None:
    opponents = [*(f"alphabeta:depth={d}" for d in depths), *extra]

    def one(name: str) -> tuple[str, int, float]:
        t0 = time.time()
        agent = HERE / name / "agent.pt"  # the adopted agent, when there is one
        rc = _run([PY, "experiments/run_experiment.py", f"{_rel_here()}/{name}", "--variant",
                   STUDY[name][0], "--stages", "eval,report", "--games", str(games),
                   "--sims", str(sims), "--opponents", *opponents,
                   *(["--checkpoint", str(agent.relative_to(ROOT))] if agent.is_file()
                     else [])],
                  HERE / name / "study.log")
        return name, rc, time.time() - t0

    with cf.ThreadPoolExecutor(jobs) as pool:
        for name, rc, sec in pool.map(one, names):
            print(f"[ladder] {name}: exit {rc} after {sec / 60:.1f} min", flush=True)


def ladder_rows(names: list[str]) -> list[dict]:
    """One row per agent: its score against each ladder depth (all roles together)."""
    rows = []
    for name in names:
        path = HERE / name / "results.json"
        row: dict = {"run": name, "variant": STUDY[name][0], "note": STUDY[name][1] or "—"}
        ev = HERE / name / "eval.json"
        if ev.exists():
            c = json.loads(ev.read_text())["counters"]
            row["iterations"] = c["iteration"]
            row["self-play games"] = c["games"]
        if path.exists():
            for r in json.loads(path.read_text()):
                if r["role"] in ("all",):
                    lo, hi = r["ci95"]
                    row[r["opponent"]] = f"{r['score']:.2f} [{lo:.2f}, {hi:.2f}] ({r['games']})"
                if r["role"] in ("taker", "giver"):
                    lo, hi = r["ci95"]
                    row[f"{r['opponent']} {r['role']}"] = f"{r['score']:.2f} [{lo:.2f}, {hi:.2f}]"
        rows.append(row)
    return rows


def stage_analyze(names: list[str], games: int, sims: int, jobs: int) -> None:
    """``drl-analyze`` each agent (its ``agent.pt``, else its run folder's newest checkpoint)
    into ``<name>/analysis/`` (``jobs`` at a time), then one report over all of them
    (``report/``) with the ladder table."""
    def source(name: str) -> str | None:
        # the adopted agent (budget.py --adopt), else the run's newest checkpoint
        if (HERE / name / "agent.pt").is_file():
            return f"experiments/{_rel_here()}/{name}/agent.pt"
        if (HERE / name / "run" / "checkpoints").is_dir():
            return f"experiments/{_rel_here()}/{name}/run"
        return None

    runs = [n for n in names if source(n) is not None]

    def one(name: str) -> tuple[str, int]:
        cmd = [PY, "-m", "drl.cli.analyze", str(source(name)),
               "--out", f"experiments/{_rel_here()}/{name}/analysis", "--games", str(games),
               "--sims", str(sims), "--threads", "1", "--workers", "1",  # (jobs in parallel)
               "--title", f"drl analysis: {name}"]
        return name, _run(cmd, HERE / name / "study.log")

    with cf.ThreadPoolExecutor(jobs) as pool:
        for name, rc in pool.map(one, runs):
            print(f"[analyze] {name}: exit {rc}", flush=True)
    tables = HERE / "tables.json"
    tables.write_text(json.dumps([["Final agents against the alpha-beta ladder "
                                   "(score, 95% interval, games)", ladder_rows(names)]],
                                 indent=2) + "\n")
    done = [f"experiments/{_rel_here()}/{n}/analysis/summary.json" for n in runs
            if (HERE / n / "analysis" / "summary.json").exists()]
    cmd = [PY, "-m", "drl.cli.analyze", "--summaries", *done, "--out",
           f"experiments/{_rel_here()}/report", "--tables", str(tables.relative_to(ROOT)),
           "--sample-games", "1", "--title", "drl cross-variant study"]
    print("$", shlex.join(cmd), flush=True)
    if subprocess.call(cmd, cwd=ROOT):
        raise SystemExit("drl-analyze failed")
    (HERE / "summary.json").write_text((HERE / "report" / "summary.json").read_text())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stages", default="train,ladder,analyze")
    ap.add_argument("--only", default=None, help="comma-separated study names")
    ap.add_argument("--minutes", type=float, default=6.0, help="training budget per run")
    ap.add_argument("--iterations", type=int, default=None,
                    help="training budget per run in iterations (no wall limit; "
                         "replaces --minutes)")
    ap.add_argument("--keep-checkpoints", type=int, default=None, metavar="N",
                    help="train: keep the N newest checkpoints (budget.py rates them)")
    ap.add_argument("--study", default=None,
                    help="study folder under cross_variant/ (default: cross_variant itself)")
    ap.add_argument("--extra-opponents", nargs="*", default=[],
                    help="ladder opponents besides the depths, e.g. alphabeta:time=0.05")
    ap.add_argument("--jobs", type=int, default=2, help="runs at a time (threads=1 each)")
    ap.add_argument("--ladder", default="1,2,4", help="alpha-beta depths")
    ap.add_argument("--games", type=int, default=40, help="ladder games per depth")
    ap.add_argument("--sims", type=int, default=64, help="network simulations per move")
    ap.add_argument("--analyze-games", type=int, default=32)
    args = ap.parse_args()
    global HERE
    HERE = BASE / args.study if args.study else BASE
    names = list(STUDY) if not args.only else args.only.split(",")
    unknown = [n for n in names if n not in STUDY]
    if unknown:
        ap.error(f"unknown study names {unknown}; known: {', '.join(STUDY)}")
    stages = args.stages.split(",")
    bad = set(stages) - {"train", "ladder", "analyze"}
    if bad:
        ap.error(f"unknown stages {sorted(bad)}")
    if "train" in stages:
        stage_train(names, args.minutes, args.jobs, args.iterations, args.keep_checkpoints)
    if "ladder" in stages:
        stage_ladder(names, [int(d) for d in args.ladder.split(",")], args.games, args.sims,
                     args.jobs, args.extra_opponents)
    if "analyze" in stages:
        stage_analyze(names, args.analyze_games, args.sims, args.jobs)


if __name__ == "__main__":
    main()
