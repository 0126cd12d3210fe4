"""One learning-evidence experiment: train with ``drl-train``, evaluate, report, plot.

    python experiments/run_experiment.py default-give_and_take --variant give_and_take
    python experiments/run_experiment.py long-english --variant english -- train=long
    python experiments/run_experiment.py default-give_and_take --variant give_and_take --stages eval,report

Stages (``--stages``, default all three, in this order):

- ``train``: runs ``drl-train variant=V run_dir=experiments/<name>/run threads=1
  progress=false [overrides...]`` as a subprocess (under ``timeout`` when
  ``--timeout-min`` is given), samples the load average while it runs and writes
  ``experiments/<name>/train.json`` (exact command, start/end UTC, wall seconds, exit
  status, nproc, load averages). The run folder ``run/`` is not committed.
- ``eval``: the newest checkpoint of the run (or ``--checkpoint PATH``) plays ``--games``
  games against each of ``--opponents`` (Give and Take: half as Taker, half as Giver,
  each role from both colours; other variants: half with each colour), all from seeded
  random openings of ``--openings`` plies, the network searching ``--sims`` simulations
  without noise.
  Writes ``results.json``: a list of records ``{variant, agent, opponent, role, games,
  score, wins, draws, losses, truncated, ci95}``, score = (wins + draws/2) / games from
  the trained network's side, ci95 the Wilson interval (``drl.eval.stats``); the games go
  to ``games-<opponent>.pdn``.
- ``report``: ``results.md`` (commands, wall times, machine, eval table) and PNG plots of
  the run's TensorBoard scalars (losses, policy entropy, game length, outcome mix, score
  against the baselines over iterations).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import threading
import time
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
VENV_TRAIN = ROOT / ".venv" / "bin" / "drl-train"


def _utc() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def _load() -> list[float]:
    return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]


def _rel(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def read_json(path: Path, kind: type, keys: tuple[str, ...] = ()) -> Any:
    """The JSON document of ``path`` (a ``kind``: list or dict); with ``keys``, a list of
    records that each hold them. A file that is not that is one clear line (SystemExit)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise SystemExit(f"{_rel(path)}: not a readable JSON file ({err}); restore it from "
                         "git or remove it") from None
    if not isinstance(data, kind):
        raise SystemExit(f"{_rel(path)}: expected a JSON {kind.__name__}, found "
                         f"{type(data).__name__}")
    if keys:
        for i, row in enumerate(data):
            missing = [k for k in keys if not isinstance(row, dict) or k not in row]
            if missing:
                raise SystemExit(f"{_rel(path)}: record {i} lacks {', '.join(missing)}")
    return data


RECORD_KEYS = ("variant", "agent", "opponent", "role", "games", "score", "wins", "draws",
               "losses", "truncated", "ci95")


# --------------------------------------------------------------------------- train


def variant_overrides(variant: str) -> list[str]:
    """drl-train overrides for a variant spec: the preset's config group, and for a spec
    with rule flags (``give_and_take:max_capture=true``) the quoted ``variant.spec``."""
    name, _, flags = variant.partition(":")
    if not flags:
        return [f"variant={name}"]
    return [f"variant={name}", f"variant.spec='{variant}'"]


