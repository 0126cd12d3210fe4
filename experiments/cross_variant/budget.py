"""The training budget search: each kept checkpoint of a study's runs against one alpha-beta
rung, to find the smallest number of iterations at which an agent scores at least
``--target`` (Give and Take: in each role).

    python experiments/cross_variant/budget.py --study strong --only russian,brazilian \
        --iterations 24,36,48,60,72
    python experiments/cross_variant/budget.py --study strong --table   # budget.md only
    python experiments/cross_variant/budget.py --study strong --only english --adopt 36

A run's checkpoints are read from ``cross_variant/STUDY/budget/<name>/run`` when that
folder exists, else from the study's own run folder ``cross_variant/STUDY/<name>/run``;
train with ``train.keep_checkpoints`` large enough to keep the iterations asked for. The
learning rate is constant and nothing in the default config depends on the planned number
of iterations, so the checkpoint of iteration K of a longer run is the agent a K-iteration
budget trains.

Each row plays ``--games`` games against ``alphabeta:depth=D`` with the ladder's settings
(seeded distinct ``--openings``-ply openings, colours and Give and Take roles swapped,
the network at ``--sims`` simulations without noise); the default seed is the one the
ladder (``run_study.py --ladder 2,4,...``) gives its depth-4 rung, so the row of the
budget a study adopts is the game set of its ladder rung. Another ``--seed`` plays a
further set of games, which the table pools with the first. Rows go to
``cross_variant/STUDY/budget/<name>/budget.json`` as they finish and are not played again
unless ``--redo``; ``cross_variant/STUDY/budget.md`` / ``budget.json`` gather them all,
with each agent's smallest budget that reaches the target. ``--adopt K`` makes the
checkpoint of iteration K each run's study agent (``<name>/agent.pt``), which
``run_study.py``'s ladder and analysis then read.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

BASE = Path(__file__).resolve().parent
ROOT = BASE.parents[1]
sys.path.insert(0, str(BASE))

from run_study import STUDY  # noqa: E402

LADDER_SEED = 20000 + 7919  # run_experiment.py: seed + 7919 * (rung index); depth 4 is rung 1
TABLE_DEPTH = 4  # the study's table: rows against alphabeta:depth=4 ...
TABLE_SIMS = 800  # ... with the network at 800 simulations (the ladder's rung)
DEFAULT_TARGET = 0.60
ROW_KEYS = ("iterations", "opponent", "sims", "seed", "role", "games", "wins", "draws",
            "losses")


def _checkpoints(study: Path, name: str) -> Path:
    budget = study / "budget" / name / "run" / "checkpoints"
    return budget if budget.is_dir() else study / name / "run" / "checkpoints"


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


def _checkpoint_of(study: Path, name: str, k: int) -> Path:
    return _checkpoints(study, name) / f"ckpt-{k:08d}.pt"


def read_json(path: Path, kind: type, keys: tuple[str, ...] = ()) -> Any:
    """The JSON document of ``path`` (a ``kind``); with ``keys``, a list of rows that each
    hold them. A file that is not that is one clear line (SystemExit)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise SystemExit(f"{_shown(path)}: not a readable JSON file ({err}); restore it from "
                         "git or remove it") from None
    if not isinstance(data, kind):
        raise SystemExit(f"{_shown(path)}: expected a JSON {kind.__name__}, found "
                         f"{type(data).__name__}")
    for i, row in enumerate(data if keys else []):
        missing = [k for k in keys if not isinstance(row, dict) or k not in row]
        if missing:
            raise SystemExit(f"{_shown(path)}: row {i} lacks {', '.join(missing)}")
    return data


def _load(name: str, ckpt: Path) -> dict:
    """The checkpoint's payload, its digest checked; a bad file is a clear error."""
    from drl.nn.checkpoint import CheckpointError, load_checkpoint

    try:
        return load_checkpoint(ckpt)
    except CheckpointError as err:
        raise SystemExit(f"{name}: {err}") from None


def _rows_path(study: Path, name: str) -> Path:
    return study / "budget" / name / "budget.json"


