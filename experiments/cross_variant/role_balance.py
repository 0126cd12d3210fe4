"""Give and Take role balance: the Taker's score against the Giver when one player plays
both roles, for trained agents at several search budgets and for alpha-beta at several
depths (a search-only reference), in the base game and its variations.

    python experiments/cross_variant/role_balance.py                  # every row
    python experiments/cross_variant/role_balance.py --only gt-10x10 --games 32
    python experiments/cross_variant/role_balance.py --study strong --only give_and_take \
        --sims 64,800 --depths "" --games 256     # the agents of cross_variant/strong/

Each row is a match of the player against itself from seeded distinct random openings
(``--openings`` plies), one game per opening (the same player on both sides of a pair
would replay the first game), the Taker's colour alternating from game to game. The
Taker's score is (Taker wins + draws / 2) / games, draws including games cut at
``--max-plies``; the interval is the 95% Wilson interval. Rows go to
``role_balance.json`` (and ``role_balance.md``) as they finish; rows already there are
kept and not played again unless ``--redo``. With ``--study NAME`` the trained agents are
those of ``cross_variant/NAME/<variation>/agent.pt`` and the rows go to that folder's
``role_balance.json`` / ``.md``, whose table also shows the alpha-beta rows of this folder's
file for the same variations.

What an estimate depends on: the players (a stronger player can move the balance either
way), the search budget, the opening plies (random openings may hand one side an
advantage the start position does not), and the ply cap (a truncated game counts as a
draw).

Database endings: the arena ends a game at a position that the variant's endgame
database decides (termination ``database``, the exact result; ``docs/egtb.md``) where
that database is on disk at ``DRL_EGTB_DIR`` (the players' searches probe it too, their
default); ``--no-egtb`` plays every game out (the arena's endings off). A row counts
those games (``database``) beside the cut ones. ``--out FILE.json`` writes the rows there
(and ``FILE.md``, without the alpha-beta rows of this folder) instead of the study's
``role_balance.*``, each finished game as it ends to ``FILE.games.jsonl`` (index, Taker
colour, winner, termination, plies) and its PDN to ``FILE.pdn``:

    DRL_EGTB_DIR=/path python experiments/cross_variant/role_balance.py --study strong \
        --only gt-10x10 --sims 800 --depths "" --games 256 --jobs 1 \
        --out experiments/endgames/role_balance_10x10.json
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

OUT_JSON = HERE / "role_balance.json"
OUT_MD = HERE / "role_balance.md"

# name -> (variant spec, where the trained agent is). The base game uses the strongest
# agent there is (train=long); the variations use the study's agents.
VARIANTS: dict[str, tuple[str, str]] = {
    "give_and_take": ("give_and_take", "experiments/long-give_and_take/agent.pt"),
    "gt-max_capture": ("give_and_take:max_capture=true", "experiments/cross_variant/gt-max_capture/run"),
    "gt-continue_as_king": ("give_and_take:promotion_mid_capture=continue_as_king",
                            "experiments/cross_variant/gt-continue_as_king/run"),
    "gt-10x10": ("give_and_take:board_size=10", "experiments/cross_variant/gt-10x10/run"),
}


def _checkpoint(where: str) -> Path | None:
    path = ROOT / where
    if path.is_file():
        return path
    from drl.nn.checkpoint import load_latest

    found = load_latest(path / "checkpoints") if (path / "checkpoints").is_dir() else None
    return None if found is None else Path(found[0])


def rows_for(names: list[str], sims: list[int], depths: list[int]) -> list[dict]:
    rows = []
    for name in names:
        spec, where = VARIANTS[name]
        for s in sims:
            rows.append({"name": name, "variant": spec, "player": "network", "budget": f"{s} sims",
                         "sims": s, "where": where})
        for d in depths:
            rows.append({"name": name, "variant": spec, "player": "alphabeta",
                         "budget": f"depth {d}", "depth": d})
    return rows


def _journal(path: Path | None):
    """The ``on_record`` of a match that appends each finished game to ``path``
    (``.games.jsonl``) and its PDN beside it (``.pdn``); None without a path."""
    if path is None:
        return None
    games, pdn = path.with_suffix(".games.jsonl"), path.with_suffix(".pdn")
    games.write_text("")
    pdn.write_text("")

    def on_record(rec) -> None:
        taker = "black" if rec.roles[0] == "taker" else "white"
        line = {"game": rec.index // 2, "taker": taker, "winner": rec.winner,
                "termination": rec.termination, "plies": rec.plies}
        with games.open("a") as f:
            f.write(json.dumps(line) + "\n")
        with pdn.open("a") as f:
            f.write(rec.pdn.rstrip("\n") + "\n\n")

    return on_record


def play_row(row: dict, games: int, openings: int, max_plies: int, seed: int,
             egtb: bool = True, journal: Path | None = None) -> dict:
    import torch

    torch.set_num_threads(1)
    from drl.eval.arena import match_tasks, run_games
    from drl.eval.settings import MatchSettings
    from drl.eval.stats import wilson_interval

    if row["player"] == "network":
        ckpt = _checkpoint(row["where"])
        if ckpt is None:
            return {**row, "error": f"no checkpoint at {row['where']}"}
        spec = f"az:ckpt={ckpt},sims={row['sims']}"
        row = {**row, "checkpoint": str(ckpt.relative_to(ROOT))}
    else:
        spec = f"alphabeta:depth={row['depth']}"
    t0 = time.time()
    # One game per opening: the same player on both sides would replay the second game of
    # a pair move for move. The even games of a match alternate the Taker's colour.
    settings = MatchSettings(openings=openings, seed=seed, max_plies=max_plies,
                             event="role balance", egtb=egtb)
    pairs = match_tasks(spec, spec, row["variant"], 2 * games, settings)
    tasks = [pairs[i] for i in range(0, 2 * games, 2)]
    records = run_games(tasks, workers=1, progress=False, on_record=_journal(journal))
    wins = draws = losses = truncated = database = 0
    plies = 0
    for rec in records:
        taker = "black" if rec.roles[0] == "taker" else "white"
        plies += rec.plies
        truncated += rec.truncated
        database += rec.by_database
        if rec.winner is None:
            draws += 1
        elif rec.winner == taker:
            wins += 1
        else:
            losses += 1
    n = len(records)
    score = (wins + draws / 2) / n
    # The games that ended by the rules alone (not cut at the ply cap): what is left of the
    # Taker's edge without the cut games, each of which counts as a draw above.
    uncut = n - truncated
    score_uncut = (wins + (draws - truncated) / 2) / uncut if uncut else float("nan")
    lo, hi = wilson_interval(wins + draws / 2, n)
    return {**row, "games": n, "openings_plies": openings, "max_plies": max_plies,
            "seed": seed, "taker_wins": wins, "draws": draws, "taker_losses": losses,
            "truncated": truncated, "database": database, "egtb": egtb,
            "egtb_dir": os.environ.get("DRL_EGTB_DIR") if egtb else None,
            "taker_score": round(score, 4),
            "taker_score_uncut": round(score_uncut, 4),
            "ci95": [round(lo, 4), round(hi, 4)],
            "distinct_games": len({(r.opening, r.moves) for r in records}),
            "taker_black_games": sum(r.roles[0] == "taker" for r in records), "mean_plies": round(plies / n, 1),
            "seconds": round(time.time() - t0, 1)}


def _key(row: dict) -> tuple:
    return (row["name"], row["player"], row["budget"])


def with_reference(rows: list[dict], reference: list[dict]) -> list[dict]:
    """``rows`` and the reference rows of every variation among them that ``rows`` do not
    already hold (a study's table shows the alpha-beta rows of this folder beside its
    agents, for all of its variations, whichever ``--only`` played last)."""
    names, own = {r["name"] for r in rows}, {_key(r) for r in rows}
    return rows + [r for r in reference if r["name"] in names and _key(r) not in own]


def write_md(rows: list[dict], out: Path = OUT_MD, title: str = "") -> None:
    # The column of games ended by the database, where a row counted them.
    db = any("database" in r for r in rows)
    lines = ["# Give and Take role balance" + title, "",
             "Taker's score against the Giver, one player in both roles (see "
             "`role_balance.py` for what it depends on). *Uncut*: the Taker's score over the "
             "games that ended by the rules, without those cut at the ply cap"
             + (" (*database*: games the endgame database ended, uncut)." if db else "."), "",
             "| variation | player | budget | games | Taker W-D-L | truncated "
             + ("| database " if db else "") + "| Taker score | 95% CI | uncut | mean plies |",
             "|---|---|---|---|---|---|---|---|---|---|" + ("---|" if db else "")]
    for r in sorted(rows, key=lambda r: (list(VARIANTS).index(r["name"]), r["player"],
                                         r.get("sims", 0), r.get("depth", 0))):
        if "error" in r:
            lines.append(f"| {r['variant']} | {r['player']} | {r['budget']} | — | — | — | — "
                         + ("| — " if db else "") + f"| {r['error']} | — | — |")
            continue
        lines.append(f"| {r['variant']} | {r['player']} | {r['budget']} | {r['games']} | "
                     f"{r['taker_wins']}-{r['draws']}-{r['taker_losses']} | {r['truncated']} "
                     + (f"| {r.get('database', '—')} " if db else "")
                     + f"| {r['taker_score']:.3f} | {r['ci95'][0]:.3f}-{r['ci95'][1]:.3f} | "
                     f"{_uncut(r)} | {r['mean_plies']} |")
    out.write_text("\n".join(lines) + "\n")


def _uncut(row: dict) -> str:
    if "taker_score_uncut" in row:
        return f"{row['taker_score_uncut']:.3f}"
    n = row["games"] - row["truncated"]  # rows written before the column: from their counts
    if n == 0:
        return "—"
    return f"{(row['taker_wins'] + (row['draws'] - row['truncated']) / 2) / n:.3f}"


ROW_KEYS = ("name", "player", "budget")


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


def read_rows(path: Path) -> list[dict]:
    """The rows of a ``role_balance.json``; a file that is not a list of rows is one clear
    line (SystemExit)."""
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise SystemExit(f"{_shown(path)}: not a readable JSON file ({err}); "
                         "restore it from git or remove it") from None
    if not isinstance(rows, list):
        raise SystemExit(f"{_shown(path)}: expected a JSON list of rows")
    for i, row in enumerate(rows):
        missing = [k for k in ROW_KEYS if not isinstance(row, dict) or k not in row]
        if missing:
            raise SystemExit(f"{_shown(path)}: row {i} lacks {', '.join(missing)}")
    return rows


def _numbers(ap: argparse.ArgumentParser, text: str, flag: str, top: int) -> list[int]:
    try:
        values = [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        ap.error(f"{flag} must be comma-separated integers, not {text!r}")
    bad = [v for v in values if not 1 <= v <= top]
    if bad:
        ap.error(f"{flag}: {bad[0]} is outside 1..{top}")
    return values


def check_args(ap: argparse.ArgumentParser, args: argparse.Namespace
               ) -> tuple[list[str], list[int], list[int], Path | None]:
    """Refuse bad arguments (``ap.error``) before anything is played; returns the names,
    the network budgets, the depths and the study folder (None: this folder's agents)."""
    from drl.agents.az import MAX_SIMULATIONS
    from drl.eval.limits import MAX_GAMES, MAX_WORKERS, check_count, check_max_plies, check_openings

    names = list(VARIANTS) if not args.only else args.only.split(",")
    bad = [n for n in names if n not in VARIANTS]
    if bad:
        ap.error(f"unknown names {bad}; known: {', '.join(VARIANTS)}")
    if args.games < 4 or args.games % 4:
        ap.error("--games must be a positive multiple of 4 (every colour/role pairing)")
    try:
        check_count(args.games, "--games", 4, MAX_GAMES)
        check_count(args.jobs, "--jobs", 1, MAX_WORKERS)
        check_count(args.seed, "--seed", 0, 2**63 - 1)
        check_max_plies(args.max_plies)
        check_openings(args.openings)
    except ValueError as err:
        ap.error(str(err))
    sims = _numbers(ap, args.sims, "--sims", MAX_SIMULATIONS)
    depths = _numbers(ap, args.depths, "--depths", 63)
    folder = None
    if args.study:
        here = HERE.resolve()
        folder = (here / args.study).resolve()
        if folder == here or here not in folder.parents:
            ap.error(f"--study {args.study}: the study folder must lie inside {_shown(here)}/")
        if not folder.is_dir():
            ap.error(f"--study {args.study}: no study folder {_shown(folder)}")
    return names, sims, depths, folder


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default=None, help="comma-separated: " + ", ".join(VARIANTS))
    ap.add_argument("--sims", default="16,64", help="network budgets")
    ap.add_argument("--depths", default="2,4,6", help="alpha-beta depths")
    ap.add_argument("--games", type=int, default=64)
    ap.add_argument("--openings", type=int, default=4)
    ap.add_argument("--max-plies", type=int, default=200)
    ap.add_argument("--seed", type=int, default=31_000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--redo", action="store_true")
    ap.add_argument("--study", default=None,
                    help="the trained agents of cross_variant/STUDY/<variation>/agent.pt")
    ap.add_argument("--no-egtb", dest="egtb", action="store_false",
                    help="play every game out (no database endings in the arena)")
    ap.add_argument("--out", default=None, type=Path,
                    help="write the rows to this .json (and .md, .games.jsonl, .pdn)")
    args = ap.parse_args()
    names, sims, depths, folder = check_args(ap, args)
    if args.out is not None and args.out.suffix != ".json":
        ap.error(f"--out {args.out}: must name a .json file")
    out_json, out_md, reference, title = OUT_JSON, OUT_MD, [], ""
    if folder is not None:
        for name, (spec, _) in list(VARIANTS.items()):
            VARIANTS[name] = (spec, str((folder / name / "agent.pt").relative_to(ROOT)))
        out_json, out_md = folder / "role_balance.json", folder / "role_balance.md"
        title = f" ({args.study} agents)"
        base = read_rows(OUT_JSON) if OUT_JSON.exists() else []
        reference = [r for r in base if r["player"] == "alphabeta"]
    if args.out is not None:  # its own rows only: the reference rows were played otherwise
        out_json, reference = args.out.resolve(), []
        out_md = out_json.with_suffix(".md")
    done = read_rows(out_json) if out_json.exists() else []
    todo = [r for r in rows_for(names, sims, depths)
            if args.redo or _key(r) not in {_key(d) for d in done if "error" not in d}]
    done = [d for d in done if _key(d) not in {_key(r) for r in todo}]
    with cf.ProcessPoolExecutor(args.jobs) as pool:
        # One journal per --out file: with several rows it would hold the last one's games.
        journal = out_json if args.out is not None and len(todo) == 1 else None
        futs = {pool.submit(play_row, r, args.games, args.openings, args.max_plies, args.seed,
                            args.egtb, journal): r
                for r in todo}
        for fut in cf.as_completed(futs):
            try:
                res = fut.result()
            except (ValueError, RuntimeError) as err:  # a checkpoint that cannot play
                row = futs[fut]
                res = {**row, "error": str(err).splitlines()[0][:300]}
            done.append(res)
            out_json.write_text(json.dumps(done, indent=2) + "\n")
            write_md(with_reference(done, reference), out_md, title)
            print(f"{res['name']} {res['player']} {res['budget']}: "
                  + (res.get("error") or f"Taker {res['taker_score']:.3f} {res['ci95']} "
                     f"({res['games']} games, {res['seconds']:.0f} s)"), flush=True)
    write_md(with_reference(done, reference), out_md, title)


if __name__ == "__main__":
    main()