def stage_train(name: str, variant: str, overrides: list[str], timeout_min: float | None,
                out: Path) -> dict:
    """Run drl-train into ``out/run`` and record how it ran in ``out/train.json``."""
    run = out / "run"
    exe = [str(VENV_TRAIN)] if VENV_TRAIN.exists() else [sys.executable, "-m", "drl.cli.train"]
    args = [*variant_overrides(variant), f"run_dir={_rel(run)}", "threads=1", "progress=false",
            *overrides]
    cmd = exe + args
    if timeout_min:
        cmd = ["timeout", f"{int(timeout_min * 60)}s", *cmd]
    shown = shlex.join([("drl-train" if c == str(VENV_TRAIN) else c) for c in cmd])
    samples: list[list[float]] = []
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            samples.append([round(time.time(), 1), *_load()])
            stop.wait(30.0)

    sampler = threading.Thread(target=sample, daemon=True)
    run.mkdir(parents=True, exist_ok=True)
    info = {"name": name, "variant": variant, "overrides": overrides, "command": shown,
            "invoked_as": shlex.join(["python", _rel(Path(sys.argv[0])), *sys.argv[1:]]),
            "cwd": _rel(ROOT) or ".", "start_utc": _utc(), "nproc": os.cpu_count(),
            "load_before": _load(), "timeout_s": int(timeout_min * 60) if timeout_min else None}
    print(f"[{name}] {shown}", flush=True)
    t0 = time.perf_counter()
    sampler.start()
    with open(run / "train.log", "w", encoding="utf-8") as log:
        rc = subprocess.call(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    stop.set()
    sampler.join()
    info.update({"end_utc": _utc(), "wall_s": round(time.perf_counter() - t0, 1),
                 "returncode": rc, "load_samples": samples})
    loads = [s[1] for s in samples]
    if loads:
        info["load1_mean"] = round(sum(loads) / len(loads), 2)
        info["load1_max"] = max(loads)
    # A run continued with more iterations is a second session of the same run folder.
    path = out / "train.json"
    sessions = read_json(path, dict).get("sessions", []) if path.exists() else []
    sessions.append(info)
    path.write_text(json.dumps({"sessions": sessions}, indent=2) + "\n")
    print(f"[{name}] drl-train exited {rc} after {info['wall_s']:.0f} s", flush=True)
    return info


# --------------------------------------------------------------------------- eval


def _record(variant: str, agent: str, opponent: str, role: str, w) -> dict:
    lo, hi = w.score_interval
    return {"variant": variant, "agent": agent, "opponent": opponent, "role": role,
            "games": w.games, "score": round(w.score, 4), "wins": w.wins, "draws": w.draws,
            "losses": w.losses, "truncated": w.truncated, "ci95": [round(lo, 4), round(hi, 4)]}


def stage_eval(args: argparse.Namespace, out: Path) -> list[dict]:
    """Evaluate the newest checkpoint of ``out/run`` (or ``--checkpoint``); write
    ``results.json`` and PDNs."""
    import torch

    from drl.eval.arena import write_pdn
    from drl.eval.stats import wdl
    from drl.nn import NetworkEvaluator
    from drl.rules import Variant
    from drl.agents.az import search_config_from_checkpoint
    from drl.nn import load
    from drl.nn.checkpoint import load_latest, load_source
    from drl.train.evaluate import EVALUATION_SETTINGS, NET_NAME, play_against_baseline

    torch.set_num_threads(1)
    old_records = (read_json(out / "results.json", list, RECORD_KEYS)
                   if args.append and (out / "results.json").exists() else None)
    first_meta = (read_json(out / "eval.json", dict)
                  if args.append and (out / "eval.json").exists() else None)
    try:
        if args.checkpoint:
            ckpt, payload = load_source(args.checkpoint)
        else:
            found = load_latest(out / "run" / "checkpoints")
            if found is None:
                raise SystemExit(f"no checkpoint under {out / 'run' / 'checkpoints'}")
            ckpt, payload = found
        net = load(payload, "cpu", variant=args.variant, source=f"checkpoint {_rel(ckpt)}")
        search = search_config_from_checkpoint(payload, args.sims, f"checkpoint {_rel(ckpt)}")
    except ValueError as err:  # CheckpointError included: one line naming the file
        raise SystemExit(f"[{args.name}] {err}") from None
    agent = f"az:ckpt={_rel(ckpt)},sims={args.sims}"
    asym = Variant.parse(args.variant).is_asymmetric
    records, timing, distinct = [], {}, {}
    import drl.agents.az as az_module

    clock = {"s": 0.0, "moves": 0}
    choose = az_module.NetworkPlayer.choose_moves

    def timed(self, boards):  # the network's own time per move (its searches only)
        t = time.perf_counter()
        out = choose(self, boards)
        clock["s"] += time.perf_counter() - t
        clock["moves"] += len(boards)
        return out

    az_module.NetworkPlayer.choose_moves = timed
    per_move = {}
    for k, opponent in enumerate(args.opponents):
        t0 = time.perf_counter()
        clock.update(s=0.0, moves=0)
        settings = replace(EVALUATION_SETTINGS, openings=args.openings, seed=args.seed + 7919 * k)
        games = play_against_baseline(NetworkEvaluator(net, "cpu"), search, opponent, args.variant,
                                      args.games, settings=settings)
        timing[opponent] = round(time.perf_counter() - t0, 1)
        per_move[opponent] = round(clock["s"] / max(clock["moves"], 1), 5)
        # Search without noise is close to deterministic: say how many games differ.
        distinct[opponent] = {"games": len({(g.opening, g.moves) for g in games}),
                              "openings": len({g.opening for g in games})}
        safe = "".join(c if c.isalnum() else "_" for c in opponent)
        write_pdn(games, out / f"games-{safe}.pdn")
        groups: list[tuple[str, list]] = []
        if asym:
            for role in ("taker", "giver"):
                sub = [g for g in games if g.role_of(NET_NAME) == role]
                groups.append((role, sub))
                for colour in ("black", "white"):
                    groups.append((f"{role}-{colour}",
                                   [g for g in sub if g.color_of(NET_NAME) == colour]))
        groups.append(("all", games))
        if not asym:
            for colour in ("black", "white"):
                groups.append((colour, [g for g in games if g.color_of(NET_NAME) == colour]))
        for role, sub in groups:
            if sub:
                records.append(_record(args.variant, agent, opponent, role, wdl(sub, NET_NAME)))
        print(f"[{args.name}] vs {opponent}: {len(games)} games in {timing[opponent]:.0f} s, "
              f"the network {1000 * per_move[opponent]:.1f} ms per move", flush=True)
    if old_records is not None:
        # keep the records of the other opponents (another --games or --sims for them)
        old = [r for r in old_records
               if r["opponent"] not in args.opponents or r["agent"] != agent]
        records = old + records
    (out / "results.json").write_text(json.dumps(records, indent=2) + "\n")
    meta = {"checkpoint": _rel(ckpt), "counters": payload["counters"], "sims": args.sims,
            "openings": args.openings, "games_per_opponent": args.games, "seed": args.seed,
            "seconds": timing, "az_seconds_per_move": per_move, "distinct": distinct,
            "end_utc": _utc(), "load": _load(),
            "command": shlex.join(["python", "experiments/run_experiment.py", args.name,
                                   "--variant", args.variant, "--stages", "eval",
                                   "--games", str(args.games), "--sims", str(args.sims),
                                   "--openings", str(args.openings), "--seed", str(args.seed),
                                   "--opponents", *args.opponents,
                                   *(["--checkpoint", args.checkpoint] if args.checkpoint
                                     else [])])}
    if first_meta is not None:
        meta["command"] += " --append"
        first = first_meta
        first["more"] = [m for m in first.get("more", [])
                         if not set(m["opponents"]) & set(args.opponents)
                         or m["sims"] != args.sims]
        first["more"].append({**meta, "opponents": args.opponents})
        meta = first
    (out / "eval.json").write_text(json.dumps(meta, indent=2) + "\n")
    return records


# --------------------------------------------------------------------------- report


def _scalars(run: Path) -> dict[str, tuple[list[int], list[float]]]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(run / "tb"), size_guidance={"scalars": 0})
    acc.Reload()
    out = {}
    for tag in acc.Tags().get("scalars", []):
        ev = acc.Scalars(tag)
        out[tag] = ([e.step for e in ev], [e.value for e in ev])
    return out


