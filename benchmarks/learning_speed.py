"""Learning speed: strength (Elo against an alpha-beta ladder) against training CPU-minutes.

Trains with ``drl-train`` for a fixed wall-clock budget (``train.max_minutes``), then rates
checkpoints spread over the run against ``alphabeta:depth=1..6`` and ``alphabeta:time=T``
(T: the network's mean time per move in that checkpoint's games), and at equal time: the
searcher the run's algorithm trained (``az:ckpt=..,time=0.1`` for AlphaZero,
``alphabeta:ckpt=..,time=0.1`` for ``algo=minimax``) against ``alphabeta:time=0.1``
(``learning_equal_time.py``). Every checkpoint and
every config plays the same seeded openings with the same game seeds (colours and, in
Give and Take, roles swapped), so runs can be compared. Games between consecutive ladder
rungs are played once per variant/settings and cached in ``ladder-<variant>.json``. All
games are fitted together (:func:`drl.eval.elo.fit_elo`, ``alphabeta:depth=1`` = 0).

    python benchmarks/learning_speed.py --name base --minutes 12 -- model=small
    python benchmarks/learning_speed.py --name base --eval-only --ladder 1,2,3
    python benchmarks/learning_speed.py --compare base wide --out experiments/learning-speed/cmp.png
    python benchmarks/learning_speed.py --name mm --minutes 12 -- algo=minimax

Writes ``<out-dir>/NAME.json``, ``NAME.png`` and ``NAME-equal-time.png`` (Elo at equal time
against training wall minutes); the run folder is ``<out-dir>/runs/NAME``.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import math
import multiprocessing as mp
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import learning_equal_time as equal_time  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "experiments" / "learning-speed"
ANCHOR = "alphabeta:depth=1"
KEEP_ALL = 1_000_000


# -- results ------------------------------------------------------------------------------


MAX_RUNG = 12  # deeper alpha-beta takes seconds per move
MIN_MOVE_TIME = 1e-3  # the least ``alphabeta:time=`` accepts (seconds)


def tally(records: Sequence[Any], player: str) -> dict[str, Any]:
    """W/D/L and score of ``player`` over ``records``, and per role (Give and Take)."""

    def count(recs: Sequence[Any]) -> dict[str, Any]:
        s = [r.score_of(player) for r in recs]
        n = len(s)
        return {
            "W": s.count(1.0),
            "D": s.count(0.5),
            "L": s.count(0.0),
            "games": n,
            "score": sum(s) / n if n else None,
        }

    out = count(records)
    roles: dict[str, list[Any]] = {}
    for r in records:
        role = r.roles[0] if r.black == player else r.roles[1]
        if role is not None:
            roles.setdefault(role, []).append(r)
    if roles:
        out["roles"] = {k: count(v) for k, v in sorted(roles.items())}
    return out


def _num(x: float) -> float | str:
    return float(x) if math.isfinite(x) else ("inf" if x > 0 else "-inf")


def rate(games: Sequence[tuple[str, str, float]], prior_draws: float = 0.0) -> dict[str, dict]:
    """``{player: {elo, lower, upper, games, score}}`` of all games, ``ANCHOR`` = 0 with
    95% profile-likelihood intervals (``"inf"``/``"-inf"`` where unbounded)."""
    from drl.eval.elo import fit_elo

    r = fit_elo(games, anchor=ANCHOR, prior_draws=prior_draws, confidence=0.95)

    def point(i: int) -> float:
        # a player who lost (or won) every game has no finite maximum-likelihood rating;
        # the fit stops at its bound, a number that would read as a measurement
        if prior_draws == 0 and r.players[i] != ANCHOR and r.games[i]:
            if r.score[i] == 0:
                return -math.inf
            if r.score[i] == r.games[i]:
                return math.inf
        return float(r.elo[i])

    return {
        p: {
            "elo": _num(point(i)),
            "lower": _num(r.lower[i]),
            "upper": _num(r.upper[i]),
            "games": int(r.games[i]),
            "score": float(r.score[i]),
        }
        for i, p in enumerate(r.players)
    }


def elo_games(records: Sequence[Any]) -> list[tuple[str, str, float]]:
    return [(r.black, r.white, r.score_of(r.black)) for r in records]


# -- playing ------------------------------------------------------------------------------


def _match(a: Any, b: str, names: tuple[str, str], args: argparse.Namespace) -> Any:
    from drl.eval.arena import match_tasks
    from drl.eval.settings import MatchSettings

    settings = MatchSettings(
        openings=args.openings, seed=args.seed, max_plies=args.max_plies, event="learning-speed"
    )
    return match_tasks(a, b, args.variant, args.games, settings, names=names)


def _timed_agent(ckpt: str, sims: int, device: str, variant: str) -> Any:
    from drl.agents import Agent
    from drl.agents.az import AZAgent

    class Timed(Agent):
        """The az agent, timing its moves (a batched call's time is shared by its moves)."""

        batched = True

        def __init__(self, inner: AZAgent) -> None:
            self.inner, self.name, self.seconds, self.moves = inner, inner.name, 0.0, 0

        def check_variant(self, v: Any) -> None:
            self.inner.check_variant(v)

        def reset(self, seed: int | None = None) -> None:
            self.inner.reset(seed)

        def select_move(self, board: Any) -> Any:
            return self.select_moves([board])[0]

        def select_moves(self, boards: Sequence[Any]) -> list[Any]:
            t0 = time.perf_counter()
            out = self.inner.select_moves(boards)
            self.seconds += time.perf_counter() - t0
            self.moves += len(boards)
            return out

    return Timed(AZAgent(ckpt, sims=sims, device=device, variant=variant))


def _play_part(
    ckpt: str, name: str, opponent: str, part: list[int], args: argparse.Namespace, threads: int
) -> tuple[list[Any], float, int]:
    """Games ``part`` of checkpoint-vs-opponent, in flight in this process."""
    import torch

    from drl.eval.arena import play_in_flight

    torch.set_num_threads(threads)
    agent = _timed_agent(ckpt, args.sims, args.device, args.variant)
    tasks = _match(agent, opponent, (name, opponent), args)
    records = play_in_flight([tasks[i] for i in part])
    return records, agent.seconds, agent.moves


def play_checkpoint(
    ckpt: Path, name: str, opponent: str, args: argparse.Namespace
) -> tuple[list[Any], float]:
    """The games of ``name`` against ``opponent`` (split over ``args.workers`` processes,
    each playing its share in flight) and the network's mean seconds per move."""
    idx = list(range(args.games))
    if args.workers <= 1:
        recs, secs, moves = _play_part(str(ckpt), name, opponent, idx, args, args.threads)
    else:
        parts = [idx[k :: args.workers] for k in range(args.workers) if idx[k :: args.workers]]
        recs, secs, moves = [], 0.0, 0
        with cf.ProcessPoolExecutor(len(parts), mp_context=mp.get_context("spawn")) as pool:
            futs = [pool.submit(_play_part, str(ckpt), name, opponent, p, args, 1) for p in parts]
            for f in futs:
                r, s, m = f.result()
                recs += r
                secs += s
                moves += m
    return sorted(recs, key=lambda r: r.index), secs / max(moves, 1)


def ladder_games(args: argparse.Namespace, out_dir: Path) -> list[dict]:
    """Games between consecutive depths 1..max(ladder), from the cache or played now."""
    from drl.eval.arena import run_games

    path = out_dir / f"ladder-{args.variant}.json"
    cache = json.loads(path.read_text()) if path.exists() else {}
    key = f"games={args.games},openings={args.openings},seed={args.seed},max_plies={args.max_plies}"
    pairs = cache.setdefault(key, {})
    out = []
    for d in range(1, max(args.ladder)):
        a, b = f"alphabeta:depth={d}", f"alphabeta:depth={d + 1}"
        pair = f"{a} vs {b}"
        if pair not in pairs:
            t0 = time.perf_counter()
            recs = run_games(_match(a, b, (a, b), args), workers=args.workers, progress=False)
            pairs[pair] = {
                **tally(recs, a),
                "results": elo_games(recs),
                "seconds": time.perf_counter() - t0,
            }
            path.write_text(json.dumps(cache, indent=1))
            t = pairs[pair]
            print(f"ladder {pair}: {t['W']}-{t['D']}-{t['L']} ({t['seconds']:.0f} s)", flush=True)
        out.append({"pair": pair, **pairs[pair]})
    return out


# -- the run ------------------------------------------------------------------------------


def train_command(args: argparse.Namespace, run: Path) -> list[str]:
    given = {o.split("=", 1)[0].lstrip("+~") for o in args.overrides}
    defaults = {
        "variant": args.variant,
        "run_dir": str(run),
        "threads": str(args.threads),
        "progress": "false",
        "train.max_minutes": str(args.minutes),
        "train.iterations": str(KEEP_ALL),
        "train.keep_checkpoints": str(KEEP_ALL),
        "train.eval.every": "0",
        "train.final_eval.games": "0",
    }
    return _train_cli(*(f"{k}={v}" for k, v in defaults.items() if k not in given), *args.overrides)


def _train_cli(*overrides: str) -> list[str]:
    """drl-train from this checkout, whatever the environment's scripts point to."""
    return [sys.executable, "-m", "drl.cli.train", *overrides]


def pick_checkpoints(run: Path, points: int) -> list[tuple[Path, dict]]:
    """About ``points`` checkpoints spread evenly in training CPU time (the last always)."""
    from drl.nn.checkpoint import list_checkpoints, load_checkpoint

    found = []
    for p in list_checkpoints(run / "checkpoints"):
        c = load_checkpoint(p)["counters"]
        if c["iteration"] > 0:
            found.append((p, c))
    if not found:
        raise SystemExit(f"no trained checkpoint in {run / 'checkpoints'}")
    total = float(found[-1][1].get("cpu_minutes", len(found)))
    chosen: dict[Path, dict] = {}
    for k in range(1, points + 1):
        target = total * k / points
        p, c = min(found, key=lambda pc: abs(float(pc[1].get("cpu_minutes", 0.0)) - target))
        chosen[p] = c
    chosen[found[-1][0]] = found[-1][1]
    return sorted(chosen.items(), key=lambda pc: pc[1]["iteration"])


def _git_commit() -> str | None:
    try:
        return subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def evaluate(args: argparse.Namespace, run: Path, out_dir: Path) -> dict:
    ladder = ladder_games(args, out_dir)
    games = [tuple(g) for lad in ladder for g in lad["results"]]
    points = []
    for ckpt, counters in pick_checkpoints(run, args.points):
        name = f"ckpt-{counters['iteration']:08d}"
        rungs: dict[str, dict] = {}
        move_times = []
        for d in args.ladder:
            opp = f"alphabeta:depth={d}"
            t0 = time.perf_counter()
            recs, per_move = play_checkpoint(ckpt, name, opp, args)
            move_times.append(per_move)
            rungs[opp] = {**tally(recs, name), "az_seconds_per_move": per_move}
            games += elo_games(recs)
            _say(name, opp, rungs[opp], time.perf_counter() - t0)
        # alpha-beta's shortest move time (its time parameter's minimum) bounds the rung
        t_move = max(sum(move_times) / len(move_times), MIN_MOVE_TIME)
        opp = f"alphabeta:time={t_move:.4g}"
        t0 = time.perf_counter()
        recs, per_move = play_checkpoint(ckpt, name, opp, args)
        timed = f"{opp}@{name}"  # its own player: T differs per checkpoint
        games += [
            (timed if b == opp else b, timed if w == opp else w, s) for b, w, s in elo_games(recs)
        ]
        rungs[opp] = {**tally(recs, name), "az_seconds_per_move": per_move, "time_rung": True}
        _say(name, opp, rungs[opp], time.perf_counter() - t0)
        points.append(
            {
                "checkpoint": ckpt.name,
                "name": name,
                "timed_player": timed,
                "iteration": int(counters["iteration"]),
                "cpu_minutes": counters.get("cpu_minutes"),
                "wall_minutes": counters.get("wall_minutes"),
                "learner_steps": counters.get("learner_steps"),
                "games": counters.get("games"),
                "az_seconds_per_move": t_move,
                "rungs": rungs,
            }
        )
    ratings = rate(games, args.prior_draws)
    for p in points:
        p.update({k: ratings[p["name"]][k] for k in ("elo", "lower", "upper")})
        p["time_rung_elo"] = ratings[p.pop("timed_player")]["elo"]
    return {
        "ladder": {
            f"alphabeta:depth={d}": ratings[f"alphabeta:depth={d}"]
            for d in range(1, max(args.ladder) + 1)
            if f"alphabeta:depth={d}" in ratings
        },
        "ladder_games": [{k: v for k, v in lad.items() if k != "results"} for lad in ladder],
        "checkpoints": points,
        "ratings": ratings,
    }


def _say(name: str, opp: str, t: dict, secs: float) -> None:
    roles = "".join(f"  {k} {v['W']}-{v['D']}-{v['L']}" for k, v in t.get("roles", {}).items())
    print(
        f"{name} vs {opp}: {t['W']}-{t['D']}-{t['L']} score {t['score']:.3f}{roles}  "
        f"{t['az_seconds_per_move'] * 1000:.1f} ms/move  ({secs:.0f} s)",
        flush=True,
    )


# -- plots --------------------------------------------------------------------------------


def _f(x: float | str) -> float:
    return float(x)  # also "inf" / "-inf"


def plot(results: Sequence[dict], path: Path, labels: Sequence[str]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    for res, label in zip(results, labels, strict=True):
        pts = [p for p in res["checkpoints"] if math.isfinite(_f(p["elo"]))]
        x = [p["cpu_minutes"] for p in pts]
        y = [_f(p["elo"]) for p in pts]
        lo = [max(_f(p["lower"]), -3000.0) for p in pts]
        hi = [min(_f(p["upper"]), 3000.0) for p in pts]
        (line,) = ax.plot(x, y, "o-", label=label)
        ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.2)
    for rung, r in results[0]["ladder"].items():
        if math.isfinite(_f(r["elo"])):
            ax.axhline(_f(r["elo"]), ls=":", color="grey", lw=1)
            ax.annotate(
                rung.split(":", 1)[1],
                (1.0, _f(r["elo"])),
                xycoords=("axes fraction", "data"),
                fontsize=8,
                color="grey",
                ha="right",
                va="bottom",
            )
    ax.set_xlabel("training CPU-minutes")
    ax.set_ylabel(f"Elo ({ANCHOR} = 0, 95% interval)")
    ax.set_title(f"learning speed, {results[0]['variant']}")
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def role_scores(checkpoint: dict) -> dict[str, float]:
    """Score per Give and Take role of one checkpoint, pooled over the fixed-depth rungs
    (the timed rung is left out: its time differs from checkpoint to checkpoint)."""
    tot: dict[str, list[float]] = {}
    for rung, r in checkpoint["rungs"].items():
        if "time=" in rung:
            continue
        for role, t in r.get("roles", {}).items():
            acc = tot.setdefault(role, [0.0, 0.0])
            acc[0] += t["score"] * t["games"]
            acc[1] += t["games"]
    return {role: a[0] / a[1] for role, a in tot.items() if a[1]}


def plot_roles(results: Sequence[dict], path: Path, labels: Sequence[str]) -> None:
    """Per-role score (Give and Take) against training CPU-minutes, one line per run and
    role: shows whether one role is learnt at the cost of the other."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    for res, label in zip(results, labels, strict=True):
        pts = [(p["cpu_minutes"], role_scores(p)) for p in res["checkpoints"]]
        for role, style in (("taker", "o-"), ("giver", "s--")):
            xy = [(x, sc[role]) for x, sc in pts if role in sc]
            if xy:
                ax.plot(*zip(*xy, strict=True), style, label=f"{label}, {role}")
    ax.axhline(0.5, ls=":", color="grey", lw=1)
    ax.set_xlabel("training CPU-minutes")
    ax.set_ylabel("score against the depth rungs (pooled)")
    ax.set_ylim(0, 1)
    ax.set_title(f"score per role, {results[0]['variant']}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _roles_path(path: Path) -> Path:
    return path.with_name(path.stem + "-roles.png")


def _load_result(ref: str, out_dir: Path) -> dict:
    p = Path(ref)
    if p.suffix != ".json":
        p = out_dir / f"{ref}.json"
    try:
        return json.loads(p.read_text())
    except FileNotFoundError:
        raise SystemExit(f"--compare {ref}: no result {p} (run the benchmark first)") from None
    except json.JSONDecodeError as exc:
        raise SystemExit(f"--compare {ref}: {p} is not a result file ({exc})") from None


# -- command line -------------------------------------------------------------------------


def parse(argv: Sequence[str]) -> argparse.Namespace:
    argv = list(argv)
    cut = argv.index("--") if "--" in argv else len(argv)
    ap = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="drl-train overrides go after `--`, e.g. `-- train.search_value_weight=0`.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    ap.add_argument("--name")
    ap.add_argument("--variant", default="give_and_take")
    ap.add_argument("--minutes", type=float, default=12.0, help="training wall-time budget")
    ap.add_argument("--threads", type=int, default=1, help="drl-train and evaluation threads")
    ap.add_argument("--workers", type=int, default=None, help="game processes (default --threads)")
    ap.add_argument("--games", type=int, default=32, help="games per checkpoint and rung")
    ap.add_argument("--sims", type=int, default=64, help="network's simulations per move")
    ap.add_argument("--points", type=int, default=5, help="checkpoints rated")
    ap.add_argument(
        "--ladder", default="1,2,3,4,5,6", help="alpha-beta depths played, a comma list"
    )
    ap.add_argument("--openings", type=int, default=4, help="plies of the random openings")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-plies", type=int, default=200)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--prior-draws", type=float, default=0.0, help="fit_elo's virtual draws")
    ap.add_argument("--out-dir", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--eval-only", action="store_true", help="rate an existing run folder")
    ap.add_argument("--compare", nargs="+", metavar="RUN", help="names or JSON paths to plot")
    ap.add_argument("--out", type=Path, help="--compare: the PNG written")
    equal_time.add_options(ap)
    args = ap.parse_args(argv[:cut])
    equal_time.check_options(ap, args)
    args.overrides = argv[cut + 1 :]
    try:
        args.ladder = sorted({int(d) for d in args.ladder.split(",") if d.strip()})
    except ValueError:
        ap.error(f"--ladder {args.ladder!r}: expected depths as a comma list, e.g. 1,2,4")
    if not args.ladder or min(args.ladder) < 1 or max(args.ladder) > MAX_RUNG:
        ap.error(f"--ladder needs depths in 1..{MAX_RUNG}")
    for key, low in (("threads", 1), ("games", 1), ("sims", 1), ("points", 1), ("openings", 0)):
        if getattr(args, key) < low:
            ap.error(f"--{key} must be >= {low}, got {getattr(args, key)}")
    if args.workers is not None and args.workers < 1:
        ap.error(f"--workers must be >= 1, got {args.workers}")
    if not (args.minutes > 0 and math.isfinite(args.minutes)):
        ap.error(f"--minutes must be a finite number > 0 (the training budget), got {args.minutes}")
    args.workers = args.threads if args.workers is None else args.workers
    if not args.compare and not args.name:
        ap.error("--name is required (or --compare)")
    return args


def warm_up(args: argparse.Namespace) -> None:
    """Compile (or load from numba's cache) every kernel a training run uses, in a tiny
    throw-away run, so that compiling is not counted in the budget of the run measured."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = _train_cli(
            f"variant={args.variant}",
            f"run_dir={tmp}/warm",
            "train=tiny",
            "threads=1",
            "progress=false",
            "tensorboard=false",
            "train.iterations=1",
            # the algorithm's own kernels (minimax self-play: the alpha-beta search)
            *(o for o in args.overrides if o.split("=", 1)[0].lstrip("+~") == "algo"),
        )
        subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, check=False)


