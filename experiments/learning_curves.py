"""Learning evidence: train with periodic evaluation over several seeds, then plot.

Each seed is one ``drl-train`` run (same ``configs/``, any overrides), evaluated every
``train.eval.every`` iterations against the baselines in both roles. The script writes,
under ``experiments/results/<name>/``: ``curves.png`` (score vs iteration per baseline,
mean and per seed), ``final.json`` and ``summary.md`` (final scores with intervals).

    python experiments/learning_curves.py --name gt-default --seeds 0 1 2
    python experiments/learning_curves.py --name gt-puct --seeds 0 1 -- search=puct
    python experiments/learning_curves.py --name gt-default --plot-only

These runs take minutes to hours; run them on a machine you have to yourself.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONFIGS = HERE.parent / "configs"


def compose(overrides: list[str]):
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir
    from omegaconf import OmegaConf

    from drl.train.config import register_configs

    register_configs()
    with initialize_config_dir(config_dir=str(CONFIGS), version_base="1.3"):
        cfg = hydra_compose(config_name="config", overrides=overrides)
    return OmegaConf.to_object(cfg)


def read_metrics(run: Path) -> list[dict]:
    path = run / "metrics.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def plot(name: str, runs: list[Path], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    series: dict[str, dict[int, list[float]]] = {}
    for run in runs:
        for row in read_metrics(run):
            for key, value in row.items():
                if key.startswith("eval/") and key.endswith("/all/score"):
                    series.setdefault(key.split("/")[1], {}).setdefault(
                        row["iteration"], []).append(value)
    if not series:
        print("no evaluation scores yet")
        return
    fig, ax = plt.subplots(figsize=(6, 4))
    for baseline, by_iter in sorted(series.items()):
        its = sorted(by_iter)
        mean = [float(np.mean(by_iter[i])) for i in its]
        ax.plot(its, mean, marker="o", label=f"vs {baseline}")
    ax.set_xlabel("iteration")
    ax.set_ylabel("score of the trained network (draw = 1/2)")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(f"{name}: {len(runs)} seed(s)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "curves.png", dpi=120)


def summarise(runs: list[Path], out: Path) -> None:
    final = {}
    for run in runs:
        f = run / "eval" / "final.json"
        if f.exists():
            final[run.name] = json.loads(f.read_text())
    (out / "final.json").write_text(json.dumps(final, indent=2))
    lines = ["| run | opponent | as | W-D-L | score | 95% CI |", "|---|---|---|---|---|---|"]
    for run, by_base in final.items():
        for base, parts in by_base.items():
            for key, w in parts.items():
                lo, hi = w["score_interval"]
                lines.append(f"| {run} | {base} | {key} | {w['wins']}-{w['draws']}-"
                             f"{w['losses']} | {w['score']:.2f} | {lo:.2f}-{hi:.2f} |")
    (out / "summary.md").write_text("\n".join(lines) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--name", required=True, help="experiment name (folder names)")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--plot-only", action="store_true", help="only redraw from the runs")
    ap.add_argument("overrides", nargs="*", help="Hydra overrides, after --")
    args = ap.parse_args()
    out = HERE / "results" / args.name
    out.mkdir(parents=True, exist_ok=True)
    runs = [HERE / "runs" / f"{args.name}-s{seed}" for seed in args.seeds]
    if not args.plot_only:
        from drl.train.loop import train

        for seed, run in zip(args.seeds, runs):
            cfg = compose(list(args.overrides) + [f"seed={seed}", f"run_dir={run}"])
            train(cfg, run)
    plot(args.name, runs, out)
    summarise(runs, out)
    print(f"results in {out}")


if __name__ == "__main__":
    main()