def _play(name: str, ckpt: Path, args: argparse.Namespace) -> list[dict]:
    import torch

    from drl.agents.az import search_config_from_checkpoint
    from drl.eval.stats import wdl
    from drl.nn import NetworkEvaluator, load
    from drl.rules import Variant
    from drl.train.evaluate import EVALUATION_SETTINGS, NET_NAME, play_against_baseline

    torch.set_num_threads(1)
    payload = _load(name, ckpt)
    spec = STUDY[name][0]
    try:
        net = load(payload, "cpu", variant=spec, source=f"checkpoint {_shown(ckpt)}")
        search = search_config_from_checkpoint(payload, args.sims, f"checkpoint {_shown(ckpt)}")
    except ValueError as err:  # CheckpointError included
        raise SystemExit(f"{name}: {err}") from None
    opponent = f"alphabeta:depth={args.depth}"
    settings = replace(EVALUATION_SETTINGS, openings=args.openings, seed=args.seed)
    t0 = time.perf_counter()
    games = play_against_baseline(NetworkEvaluator(net, "cpu"), search, opponent, spec,
                                  args.games, settings=settings)
    seconds = round(time.perf_counter() - t0, 1)
    groups = [("all", games)]
    if Variant.parse(spec).is_asymmetric:
        groups += [(role, [g for g in games if g.role_of(NET_NAME) == role])
                   for role in ("taker", "giver")]
    c = payload["counters"]
    rows = []
    for role, sub in groups:
        w = wdl(sub, NET_NAME)
        lo, hi = w.score_interval
        rows.append({"run": name, "variant": spec, "iterations": int(c["iteration"]),
                     "self_play_games": int(c["games"]),
                     "cpu_minutes": round(float(c.get("cpu_minutes", 0.0)), 1),
                     "checkpoint": _shown(ckpt), "opponent": opponent,
                     "sims": args.sims, "seed": args.seed, "role": role, "games": w.games,
                     "score": round(w.score, 4), "wins": w.wins, "draws": w.draws,
                     "losses": w.losses, "truncated": w.truncated,
                     "ci95": [round(lo, 4), round(hi, 4)], "seconds": seconds})
    return rows


def _row_key(row: dict) -> tuple:
    """Rows of one game set: a budget, an opponent, a search budget and a seed."""
    return (row["iterations"], row["opponent"], row["sims"], row["seed"])


def _same_setting(row: dict, args: argparse.Namespace) -> bool:
    return (row["role"] == "all" and row["opponent"] == f"alphabeta:depth={args.depth}"
            and row["sims"] == args.sims and row["seed"] == args.seed
            and row["games"] == args.games)


def search(study: Path, names: list[str], iterations: list[int], args: argparse.Namespace) -> None:
    """Play the missing rows of ``names`` x ``iterations``, saving after each."""
    for name in names:
        path = _rows_path(study, name)
        rows = read_json(path, list, ROW_KEYS) if path.exists() else []
        for k in iterations:
            done = [r for r in rows if r["iterations"] == k and _same_setting(r, args)]
            if done and not args.redo:
                continue
            ckpt = _checkpoint_of(study, name, k)
            if not ckpt.is_file():
                print(f"[budget] {name}: no checkpoint of iteration {k} ({ckpt}); skipped",
                      flush=True)
                continue
            new = _play(name, ckpt, args)
            rows = [r for r in rows if _row_key(r) != _row_key(new[0])] + new
            rows.sort(key=lambda r: (r["iterations"], r["seed"], r["role"]))
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(rows, indent=2, allow_nan=False) + "\n")
            a = new[0]
            print(f"[budget] {name} iteration {k}: {a['score']:.2f} "
                  f"[{a['ci95'][0]:.2f}, {a['ci95'][1]:.2f}] against {a['opponent']} "
                  f"({a['games']} games, {a['seconds']:.0f} s)", flush=True)


def pooled(rows: list[dict]) -> dict[int, dict[str, dict]]:
    """Rows of one run pooled over seeds: ``{iterations: {role: cell}}``, a cell holding
    ``games``, ``score`` = (wins + draws / 2) / games and its 95% Wilson ``ci95``."""
    from drl.eval.stats import wilson_interval

    cells: dict[int, dict[str, dict]] = {}
    for r in rows:
        c = cells.setdefault(r["iterations"], {}).setdefault(
            r["role"], {"games": 0, "points": 0.0, "seeds": 0})
        c["games"] += r["games"]
        c["points"] += r["wins"] + r["draws"] / 2
        c["seeds"] += 1
    for by_role in cells.values():
        for c in by_role.values():
            c["score"] = c["points"] / c["games"]
            c["ci95"] = list(wilson_interval(c["points"], c["games"]))
    return cells