def _plot(series: dict, panels: list[tuple[str, list[str], str]], path: Path,
          title: str, ylim: tuple[float, float] | None = None,
          extra: dict[str, list[tuple[str, float, float, float, float]]] | None = None
          ) -> bool:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [(t, [k for k in keys if k in series], y) for t, keys, y in panels]
    panels = [p for p in panels if p[1] or (extra or {}).get(p[0])]
    if not panels:
        return False
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.3), squeeze=False)
    for ax, (sub, keys, ylabel) in zip(axes[0], panels):
        for k in keys:
            steps, vals = series[k]
            label = k.split("/", 1)[1]
            if label.endswith("/score"):
                label = "in training: " + label.split("/")[-2]
            ax.plot(steps, vals, marker="o", markersize=3, label=label)
        for j, (label, x, y, lo, hi) in enumerate((extra or {}).get(sub, [])):
            ax.errorbar([x + 0.15 * j], [y], yerr=[[y - lo], [hi - y]], fmt="s", capsize=3,
                        color="black", alpha=min(1.0, 0.4 + 0.2 * j), markersize=4, label=label)
        ax.set_title(sub, fontsize=10)
        ax.set_xlabel("iteration")
        ax.set_ylabel(ylabel)
        if ylim:
            ax.set_ylim(*ylim)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return True


