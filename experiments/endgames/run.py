"""Endgame databases in play: the figures of ``experiments/endgames/README.md``.

    DRL_EGTB_DIR=/path/to/db python experiments/endgames/run.py ab --variant english
    DRL_EGTB_DIR=/path/to/db python experiments/endgames/run.py long --games 400
    DRL_EGTB_DIR=/path/to/db python experiments/endgames/run.py accuracy
    DRL_EGTB_DIR=/path/to/db python experiments/endgames/run.py rescore
    python experiments/endgames/run.py report

Parts (each writes its own JSON in this folder; ``report`` gathers them in ``results.md``):

- ``ab``: ``drl-eval`` round robin of ``alphabeta:time=T`` (probing the database) against
  ``alphabeta:time=T,egtb=false`` (the same search without it), ``--games`` games from
  seeded distinct 4-ply openings, colours (and in Give and Take roles) swapped, the
  arena's database endings on for both (``egtb=true``, the default), one worker. The
  drl-eval folder goes to ``runs/`` (not committed); ``ab-<variant>.json`` holds the
  records ``{variant, agent, opponent, role, games, score, wins, draws, losses,
  truncated, database, ci95}`` and both players' clocks; ``ab-<variant>.pdn`` the games.
- ``long``: the ``train=long`` Give and Take network (``long-give_and_take/agent.pt``)
  against ``alphabeta:depth=6,egtb=false`` at 800 simulations, with the settings of the
  original 400-game evaluation (``long-give_and_take/eval.json``: openings 4, seed
  20000, 200-ply cap) and database endings on; one worker. The opponent does not probe
  the database, so the only change from the original is where a game ends. Writes
  ``long-give_and_take.json`` and ``long-give_and_take.pdn``.
- ``ab --played-out``: the same match with the arena's database endings off
  (``ab-<variant>-played-out.*``); ``ab --collect`` summarises a match stopped early.
- ``rescore``: the committed 3,200-simulation games of ``long-give_and_take`` against
  depth 6, each ended at its first position the database decides, as the arena would
  (``long-give_and_take-rescored.json``); ``--pdn FILE --player NAME`` for other games.
- ``accuracy``: endgame accuracy (:func:`drl.analysis.endgame.endgame_accuracy`) of each
  committed agent of the cross-variant study (``cross_variant/strong/<variant>/``) on its
  committed games against the alpha-beta ladder, for the variants whose database is on
  disk. Writes ``accuracy.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
RUNS = HERE / "runs"


def _rel(path: Path) -> str:
    return os.path.relpath(path, ROOT)


def _meta(command: list[str], t0: float) -> dict[str, Any]:
    return {
        "command": shlex.join(command),
        "egtb_dir": os.environ.get("DRL_EGTB_DIR"),
        "wall_s": round(time.perf_counter() - t0, 1),
        "end_utc": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
        "load": [round(x, 2) for x in os.getloadavg()],
    }


def _record(variant: str, agent: str, opponent: str, role: str, s: dict) -> dict:
    lo, hi = s["score_interval"]
    return {
        "variant": variant,
        "agent": agent,
        "opponent": opponent,
        "role": role,
        "games": s["games"],
        "score": round(s["score"], 4),
        "wins": s["wins"],
        "draws": s["draws"],
        "losses": s["losses"],
        "truncated": s["truncated"],
        "database": s.get("database", 0),
        "ci95": [round(lo, 4), round(hi, 4)],
    }


def _databases(variant: str) -> dict[str, Any]:
    """The database file the run reads, with its piece count (None if absent)."""
    from drl.egtb import EgtbError, open_database

    try:
        db = open_database(variant)
    except (EgtbError, FileNotFoundError) as err:
        return {"pieces": None, "error": str(err).splitlines()[0]}
    return {"pieces": db.pieces, "file": Path(str(db.path)).name}


def part_ab(args: argparse.Namespace) -> None:
    """Alpha-beta with the database against the same alpha-beta without it."""
    agent = f"alphabeta:time={args.time}"
    opponent = f"{agent},egtb=false"
    name = f"ab-{args.variant}" + ("" if args.arena_egtb else "-played-out")
    run_dir = RUNS / name
    cmd = [
        "drl-eval",
        f"variant={args.variant}",
        f"agents=[{agent},{opponent}]",
        f"games={args.games}",
        "workers=1",
        f"seed={args.seed}",
        "openings=4",
        "max_plies=200",
        f"egtb={str(args.arena_egtb).lower()}",
        "progress=false",
        "plot=false",
        f"hydra.run.dir={_rel(run_dir)}",
    ]
    db = _databases(args.variant)
    t0 = time.perf_counter()
    if not args.collect:
        subprocess.run(cmd, cwd=ROOT, check=True)
    meta = _meta(cmd, t0)
    res = json.loads((run_dir / "results.json").read_text())
    records = _summary(args.variant, agent, opponent, res)
    clocks = _clocks(res["games"], (agent, opponent))
    out = {"records": records, "clocks": clocks, "database_file": db, **meta}
    if args.collect:  # a match stopped early: its journal's finished games
        out.update(status=res.get("status"), wall_s=None)
    (HERE / f"{name}.json").write_text(json.dumps(out, indent=2) + "\n")
    (HERE / f"{name}.pdn").write_text(_pdn_of(res["games"], run_dir / "games.pdn"))
    print(json.dumps(out, indent=2))


def _summary(variant: str, agent: str, opponent: str, res: dict) -> list[dict]:
    """The records of ``agent`` from drl-eval's results.

    Its summary, or for a match stopped early the finished games of its journal.
    """
    if "summary" in res:
        return [_record(variant, agent, opponent, r, s) for r, s in res["summary"][agent].items()]
    from drl.eval.records import GameRecord
    from drl.eval.stats import summarize

    games = [
        GameRecord(**{**g, "roles": tuple(g["roles"]), "moves": tuple(g["moves"])})
        for g in res["games"]
    ]
    return [
        _record(variant, agent, opponent, r, w.to_dict())
        for r, w in summarize(games, agent).items()
    ]


def _pdn_of(games: list[dict], path: Path) -> str:
    """The PDN of the finished games (the whole file when the match finished)."""
    text = path.read_text()
    chunks = text.split("[Event ")
    if len(chunks) - 1 == len(games):
        return text
    return "".join("[Event " + c for c in chunks[1 : len(games) + 1])


def _clocks(games: list[dict], players: tuple[str, str]) -> dict[str, dict[str, float]]:
    """Each player's mean and longest seconds per move over the games' clocks."""
    tally = {p: [0, 0.0, 0.0] for p in players}
    for g in games:
        for colour in ("black", "white"):
            entry = g.get("clock", {}).get(colour)
            if entry and g[colour] in tally:
                t = tally[g[colour]]
                t[0] += entry[0]
                t[1] += entry[1]
                t[2] = max(t[2], entry[2])
    return {
        p: {"moves": n, "mean_s": round(s / n, 5), "max_s": round(m, 4)}
        for p, (n, s, m) in tally.items()
        if n
    }


def part_long(args: argparse.Namespace) -> None:
    """The train=long Give and Take network against depth 6, with database endings."""
    sys.path.insert(0, str(HERE.parent))
    import run_experiment as rx  # noqa: E402

    import drl.train.evaluate as ev

    # One worker (the original used every core; the games and seeds do not depend on it).
    ev.EVALUATION_SETTINGS = replace(ev.EVALUATION_SETTINGS, workers=1)
    out = RUNS / "long-give_and_take"
    out.mkdir(parents=True, exist_ok=True)
    ns = argparse.Namespace(
        name="endgames/runs/long-give_and_take",
        variant="give_and_take",
        checkpoint=_rel(ROOT / "experiments/long-give_and_take/agent.pt"),
        sims=800,
        games=args.games,
        openings=4,
        seed=20000,
        append=False,
        opponents=["alphabeta:depth=6,egtb=false"],
    )
    db = _databases("give_and_take")
    t0 = time.perf_counter()
    records = rx.stage_eval(ns, out)
    meta = _meta(["python", _rel(Path(__file__)), "long", "--games", str(args.games)], t0)
    games = _read_pdn_counts(out / "games-alphabeta_depth_6_egtb_false.pdn")
    for r in records:  # run_experiment's records do not count database endings
        r["database"] = games[r["role"]].get("database", 0) if r["role"] in games else None
    original = json.loads((ROOT / "experiments/long-give_and_take/results.json").read_text())
    before = [
        r
        for r in original
        if r["opponent"] == "alphabeta:depth=6" and r["agent"].endswith("sims=800")
    ]
    result = {
        "records": records,
        "terminations": games,
        "database_file": db,
        "original": before,
        "eval": json.loads((out / "eval.json").read_text()),
        **meta,
    }
    (HERE / "long-give_and_take.json").write_text(json.dumps(result, indent=2) + "\n")
    (HERE / "long-give_and_take.pdn").write_bytes(
        (out / "games-alphabeta_depth_6_egtb_false.pdn").read_bytes()
    )
    print(json.dumps(result, indent=2))


def _read_pdn_counts(path: Path, net: str = "az") -> dict[str, dict[str, int]]:
    """How many games of a PDN file end by each ``Termination`` tag.

    By ``net``'s role (``BlackRole`` / ``WhiteRole`` tags) and in all.
    """
    import re

    counts: dict[str, dict[str, int]] = {"all": {}}
    for chunk in path.read_text().split("[Event ")[1:]:
        tags = dict(re.findall(r'\[(\w+) "([^"]*)"\]', chunk))
        colour = "Black" if tags.get("Black") == net else "White"
        for key in {"all", tags.get(f"{colour}Role", "all")}:
            group = counts.setdefault(key, {})
            group[tags["Termination"]] = group.get(tags["Termination"], 0) + 1
    return counts


def _rescored(game: Any, db: Any, net: str) -> tuple[str, str]:
    """``(termination, network's result)`` of a played-out game, database endings on.

    As if the arena had ended it at its first position the database decides
    (:func:`drl.eval.endings.database_result`).
    """
    from drl.eval.endings import database_result

    board = game.start_board()
    colour = "black" if game.players[0] == net else "white"
    for text in (*game.moves, None):
        if board.outcome() is not None:
            break
        found = database_result(board, db)
        if found is not None:
            mover = "black" if board.turn == 0 else "white"
            flip = {"win": "loss", "loss": "win", "draw": "draw"}
            return "database", found.value if mover == colour else flip[found.value]
        if text is None:
            break
        board.push(board.parse_move(text))
    return game.termination, _result_of(game, colour)


def _result_of(game: Any, colour: str) -> str:
    if game.winner is None:
        return "draw"
    return "win" if game.winner == colour else "loss"


def part_rescore(args: argparse.Namespace) -> None:
    """The committed games of ``long-give_and_take`` against depth 6, database endings on.

    Each game ends where the database first decides it: the same games, re-scored.

    ``games-alphabeta_depth_6.pdn`` holds the 3,200-simulation games (its W-D-L and cut
    count are that row's: the 800-simulation games were written to the same file first).
    """
    from drl.eval.endings import game_database
    from drl.eval.stats import wilson_interval

    t0 = time.perf_counter()
    default = ROOT / "experiments/long-give_and_take/games-alphabeta_depth_6.pdn"
    path = Path(args.pdn).resolve() if args.pdn else default
    tallies: dict[str, dict[str, int]] = {}
    names = {}
    for g in _load(path):
        base = [n.rsplit(" (", 1)[0] for n in g.players]
        net = g.players[base.index(args.player)]
        names["opponent"] = base[1 - base.index(args.player)]
        role = net[net.index("(") + 1 : -1] if "(" in net else "all"
        term, value = _rescored(g, game_database(g.variant), net)
        before = _result_of(g, "black" if g.players[0] == net else "white")
        for key in dict.fromkeys((role, "all")):
            t = tallies.setdefault(
                key,
                dict.fromkeys(
                    ("win", "draw", "loss", "truncated", "database", "cut_decided", "changed"), 0
                ),
            )
            t[value] += 1
            t["truncated"] += term == "max_plies"
            t["database"] += term == "database"
            t["cut_decided"] += g.truncated and term == "database"
            t["changed"] += value != before
    records = []
    for role, t in tallies.items():
        n = t["win"] + t["draw"] + t["loss"]
        lo, hi = wilson_interval(t["win"] + t["draw"] / 2, n)
        records.append(
            {
                "variant": "give_and_take",
                "agent": "az:ckpt=experiments/long-give_and_take/agent.pt,sims=3200"
                if path == default
                else args.player,
                "opponent": names["opponent"],
                "role": role,
                "games": n,
                "score": round((t["win"] + t["draw"] / 2) / n, 4),
                "wins": t["win"],
                "draws": t["draw"],
                "losses": t["loss"],
                "truncated": t["truncated"],
                "database": t["database"],
                "ci95": [round(lo, 4), round(hi, 4)],
                "cut_games_decided_by_database": t["cut_decided"],
                "results_changed": t["changed"],
            }
        )
    original = json.loads((ROOT / "experiments/long-give_and_take/results.json").read_text())
    before_rows = [
        r
        for r in original
        if r["opponent"] == "alphabeta:depth=6"
        and r["agent"].endswith("sims=3200")
        and r["role"] in tallies
        and path == default
    ]
    out = {
        "games": _rel(path),
        "records": records,
        "original": before_rows,
        **_meta(
            ["python", _rel(Path(__file__)), "rescore"]
            + (["--pdn", _rel(path), "--player", args.player] if path != default else []),
            t0,
        ),
    }
    stem = "long-give_and_take" if path == default else path.stem
    (HERE / f"{stem}-rescored.json").write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(records, indent=2))


STUDY = ROOT / "experiments/cross_variant/strong"


def _with_roles(game: Any, black_role: str | None) -> Any:
    """The game with each player named ``name (role)`` where the PDN gives roles."""
    from dataclasses import replace as dc_replace

    if black_role is None or game.players is None:
        return game
    white_role = {"taker": "giver", "giver": "taker"}.get(black_role, black_role)
    black, white = game.players
    return dc_replace(game, players=(f"{black} ({black_role})", f"{white} ({white_role})"))


def _load(path: Path) -> list[Any]:
    """The games of a PDN file, players named with their roles (``BlackRole`` tags)."""
    import re

    from drl.analysis.games import as_games

    games = as_games(path)
    text = path.read_text()
    roles = re.findall(r'\[BlackRole "(\w+)"\]', text)
    if len(roles) != len(games):
        roles = [None] * len(games)
    return [_with_roles(g, r) for g, r in zip(games, roles, strict=True)]


def _short(acc: dict) -> dict:
    """An accuracy summary without the Wilson interval's sample size repeated."""
    return {
        k: (
            v
            if not isinstance(v, dict)
            else {
                "value": round(v["value"], 4) if v["value"] is not None else None,
                "ci95": [round(x, 4) for x in v["ci95"]] if v.get("ci95") else None,
                "n": v["n"],
            }
        )
        for k, v in acc.items()
    }


def part_accuracy(args: argparse.Namespace) -> None:
    """Endgame accuracy of the cross-variant study's agents on their committed games."""
    from drl.analysis.endgame import endgame_accuracy

    t0 = time.perf_counter()
    rows = {}
    for folder in sorted(p for p in STUDY.iterdir() if p.is_dir()):
        pdns = sorted(folder.glob("games-*.pdn"))
        if not pdns:
            continue
        games = [g for p in pdns for g in _load(p)]
        acc = endgame_accuracy(games)
        row: dict[str, Any] = {
            "variant": games[0].variant,
            "games": len(games),
            "files": [_rel(p) for p in pdns],
        }
        if acc is None:
            row["accuracy"] = None
        else:
            row["pieces"] = acc["pieces"]
            row["groups"] = {k: _short(v) for k, v in acc["groups"].items()}
            net = [n for n in acc["players"] if n.startswith("az")]
            row["network"] = {n: _short(acc["players"][n]) for n in sorted(net)}
            row["opponents"] = {
                n: _short(v) for n, v in sorted(acc["players"].items()) if not n.startswith("az")
            }
        rows[folder.name] = row
        print(folder.name, len(games), json.dumps(row.get("network"))[:400], flush=True)
    out = {"agents": rows, **_meta(["python", _rel(Path(__file__)), "accuracy"], t0)}
    (HERE / "accuracy.json").write_text(json.dumps(out, indent=2) + "\n")


def _wdl(r: dict) -> str:
    return f"{r['wins']}-{r['draws']}-{r['losses']}"


def _ci(r: dict) -> str:
    return f"{r['score']:.3f} [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}]"


def _report_ab() -> list[str]:
    lines = [
        "## Alpha-beta with the database against alpha-beta without it",
        "",
        "| variant | arena's database endings | role of the database side | games | W-D-L | "
        "score [95% CI] | cut at 200 plies | ended by the database | ms per move, with / "
        "without | longest move, with / without |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for variant in ("english", "give_and_take"):
        for tail, endings in (("", "on"), ("-played-out", "off")):
            path = HERE / f"ab-{variant}{tail}.json"
            if not path.exists():
                continue
            res = json.loads(path.read_text())
            clocks = list(res["clocks"].values())
            clock = " / ".join(f"{1000 * c['mean_s']:.1f}" for c in clocks)
            most = " / ".join(f"{1000 * c['max_s']:.0f}" for c in clocks)
            for r in res["records"]:
                lines.append(
                    f"| {variant} | {endings} | {r['role']} | {r['games']} | {_wdl(r)} | "
                    f"{_ci(r)} | {r['truncated']} | {r['database']} | "
                    + (f"{clock} | {most} |" if r["role"] == "all" else " | |")
                )
    return lines + [""]


def _report_long() -> list[str]:
    lines = []
    for name, title in (
        ("long-give_and_take", "re-played, 800 simulations"),
        (
            "long-give_and_take-rescored",
            "the committed 3,200-simulation games ended at their first database-decided position",
        ),
    ):
        path = HERE / f"{name}.json"
        if not path.exists():
            continue
        res = json.loads(path.read_text())
        lines += [
            f"## `train=long` Give and Take network against depth 6: {title}",
            "",
            "| games | network's role | W-D-L | score [95% CI] | cut at 200 plies | "
            "ended by the database |",
            "|---|---|---|---|---|---|",
        ]
        for label, rows in (
            ("original (played out)", res["original"]),
            ("database endings", res["records"]),
        ):
            order = ("taker", "giver", "all")
            for r in sorted(
                (r for r in rows if r["role"] in order), key=lambda r: order.index(r["role"])
            ):
                if r["role"] in order:
                    lines.append(
                        f"| {label} | {r['role']} | {_wdl(r)} | {_ci(r)} | "
                        f"{r['truncated']} | {r.get('database', '-')} |"
                    )
        lines.append("")
    return lines


def _rate(x: dict | None) -> str:
    if not x or x["value"] is None:
        return "-"
    return f"{x['value']:.3f} [{x['ci95'][0]:.3f}, {x['ci95'][1]:.3f}] ({x['n']})"


def _report_accuracy() -> list[str]:
    path = HERE / "accuracy.json"
    if not path.exists():
        return []
    res = json.loads(path.read_text())
    lines = [
        "## Endgame accuracy of the cross-variant study's agents",
        "",
        "| agent | pieces | network: accuracy (moves) | win kept | draw kept | "
        "lost positions | alpha-beta in the same role: accuracy (moves) |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, row in res["agents"].items():
        if not row.get("network"):
            lines.append(f"| {name} | no database | | | | | |")
            continue
        for who, acc in row["network"].items():
            opp = [
                v
                for k, v in row["opponents"].items()
                if "(" not in who or k.endswith(who[who.index("(") :])
            ]
            kept = sum((v["accuracy"]["value"] or 0) * v["accuracy"]["n"] for v in opp)
            n = sum(v["accuracy"]["n"] for v in opp)
            theirs = f"{kept / n:.3f} ({n})" if n else "-"
            label = f"{name} {who[3:]}".strip()
            lines.append(
                f"| {label} | {row['pieces']} | {_rate(acc['accuracy'])} | "
                f"{_rate(acc['win_kept'])} | {_rate(acc['draw_kept'])} | "
                f"{acc['from_loss']} | {theirs} |"
            )
    return lines + [""]


def part_report(args: argparse.Namespace) -> None:
    """``results.md``: the tables of the parts that have run."""
    lines = ["# Endgame databases in play: results", ""]
    lines += _report_ab() + _report_long() + _report_accuracy()
    (HERE / "results.md").write_text("\n".join(lines))
    print("\n".join(lines))


def main() -> None:
    """Run one part (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("part", choices=["ab", "long", "rescore", "accuracy", "report"])
    ap.add_argument("--variant", default="english", help="ab: the variant")
    ap.add_argument("--games", type=int, default=200, help="ab, long: games")
    ap.add_argument("--time", type=float, default=0.05, help="ab: seconds per move")
    ap.add_argument("--seed", type=int, default=32, help="ab: match seed")
    ap.add_argument(
        "--pdn", default=None, help="rescore: these games (default: long-give_and_take's)"
    )
    ap.add_argument("--player", default="az", help="rescore: the player whose results count")
    ap.add_argument(
        "--collect",
        action="store_true",
        help="ab: only summarise the match's journal (a match stopped early)",
    )
    ap.add_argument(
        "--played-out",
        dest="arena_egtb",
        action="store_false",
        help="ab: the arena plays every game out (drl-eval egtb=false; -played-out files)",
    )
    args = ap.parse_args()
    {
        "ab": part_ab,
        "long": part_long,
        "rescore": part_rescore,
        "accuracy": part_accuracy,
        "report": part_report,
    }[args.part](args)


if __name__ == "__main__":
    main()