def smallest(rows: list[dict], target: float) -> int | None:
    """The fewest iterations whose score, pooled over the seeds played, reaches ``target``
    overall and in every role."""
    cells = pooled(rows)
    for k in sorted(cells):
        if all(c["score"] >= target for c in cells[k].values()):
            return k
    return None


def _rung_rows(path: Path, opponent: str, sims: int) -> list[dict]:
    return [r for r in read_json(path, list, ROW_KEYS)
            if r["opponent"] == opponent and r["sims"] == sims]


def table_target(study: Path, given: float | None) -> float:
    """The table's target: ``given``, else the one the study's ``budget.json`` records,
    else :data:`DEFAULT_TARGET` (a search run does not change it unless told to)."""
    if given is not None:
        return given
    path = study / "budget.json"
    if path.exists():
        target = read_json(path, dict).get("target", DEFAULT_TARGET)
        if isinstance(target, (int, float)) and 0 <= target <= 1:
            return float(target)
    return DEFAULT_TARGET


def table(study: Path, target: float, opponent: str = f"alphabeta:depth={TABLE_DEPTH}",
          sims: int = TABLE_SIMS) -> None:
    """Gather every run's rows against ``opponent`` at ``sims`` simulations (other rows are
    left out, never pooled with these) into ``budget.json`` and ``budget.md``. The study's
    table is always the one at :data:`TABLE_DEPTH` and :data:`TABLE_SIMS`, whatever
    setting a search run played."""
    allrows, chosen = [], {}
    for name in STUDY:
        path = _rows_path(study, name)
        if path.exists() and (rows := _rung_rows(path, opponent, sims)):
            allrows += rows
            chosen[name] = smallest(rows, target)
    if not allrows:
        raise SystemExit(f"no budget rows against {opponent} at {sims} simulations "
                         f"under {study / 'budget'}")
    (study / "budget.json").write_text(json.dumps({"target": target, "smallest": chosen,
                                                   "rows": allrows}, indent=2,
                                                  allow_nan=False) + "\n")
    iters = sorted({r["iterations"] for r in allrows})
    lines = [f"# Training budget against {allrows[0]['opponent']}", "",
             f"Score of the checkpoint after K iterations (512 self-play games each), "
             f"{allrows[0]['games']} games per cell (more where a second seed was played: the "
             "sets pooled), 95% Wilson interval; Give and Take "
             "also per role (Taker / Giver). **Bold**: the smallest budget scoring at least "
             f"{target:.2f} (in each role for Give and Take).", "",
             "Made by `python experiments/cross_variant/budget.py --study "
             f"{study.name} ...` (see its docstring).", "",
             "| agent | " + " | ".join(f"{k} it." for k in iters) + " | smallest |",
             "|---|" + "---|" * (len(iters) + 1)]
    for name, k_min in chosen.items():
        by_k = pooled(_rung_rows(_rows_path(study, name), opponent, sims))
        cells = []
        for k in iters:
            at = by_k.get(k, {})
            if "all" not in at:
                cells.append("—")
                continue
            a = at["all"]
            cell = f"{a['score']:.2f} [{a['ci95'][0]:.2f}, {a['ci95'][1]:.2f}]"
            if "taker" in at:
                cell += f" ({at['taker']['score']:.2f} / {at['giver']['score']:.2f})"
            if a["seeds"] > 1:
                cell += f" {a['games']} games"
            cells.append(f"**{cell}**" if k == k_min else cell)
        tried = sorted(by_k)
        if k_min is None:
            verdict = f"not reached by {tried[-1]}"
        else:  # the fewest tried: a smaller budget may do too
            verdict = f"≤ {k_min}" if k_min == tried[0] else f"{k_min}"
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {verdict} |")
    (study / "budget.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {study / 'budget.md'}")