def plot_run(name: str, run: Path, out: Path) -> list[str]:
    """PNG plots of the run's TensorBoard scalars; returns the file names written (none
    when the run folder is gone: its agent was adopted from elsewhere or it was cleaned)."""
    if not (run / "tb").is_dir():
        print(f"[{name}] no {run / 'tb'}: no training plots", flush=True)
        return []
    s = _scalars(run)
    written = []
    losses = sorted(k for k in s if k.startswith("loss/") and k not in
                    ("loss/policy_entropy", "loss/grad_norm"))
    if _plot(s, [("losses", losses, "loss"),
                 ("entropy", ["loss/policy_entropy", "selfplay/target_entropy"], "nats")],
             out / "losses.png", f"{name}: learner losses and policy entropy"):
        written.append("losses.png")
    outcomes = sorted(k for k in s if k.startswith("outcome/"))
    if _plot(s, [("self-play game length", ["selfplay/game_length"], "plies"),
                 ("self-play outcomes", outcomes, "fraction of games")],
             out / "selfplay.png", f"{name}: self-play games"):
        written.append("selfplay.png")
    evals = sorted({k.split("/")[1] for k in s if k.startswith(("eval/", "final_eval/"))})
    panels = []
    for base in evals:
        # The in-training final evaluation is logged at the last iteration; join it on.
        keys = sorted({k.removeprefix("final_") for k in s
                       if k.startswith((f"eval/{base}/", f"final_eval/{base}/"))
                       and k.endswith(("/all/score", "/taker/score", "/giver/score"))})
        for k in keys:
            parts = [s[x] for x in (k, "final_" + k) if x in s]
            pts = sorted((st, v) for p in parts for st, v in zip(*p))
            s[k] = ([st for st, _ in pts], [v for _, v in pts])
        panels.append((f"vs {base}", keys, "score (draw = 1/2)"))
    # The final evaluation of this script (results.json), with its 95% interval.
    extra: dict[str, list] = {}
    if (out / "results.json").exists() and (out / "eval.json").exists():
        it = read_json(out / "eval.json", dict).get("counters", {}).get("iteration")
        for r in read_json(out / "results.json", list, RECORD_KEYS):
            if r["role"] in ("all", "taker", "giver"):
                extra.setdefault(f"vs {r['opponent']}", []).append(
                    (f"final {r['games']} games: {r['role']}", it, r["score"], *r["ci95"]))
        for base in {r[len("vs "):] for r in extra} - set(evals):
            panels.append((f"vs {base}", [], "score (draw = 1/2)"))
    if _plot(s, panels, out / "scores.png",
             f"{name}: score vs baselines (lines: in-training evaluations, squares: final)",
             ylim=(-0.02, 1.02), extra=extra):
        written.append("scores.png")
    return written


def _table(records: list[dict]) -> list[str]:
    lines = ["| opponent | sims | role | games | W-D-L | truncated | score | 95% CI |",
             "|---|---|---|---|---|---|---|---|"]
    for r in records:
        lo, hi = r["ci95"]
        sims = r["agent"].rsplit("sims=", 1)[-1]
        lines.append(f"| {r['opponent']} | {sims} | {r['role']} | {r['games']} | {r['wins']}-"
                     f"{r['draws']}-{r['losses']} | {r['truncated']} | {r['score']:.3f} | "
                     f"{lo:.3f}-{hi:.3f} |")
    return lines


