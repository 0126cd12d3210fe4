"""drl's best International agent and alpha-beta against Scan 2.0 at fixed depths, rated
on Scan's own ladder.

    python experiments/vs-scan/run_vs_scan.py                       # builds Scan, plays, rates
    python experiments/vs-scan/run_vs_scan.py --scan-dir /tmp/scan --games 20

Scan 2.0 (``../shared/engines/scan-2.0``, GPL-3.0) is built with its ``build.sh`` into a
temporary folder (or ``--scan-dir``) and played over Hub-1 as ``hub:cmd=DIR/scan,cwd=DIR,
depth=D,book=false,tt=20``: no opening book (so its play is reproducible), a 16 MiB
hash table, a fixed search depth. Matches (``--games`` each, seeded distinct openings of
``--openings`` plies, colours swapped every game):

- Scan's ladder: depth ``d_i`` against ``d_(i+1)``, which ties the ladder together;
- each drl player (``--agent``, default the network of ``experiments/vs-scan/international``
  at ``--sims`` simulations, and ``alphabeta:depth=D`` for each of ``--alphabeta``)
  against every Scan depth.

All games are fitted together by :func:`drl.eval.elo.fit_elo` with Scan at depth 1 held at
0 Elo; 95% profile-likelihood intervals (``±inf`` where a player won or lost every game
against everything it met). Writes ``results.json`` (records, ratings, command, machine),
``results.md`` and the games in ``games.pdn``.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))


def build_scan(scan_dir: str | None) -> Path:
    from drl._paths import shared_dir

    if scan_dir and (Path(scan_dir) / "scan").exists():
        return Path(scan_dir)
    script = Path(shared_dir()) / "engines" / "scan-2.0" / "build.sh"
    if not script.exists():
        raise SystemExit(f"no Scan sources at {script.parent} (set DRL_SHARED)")
    target = scan_dir or tempfile.mkdtemp(prefix="drl-scan-")
    out = subprocess.run([str(script), target], check=True, capture_output=True, text=True)
    return Path(out.stdout.strip().splitlines()[-1])


def newest_checkpoint(folder: Path) -> Path | None:
    from drl.nn.checkpoint import load_latest

    found = load_latest(folder / "run" / "checkpoints") if folder.exists() else None
    return None if found is None else Path(found[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scan-dir", default=None, help="a built Scan folder (else built now)")
    ap.add_argument("--scan-depths", default="1,2,4")
    ap.add_argument("--alphabeta", default="2,4", help="alpha-beta depths to rate")
    ap.add_argument("--agent", default=None, help="the drl network spec (default: see doc)")
    ap.add_argument("--sims", type=int, default=64)
    ap.add_argument("--games", type=int, default=20, help="games per pairing (even)")
    ap.add_argument("--openings", type=int, default=4)
    ap.add_argument("--max-plies", type=int, default=300)
    ap.add_argument("--seed", type=int, default=50_000)
    ap.add_argument("--workers", type=int, default=None,
                    help="processes playing the games (default: every usable CPU; a game on "
                         "a clock gets a core of its own)")
    ap.add_argument("--out", default=".", help="folder under experiments/vs-scan/ for the "
                    "results (default: experiments/vs-scan itself)")
    args = ap.parse_args()
    out_dir = HERE / args.out
    out_dir.mkdir(parents=True, exist_ok=True)
    if args.games < 2 or args.games % 2:
        ap.error("--games must be a positive even number (colours swapped)")

    import torch

    torch.set_num_threads(1)
    from drl.eval.arena import match_tasks, run_games, write_pdn
    from drl.eval.settings import MatchSettings
    from drl.eval.elo import fit_elo
    from drl.eval.stats import wdl

    scan = build_scan(args.scan_dir)
    depths = [int(d) for d in args.scan_depths.split(",")]
    scans = {d: f"hub:cmd={scan}/scan,cwd={scan},depth={d},book=false,tt=20" for d in depths}
    name = {spec: f"scan:depth={d}" for d, spec in scans.items()}
    players = []
    agent = args.agent
    if agent is None:
        ckpt = newest_checkpoint(HERE / "international")
        if ckpt is not None:
            agent = f"az:ckpt={ckpt.relative_to(ROOT)},sims={args.sims}"
    if agent:
        players.append(agent)
        name[agent] = "drl network" + f" ({args.sims} sims)"
    for d in [int(x) for x in args.alphabeta.split(",") if x]:
        spec = f"alphabeta:depth={d}"
        players.append(spec)
        name[spec] = spec
    pairings = [(scans[a], scans[b]) for a, b in zip(depths, depths[1:])]
    pairings += [(p, scans[d]) for p in players for d in depths]

    records, all_games, triples = [], [], []
    for k, (a, b) in enumerate(pairings):
        t0 = time.time()
        settings = MatchSettings(openings=args.openings, seed=args.seed + 101 * k,
                                 max_plies=args.max_plies, event="drl vs Scan 2.0")
        tasks = match_tasks(a, b, "international", args.games, settings,
                            names=(name[a], name[b]))
        games = run_games(tasks, workers=args.workers, progress=False)
        all_games += games
        w = wdl(games, name[a])
        lo, hi = w.score_interval
        records.append({"player": name[a], "spec": a, "opponent": name[b], "games": w.games,
                        "wins": w.wins, "draws": w.draws, "losses": w.losses,
                        "truncated": w.truncated, "score": round(w.score, 4),
                        "ci95": [round(lo, 4), round(hi, 4)],
                        "seconds": round(time.time() - t0, 1)})
        triples += [(name[a], name[b], g.score_of(name[a])) for g in games]
        print(f"{name[a]} vs {name[b]}: {w.wins}-{w.draws}-{w.losses} ({w.score:.3f}) "
              f"in {time.time() - t0:.0f} s", flush=True)
    anchor = f"scan:depth={depths[0]}"
    r = fit_elo(triples, anchor=anchor, confidence=0.95)
    ratings = {p: {"elo": float(r.elo[i]), "ci95": [float(r.lower[i]), float(r.upper[i])],
                   "games": int(r.games[i]), "score": float(r.score[i])}
               for i, p in enumerate(r.players)}
    write_pdn(all_games, out_dir / "games.pdn")
    out = {"command": shlex.join(["python", "experiments/vs-scan/run_vs_scan.py", *sys.argv[1:]]),
           "utc": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
           "nproc": os.cpu_count(), "load": list(os.getloadavg()),
           "scan": "Scan 2.0 (Hub-1, book off, tt-size 20)", "anchor": anchor,
           "records": records, "ratings": ratings}
    (out_dir / "results.json").write_text(json.dumps(out, indent=2) + "\n")

    def fmt(x: float) -> str:
        return "inf" if x == float("inf") else "-inf" if x == float("-inf") else f"{x:+.0f}"

    lines = ["# drl against Scan 2.0", "", f"`{out['command']}` ({out['utc']})", "",
             f"Elo with {anchor} = 0 (95% profile intervals), all games fitted together:", "",
             "| player | Elo | 95% CI | games | points |", "|---|---|---|---|---|"]
    for p, v in sorted(ratings.items(), key=lambda kv: -kv[1]["elo"]):
        lines.append(f"| {p} | {fmt(v['elo'])} | {fmt(v['ci95'][0])} to {fmt(v['ci95'][1])} | "
                     f"{v['games']} | {v['score']:.1f} |")
    lines += ["", "| player | opponent | games | W-D-L | truncated | score | 95% CI |",
              "|---|---|---|---|---|---|---|"]
    for rec in records:
        lines.append(f"| {rec['player']} | {rec['opponent']} | {rec['games']} | {rec['wins']}-"
                     f"{rec['draws']}-{rec['losses']} | {rec['truncated']} | {rec['score']:.3f} | "
                     f"{rec['ci95'][0]:.3f}-{rec['ci95'][1]:.3f} |")
    (out_dir / "results.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