def adopt(study: Path, names: list[str], k: int) -> None:
    """Copy each run's checkpoint of iteration ``k`` to ``<name>/agent.pt`` (and its
    SHA-256 to ``agent.pt.sha256``): the agent the study's ladder and analysis read."""
    import shutil

    sources = {}
    for name in names:  # every checkpoint checked before any agent is replaced
        ckpt = _checkpoint_of(study, name, k)
        if not ckpt.is_file():
            raise SystemExit(f"{name}: no checkpoint of iteration {k} ({ckpt})")
        _load(name, ckpt)
        sources[name] = ckpt
    for name, ckpt in sources.items():
        dest = study / name / "agent.pt"
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ckpt, dest)  # with the digest _load has just checked
        shutil.copyfile(ckpt.with_name(ckpt.name + ".sha256"), dest.with_name("agent.pt.sha256"))
        print(f"[adopt] {name}: {_shown(ckpt)} -> {_shown(dest)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--study", required=True, help="study folder under cross_variant/")
    ap.add_argument("--only", default=None, help="comma-separated study names")
    ap.add_argument("--iterations", default="", help="comma-separated iteration counts")
    ap.add_argument("--depth", type=int, default=TABLE_DEPTH,
                    help="alpha-beta depth of the rung")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--sims", type=int, default=TABLE_SIMS)
    ap.add_argument("--openings", type=int, default=4)
    ap.add_argument("--seed", type=int, default=LADDER_SEED)
    ap.add_argument("--target", type=float, default=None,
                    help=f"score the smallest budget must reach, in [0, 1] (default: the "
                    f"study's, else {DEFAULT_TARGET})")
    ap.add_argument("--redo", action="store_true", help="play rows already there again")
    ap.add_argument("--table", action="store_true", help="only rebuild budget.md/json")
    ap.add_argument("--adopt", type=int, default=None, metavar="K",
                    help="copy each run's checkpoint of iteration K to <name>/agent.pt "
                    "(the study's agent) and stop")
    args = ap.parse_args()
    study, names = check_args(ap, args)
    if args.adopt is not None:
        adopt(study, names, args.adopt)
        return
    if not args.table:
        search(study, names, args.iterations, args)
        if (args.depth, args.sims) != (TABLE_DEPTH, TABLE_SIMS):
            print(f"[budget] rows against alphabeta:depth={args.depth} at {args.sims} "
                  f"simulations kept under {_shown(study / 'budget')}; the study's table "
                  f"(depth {TABLE_DEPTH}, {TABLE_SIMS} simulations) is left as it is")
            return
    table(study, table_target(study, args.target))


def check_args(ap: argparse.ArgumentParser, args: argparse.Namespace) -> tuple[Path, list]:
    """Refuse bad arguments (``ap.error``) before anything is loaded or played; returns the
    study folder (which must exist inside cross_variant/) and the run names."""
    import math

    from drl.agents.az import MAX_SIMULATIONS
    from drl.eval.limits import MAX_GAMES, check_count, check_openings

    base = BASE.resolve()
    study = (base / args.study).resolve()
    if study == base or base not in study.parents:
        ap.error(f"--study {args.study}: the study folder must lie inside {_shown(base)}/")
    if not study.is_dir():
        ap.error(f"no study folder {_shown(study)}")
    names = list(STUDY) if not args.only else args.only.split(",")
    unknown = [n for n in names if n not in STUDY]
    if unknown:
        ap.error(f"unknown study names {unknown}; known: {', '.join(STUDY)}")
    try:
        check_count(args.games, "--games", 1, MAX_GAMES)
        check_count(args.sims, "--sims", 1, MAX_SIMULATIONS)
        check_count(args.depth, "--depth", 1, 63)
        check_count(args.seed, "--seed", 0, 2**63 - 1)
        check_openings(args.openings)
    except ValueError as err:
        ap.error(str(err))
    if args.target is not None and not (math.isfinite(args.target) and 0 <= args.target <= 1):
        ap.error(f"--target {args.target}: must be a score in [0, 1]")
    if args.adopt is not None and args.adopt < 0:
        ap.error(f"--adopt must be >= 0, not {args.adopt}")
    if args.adopt is None and not args.table:
        try:
            args.iterations = [int(k) for k in args.iterations.split(",") if k]
        except ValueError:
            ap.error(f"--iterations must be comma-separated integers, not {args.iterations!r}")
        if not args.iterations:
            ap.error("--iterations is required (or --table)")
        if min(args.iterations) < 0:
            ap.error(f"--iterations must be >= 0, not {min(args.iterations)}")
    return study, names


if __name__ == "__main__":
    main()