def stage_report(args: argparse.Namespace, out: Path) -> None:
    """Write ``results.md`` and the PNG plots."""
    if not any((out / f).exists() for f in ("train.json", "eval.json", "results.json")):
        raise SystemExit(f"{out}: nothing to report (no train.json, eval.json or results.json; "
                         "run the train or eval stage first)")
    train = read_json(out / "train.json", dict).get("sessions", []) \
        if (out / "train.json").exists() else []
    ev = read_json(out / "eval.json", dict) if (out / "eval.json").exists() else {}
    records = read_json(out / "results.json", list, RECORD_KEYS) \
        if (out / "results.json").exists() else []
    pngs = plot_run(args.name, out / "run", out)
    lines = [f"# {args.name}: {args.variant}", "",
             "Produced by `experiments/run_experiment.py` (run from the repository root).", "",
             "## Training", ""]
    total = 0.0
    for i, t in enumerate(train, 1):
        total += t["wall_s"]
        loads = t.get("load1_mean"), t.get("load1_max")
        lines += [f"Session {i}: `{t['command']}`", "",
                  f"- {t['start_utc']} to {t['end_utc']}: wall time {t['wall_s']:.0f} s "
                  f"({t['wall_s'] / 60:.1f} min), exit status {t['returncode']}",
                  f"- machine: nproc {t['nproc']}; 1-minute load average before "
                  f"{t['load_before'][0]:.2f}, during the run mean {loads[0]} / max {loads[1]}"
                  " (sampled every 30 s; other work shared the machine)", ""]
    if train:
        lines += [f"Total training wall time: {total:.0f} s ({total / 60:.1f} min), which "
                  "includes drl-train's periodic and final in-training evaluations.", ""]
    if ev:
        c = ev["counters"]
        lines += ["## Evaluation", "", f"`{ev['command']}`", "",
                  f"Checkpoint `{ev['checkpoint']}` (iteration {c['iteration']}, "
                  f"{c['learner_steps']} learner steps, {c['games']} self-play games, "
                  f"{c['positions']} positions). The network searches {ev['sims']} "
                  f"simulations per step without noise; {ev['games_per_opponent']} games per "
                  f"opponent from seeded random openings of {ev['openings']} plies, colours "
                  "(and in Give and Take roles) alternating. Score = (wins + draws/2) / games "
                  "from the trained network's side; 95% Wilson interval; games cut at 200 "
                  "plies count as draws (column truncated). Eval wall time per opponent (s): "
                  + ", ".join(f"{k} {v:.0f}" for k, v in ev["seconds"].items()) + "."]
        if "az_seconds_per_move" in ev:
            lines += ["The network's own time per move (its searches over the games in "
                      "flight, divided by its moves): " + ", ".join(
                          f"{k} {1000 * v:.1f} ms"
                          for k, v in ev["az_seconds_per_move"].items()) + "."]
        if "distinct" in ev:
            lines += ["Distinct games (openings) per opponent, the network's search being "
                      "nearly deterministic: " + ", ".join(
                          f"{k} {v['games']} ({v['openings']})"
                          for k, v in ev["distinct"].items()) + "."]
        for m in ev.get("more", []):
            lines += ["", f"Also: `{m['command']}` ({m['games_per_opponent']} games per opponent "
                      f"at {m['sims']} simulations; wall time (s): "
                      + ", ".join(f"{k} {v:.0f}" for k, v in m["seconds"].items())
                      + "".join(f"; the network {1000 * v:.1f} ms per move against {k}"
                                for k, v in m.get("az_seconds_per_move", {}).items())
                      + ")."]
        lines += [""]
    lines += _table(records) + [""]
    if pngs:
        lines += ["## Curves (TensorBoard scalars of the run)", ""]
        lines += [f"![{p}]({p})" for p in pngs] + [""]
    (out / "results.md").write_text("\n".join(lines))
    print(f"[{args.name}] wrote {out / 'results.md'} and {', '.join(pngs)}", flush=True)


def _continue_from(src: Path, out: Path) -> None:
    """Copy ``src/run`` and ``src/train.json`` into ``out``."""
    import shutil

    if (out / "run").exists():
        raise SystemExit(f"{out / 'run'} exists already; continue it without --continue-from")
    if not (src / "run" / "checkpoints").is_dir():
        raise SystemExit(f"{src / 'run'} has no checkpoints to continue from")
    shutil.copytree(src / "run", out / "run")
    sessions = read_json(src / "train.json", dict).get("sessions", [])
    for sess in sessions:
        sess["copied_from"] = _rel(src)
    (out / "train.json").write_text(json.dumps({"sessions": sessions}, indent=2) + "\n")


