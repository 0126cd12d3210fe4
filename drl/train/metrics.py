"""The training loop's clock and what it logs: TensorBoard scalars and metrics.jsonl."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np

from drl._atomic import write_atomic
from drl.eval.arena import write_pdn
from drl.train.evaluate import BaselineResult, elo_for_log
from drl.train.games import SelfPlayStats

__all__ = ["Clock", "Logger", "eval_scalars", "save_eval", "selfplay_scalars", "time_shares"]


def _cpu_seconds() -> float:
    """CPU time of this process and of its children that have been waited for."""
    t = os.times()
    return time.process_time() + t.children_user + t.children_system


class Clock:
    """The run's training time in minutes, over all its sessions.

    This session's since it started plus the earlier sessions' (from the checkpoint's
    counters).
    """

    def __init__(self, wall_minutes: float = 0.0, cpu_minutes: float = 0.0) -> None:
        self.wall0, self.cpu0 = wall_minutes, cpu_minutes
        self.start_wall, self.start_cpu = time.perf_counter(), _cpu_seconds()

    def wall_minutes(self) -> float:
        """Wall-clock minutes of the run so far."""
        return self.wall0 + (time.perf_counter() - self.start_wall) / 60.0

    def cpu_minutes(self) -> float:
        """CPU minutes of the run so far (this process and its waited-for children)."""
        return self.cpu0 + (_cpu_seconds() - self.start_cpu) / 60.0


class Logger:
    """TensorBoard scalars (optional) and metrics.jsonl."""

    def __init__(self, run_dir: Path, tensorboard: bool) -> None:
        self.writer = None
        if tensorboard:
            from torch.utils.tensorboard import SummaryWriter

            self.writer = SummaryWriter(str(run_dir / "tb"))
        self.jsonl = run_dir / "metrics.jsonl"

    def log(self, step: int, scalars: dict[str, float]) -> None:
        """Write ``scalars`` at ``step``: TensorBoard and a metrics.jsonl line."""
        if self.writer is not None:
            for k, v in scalars.items():
                self.writer.add_scalar(k, v, step)
            self.writer.flush()
        with open(self.jsonl, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"iteration": step, **scalars}) + "\n")

    def close(self) -> None:
        """Close the TensorBoard writer."""
        if self.writer is not None:
            self.writer.close()


def selfplay_scalars(st: SelfPlayStats, net_seconds: float, in_flight: int) -> dict[str, float]:
    """Self-play scalars of one call: speed, game length, policy entropy, outcomes.

    ``selfplay/games_per_minute`` is games per minute of the call's wall time.
    """
    secs = max(st.seconds, 1e-9)
    out = {
        "selfplay/games": st.games,
        "selfplay/games_per_minute": st.games / secs * 60.0,
        "selfplay/positions_per_s": st.positions / secs,
        "selfplay/sims_per_s": st.simulations / secs,
        "selfplay/evals_per_s": st.leaf_evals / secs,
        "selfplay/game_length": float(np.mean(st.game_plies)) if st.game_plies else 0.0,
        "selfplay/target_entropy": st.target_entropy,
    }
    if st.net_batches:  # a network called with batches of planes (not inside the search)
        out["selfplay/batch_fill"] = st.leaf_evals / (st.net_batches * in_flight)
        out["selfplay/net_time_fraction"] = net_seconds / secs
    out.update({f"outcome/{k}": v for k, v in st.outcome_mix().items()})
    return out


def eval_scalars(results: list[BaselineResult], prefix: str) -> dict[str, float]:
    """Score per role and Elo of each baseline, under ``prefix/<baseline>/``."""
    out = {}
    for r in results:
        for key, w in r.summary.items():
            out[f"{prefix}/{r.baseline}/{key}/score"] = w.score
        out[f"{prefix}/{r.baseline}/elo"] = elo_for_log(r.summary["all"])
    return out


def save_eval(run_dir: Path, tag: str, results: list[BaselineResult]) -> None:
    """Write ``eval/<tag>.json`` and each baseline's games as PDN.

    The JSON maps each baseline's spec to the run agent's W/D/L by ``all``, colour and
    role, and ``agent`` to the spec of the run's agent that played.
    """
    d = run_dir / "eval"
    d.mkdir(parents=True, exist_ok=True)
    data = {
        r.baseline: {"agent": r.agent, **{k: w.to_dict() for k, w in r.summary.items()}}
        for r in results
    }
    write_atomic(d / f"{tag}.json", json.dumps(data, indent=2))
    for r in results:
        safe = "".join(c if c.isalnum() else "_" for c in r.baseline)
        write_pdn(r.records, d / f"{tag}-{safe}.pdn")


def time_shares(seconds: dict[str, float], total: float) -> dict[str, float]:
    """The share of an iteration's wall time spent in each phase, and the rest.

    Args:
        seconds: wall seconds by phase (e.g. ``selfplay``, ``learner``, ``eval``).
        total: the iteration's wall seconds.

    Returns:
        ``time/<phase>_share`` for each phase and ``time/other_share`` (checkpoints,
        metrics, waiting), each in [0, 1].
    """
    total = max(total, 1e-9)
    out = {f"time/{k}_share": min(v / total, 1.0) for k, v in seconds.items()}
    out["time/other_share"] = max(0.0, 1.0 - sum(seconds.values()) / total)
    return out
