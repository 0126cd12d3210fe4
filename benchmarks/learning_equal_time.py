"""The equal-time rung of ``benchmarks/learning_speed.py``.

Each rated checkpoint plays, with a clock of ``T`` seconds per move (``--equal-time``,
0.1 by default), against ``alphabeta:time=T``, the material-count alpha-beta with the same
clock. The checkpoint plays as the searcher its algorithm trained: ``az:ckpt=PATH,time=T``
(MCTS with the network) for AlphaZero self-play, ``alphabeta:ckpt=PATH,time=T`` (alpha-beta
with the network's value at the leaves) for minimax self-play (``algo=minimax``). The
arena plays an equal-time match one game at a time per agent, so that no agent shares its
clock between games.

The Elo of a point is that of its score against ``alphabeta:time=T`` (that opponent = 0),
with the ends of the score's 95% Wilson interval; the plot draws it against training
wall-clock minutes, one line per run (runs of both algorithms with the same
``--minutes`` are compared at the same budgets).
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ELO_CAP = 800.0  # a score of 0 or 1 is drawn at this many Elo (an unbounded rating)


def run_algo(run: Path) -> str:
    """The self-play algorithm of a run folder (``az`` or ``minimax``), from its config."""
    import yaml

    cfg = yaml.safe_load((run / "config.yaml").read_text()) or {}
    algo = cfg.get("algo") or {}
    return str(algo.get("name", "az")) if isinstance(algo, dict) else "az"


def agent_spec(algo: str, ckpt: Path, seconds: float) -> str:
    """The checkpoint's agent with a clock: the searcher ``algo`` trained."""
    if algo == "minimax":
        return f"alphabeta:ckpt={ckpt},time={seconds:g}"
    if algo == "az":
        return f"az:ckpt={ckpt},time={seconds:g}"
    raise ValueError(f"unknown algorithm {algo!r}: expected 'az' or 'minimax'")


def elo_of(score: float, lo: float, hi: float) -> dict[str, float]:
    """``{elo, lower, upper}`` of a score and its interval, capped at ``±ELO_CAP``."""

    def e(s: float) -> float:
        if s <= 0:
            return -ELO_CAP
        if s >= 1:
            return ELO_CAP
        return max(-ELO_CAP, min(ELO_CAP, 400.0 * math.log10(s / (1.0 - s))))

    return {"elo": e(score), "lower": e(lo), "upper": e(hi)}


def play_point(
    args: argparse.Namespace, algo: str, ckpt: Path, name: str, games: int
) -> dict[str, Any]:
    """The checkpoint's equal-time games against ``alphabeta:time=T``, summarised."""
    from drl.eval.arena import match_tasks, run_games
    from drl.eval.stats import summarize

    seconds = args.equal_time
    agent, opp = agent_spec(algo, ckpt, seconds), f"alphabeta:time={seconds:g}"
    tasks = match_tasks(
        agent,
        opp,
        args.variant,
        games,
        openings=args.openings,
        seed=args.seed,
        max_plies=args.max_plies,
        names=(name, opp),
        event="learning-speed equal time",
    )
    t0 = time.perf_counter()
    records = run_games(tasks, workers=args.workers, progress=False)
    w = summarize(records, name)["all"]
    lo, hi = w.score_interval
    out = {
        "agent": agent,
        "opponent": opp,
        "games": w.games,
        "W": w.wins,
        "D": w.draws,
        "L": w.losses,
        "score": w.score,
        "ci95": [lo, hi],
        **elo_of(w.score, lo, hi),
        "seconds": time.perf_counter() - t0,
    }
    print(
        f"{name} {agent.split(':', 1)[0]} vs {opp}: {w.wins}-{w.draws}-{w.losses} "
        f"score {w.score:.3f} [{lo:.2f}, {hi:.2f}]  ({out['seconds']:.0f} s)",
        flush=True,
    )
    return out


def add_rungs(args: argparse.Namespace, run: Path, points: list[dict]) -> str:
    """Play the equal-time rung of every rated point; returns the run's algorithm.

    ``points`` are the checkpoints' dicts, with ``checkpoint`` and ``name``; each plays
    ``--equal-games`` games, the last ``--equal-games-last``.
    """
    algo = run_algo(run)
    if args.equal_time <= 0:
        return algo
    for k, p in enumerate(points):
        games = args.equal_games_last if k == len(points) - 1 else args.equal_games
        if games > 0:
            ckpt = run / "checkpoints" / p["checkpoint"]
            p["equal_time"] = play_point(args, algo, ckpt, p["name"], games)
    return algo


def add_options(ap: argparse.ArgumentParser) -> None:
    """The rung's command-line options."""
    ap.add_argument(
        "--equal-time",
        type=float,
        default=0.1,
        help="seconds per move of the equal-time rung (both agents); 0 = no rung",
    )
    ap.add_argument(
        "--equal-games", type=int, default=32, help="equal-time games per rated checkpoint"
    )
    ap.add_argument(
        "--equal-games-last", type=int, default=100, help="equal-time games at the last one"
    )


def check_options(ap: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse bad rung options with the parser's error."""
    t = args.equal_time
    if not (math.isfinite(t) and (t == 0 or t >= 1e-3)):
        ap.error(f"--equal-time must be 0 (no rung) or a finite number >= 0.001, got {t}")
    for key in ("equal_games", "equal_games_last"):
        if getattr(args, key) < 0:
            ap.error(f"--{key.replace('_', '-')} must be >= 0, got {getattr(args, key)}")


def plot(results: Sequence[dict], path: Path, labels: Sequence[str]) -> bool:
    """Elo at equal time against training wall minutes, one line per run.

    Returns False (nothing written) when no run has an equal-time rung.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lines = []
    for res, label in zip(results, labels, strict=True):
        pts = [p for p in res["checkpoints"] if "equal_time" in p]
        if pts:
            lines.append((res, label, pts))
    if not lines:
        return False
    fig, ax = plt.subplots(figsize=(8, 5))
    for res, label, pts in lines:
        x = [p["wall_minutes"] for p in pts]
        y = [p["equal_time"]["elo"] for p in pts]
        lo = [p["equal_time"]["lower"] for p in pts]
        hi = [p["equal_time"]["upper"] for p in pts]
        (line,) = ax.plot(x, y, "o-", label=f"{label} ({res.get('algo', 'az')})")
        ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.2)
    ax.axhline(0.0, ls=":", color="grey", lw=1)
    opp = lines[0][2][0]["equal_time"]["opponent"]
    ax.set_xlabel("training wall-clock minutes")
    ax.set_ylabel(f"Elo against {opp} (= 0), 95% interval")
    ax.set_title(f"equal time per move, {results[0]['variant']}")
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def plot_path(path: Path) -> Path:
    """The equal-time plot beside the main one."""
    return path.with_name(path.stem + "-equal-time.png")