def main(argv: Sequence[str] | None = None) -> None:
    raw = list(sys.argv[1:] if argv is None else argv)
    args = parse(raw)
    out_dir = args.out_dir.resolve()
    if args.compare:
        results = [_load_result(r, out_dir) for r in args.compare]
        out = args.out or out_dir / ("compare-" + "-".join(r["name"] for r in results) + ".png")
        plot(results, out, [r["name"] for r in results])
        equal_time.plot(results, equal_time.plot_path(out), [r["name"] for r in results])
        if any(role_scores(p) for r in results for p in r["checkpoints"]):
            plot_roles(results, _roles_path(out), [r["name"] for r in results])
        print(f"wrote {out}")
        return
    import torch

    device = args.device
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    args.device = device
    torch.set_num_threads(args.threads)
    print(f"device {device}, {args.threads} thread(s), {args.workers} worker(s)", flush=True)
    run = out_dir / "runs" / args.name
    out_dir.mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()
    cmd = train_command(args, run)
    train_info: dict[str, Any] = {"command": shlex.join(cmd)}
    if not args.eval_only:
        print(f"training {args.minutes:g} min: {shlex.join(cmd[3:])}", flush=True)
        warm_up(args)
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=ROOT)
        if proc.returncode != 0:
            raise SystemExit(f"drl-train failed (exit status {proc.returncode}); see above")
        train_info["wall_s"] = time.perf_counter() - t0
    elif not run.is_dir():
        raise SystemExit(f"--eval-only: no run folder {run}")
    t0 = time.perf_counter()
    result = {
        "name": args.name,
        "variant": args.variant,
        "command": shlex.join([sys.executable, *sys.argv[:1], *raw]),
        "overrides": args.overrides,
        "train": train_info,
        "settings": {
            k: getattr(args, k)
            for k in (
                "minutes",
                "threads",
                "workers",
                "games",
                "sims",
                "points",
                "ladder",
                "openings",
                "seed",
                "max_plies",
                "prior_draws",
                "equal_time",
                "equal_games",
                "equal_games_last",
            )
        },
        "git_commit": _git_commit(),
        **evaluate(args, run, out_dir),
    }
    result["algo"] = equal_time.add_rungs(args, run, result["checkpoints"])
    result["eval_wall_s"] = time.perf_counter() - t0
    result["machine"] = {
        "cpu_count": os.cpu_count(),
        "loadavg_before": list(load_before),
        "loadavg_after": list(os.getloadavg()),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "torch_threads": torch.get_num_threads(),
        "device": device,
    }
    _write(result, out_dir, args.name)


def _write(result: dict, out_dir: Path, name: str) -> None:
    """The result's JSON and plots, and a summary line per rated checkpoint."""
    js = out_dir / f"{name}.json"
    js.write_text(json.dumps(result, indent=1))
    plot([result], out_dir / f"{name}.png", [name])
    equal_time.plot([result], equal_time.plot_path(out_dir / f"{name}.png"), [name])
    if any(role_scores(p) for p in result["checkpoints"]):
        plot_roles([result], _roles_path(out_dir / f"{name}.png"), [name])
    for p in result["checkpoints"]:
        print(
            f"{p['name']}: {p['cpu_minutes']:.2f} CPU-min  Elo {_f(p['elo']):.0f} "
            f"[{_f(p['lower']):.0f}, {_f(p['upper']):.0f}]"
        )
        if "equal_time" in p:
            e = p["equal_time"]
            print(f"  at equal time, {e['agent']} vs {e['opponent']}: Elo {e['elo']:.0f}")
    print(f"wrote {js} and {js.with_suffix('.png')}")


if __name__ == "__main__":
    main()