def check_args(ap: argparse.ArgumentParser, args: argparse.Namespace) -> Path:
    """Refuse bad arguments (``ap.error``: one line, exit status 2) before anything is
    loaded or played; returns the experiment folder, which must lie inside experiments/."""
    import math

    from drl.agents import parse_spec
    from drl.agents.az import MAX_SIMULATIONS
    from drl.eval.limits import MAX_GAMES, check_count, check_openings
    from drl.rules import Variant

    here = HERE.resolve()
    out = (here / args.name).resolve()
    if out == here or here not in out.parents:
        ap.error(f"experiment name {args.name!r}: the folder must lie inside {_rel(HERE)}/")
    try:
        asym = Variant.parse(args.variant).is_asymmetric
    except ValueError as err:
        ap.error(f"--variant {args.variant!r}: {str(err).splitlines()[0]}")
    if args.games < 1 or (asym and args.games % 4):
        ap.error(f"--games {args.games}: must be >= 1" + (
            " and a multiple of 4 (each role from both colours)" if asym else ""))
    if not 1 <= args.sims <= MAX_SIMULATIONS:
        ap.error(f"--sims {args.sims}: must be in 1..{MAX_SIMULATIONS}")
    try:
        check_openings(args.openings)
        check_count(args.games, "--games", 1, MAX_GAMES)
    except ValueError as err:
        ap.error(str(err))
    if args.seed < 0:
        ap.error(f"--seed {args.seed}: must be >= 0")
    if args.timeout_min is not None and not (0 < args.timeout_min < math.inf):
        ap.error(f"--timeout-min {args.timeout_min}: must be a finite number of minutes > 0")
    for spec in args.opponents:
        try:
            parse_spec(spec)
        except ValueError as err:
            ap.error(f"--opponents {spec!r}: {str(err).splitlines()[0]}")
    if args.checkpoint and not Path(args.checkpoint).expanduser().exists():
        ap.error(f"--checkpoint {args.checkpoint}: no such file or run folder")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("name", help="experiment folder under experiments/")
    ap.add_argument("--variant", required=True)
    ap.add_argument("--stages", default="train,eval,report")
    ap.add_argument("--timeout-min", type=float, default=None,
                    help="kill drl-train after this many minutes")
    ap.add_argument("--continue-from", default=None, metavar="NAME",
                    help="start from a copy of experiments/NAME/run (and its train.json): "
                    "a longer run whose first iterations are that experiment's")
    ap.add_argument("--games", type=int, default=64, help="games per opponent")
    ap.add_argument("--append", action="store_true",
                    help="eval: add these opponents' records to results.json (replacing "
                         "theirs at the same simulations) instead of writing it afresh")
    ap.add_argument("--sims", type=int, default=64, help="network simulations per move")
    ap.add_argument("--openings", type=int, default=4, help="plies of random openings")
    ap.add_argument("--opponents", nargs="+", default=["random", "alphabeta:depth=2"])
    ap.add_argument("--checkpoint", default=None, metavar="PATH",
                    help="eval: this checkpoint (e.g. an adopted agent.pt, with its .sha256 "
                    "beside it) instead of the run's newest")
    ap.add_argument("--seed", type=int, default=20_000, help="evaluation seed")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args = ap.parse_args(argv[:cut])
    args.overrides = argv[cut + 1:]  # drl-train (Hydra) overrides, after --
    out = check_args(ap, args)
    stages = [s.strip() for s in args.stages.split(",") if s.strip()]
    for s in stages:
        if s not in ("train", "eval", "report"):
            ap.error(f"unknown stage {s!r}; stages are train, eval, report")
    if "train" not in stages and not args.continue_from and not out.is_dir():
        ap.error(f"no experiment folder {out}: run the train stage first")
    if args.continue_from and not (HERE / args.continue_from / "run").is_dir():
        ap.error(f"--continue-from {args.continue_from}: no run folder "
                 f"{_rel(HERE / args.continue_from / 'run')}")
    out.mkdir(parents=True, exist_ok=True)
    if args.continue_from:
        _continue_from(HERE / args.continue_from, out)
        if not any(o.split("=", 1)[0].lstrip("+") == "train.max_minutes" for o in args.overrides):
            # the time budget covers every session of a run: without this an extended run
            # whose first session used it up would train nothing
            args.overrides.append("train.max_minutes=0")
    if "train" in stages:
        info = stage_train(args.name, args.variant, args.overrides, args.timeout_min, out)
        if info["returncode"] != 0:
            print(f"[{args.name}] training did not finish cleanly; evaluating the newest "
                  "checkpoint anyway", flush=True)
    if "eval" in stages:
        stage_eval(args, out)
    if "report" in stages:
        stage_report(args, out)


if __name__ == "__main__":
    main()
