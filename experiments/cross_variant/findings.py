"""The 6-minute study's findings measured again on the agents of a stronger study.

    python experiments/cross_variant/findings.py --new strong

Reads ``cross_variant/<name>/analysis/summary.json`` (the 6-minute agents) and
``cross_variant/<new>/<name>/analysis/summary.json`` (written by ``run_study.py --study
<new> --stages analyze``) and writes ``cross_variant/<new>/findings.md`` and ``.json``:
for each finding, the same measure of both agents with its 95% interval and a verdict,

- *held*: the two intervals overlap (and a signed measure keeps its sign);
- *moved*: the intervals are disjoint, the sign kept;
- *reversed*: the intervals are disjoint and the sign changed;

then what the stronger agents show besides: the king's value by game phase, how Give and
Take games end (Giver blocked or eliminated), and the first-move distance from human games.
Agents missing on either side are skipped and listed.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

HERE = Path(__file__).resolve().parent
NAMES = ["english", "russian", "brazilian", "international", "giveaway", "losing",
         "give_and_take", "gt-max_capture", "gt-both_givers", "gt-continue_as_king",
         "gt-10x10"]


def _summary(path: Path) -> dict | None:
    if not path.exists():
        return None
    data = json.loads(path.read_text())
    return data[0] if isinstance(data, list) else data


def _stat(node: dict | None, *keys: str) -> dict | None:
    for k in keys:
        if not isinstance(node, dict) or k not in node:
            return None
        node = node[k]
    return node if isinstance(node, dict) and "value" in node else None


def verdict(old: dict | None, new: dict | None, signed: bool) -> str:
    """``held``, ``moved`` or ``reversed`` (see the module doc); ``—`` when one is missing."""
    if old is None or new is None:
        return "—"
    (lo0, hi0), (lo1, hi1) = old["ci95"], new["ci95"]
    if not (all(map(math.isfinite, (lo0, hi0, lo1, hi1)))):
        return "—"
    if lo0 <= hi1 and lo1 <= hi0:
        return "held"
    if signed and old["value"] * new["value"] < 0:
        return "reversed"
    return "moved"


def _fmt(s: dict | None, digits: int = 2) -> str:
    if s is None:
        return "—"
    lo, hi = s["ci95"]
    return f"{s['value']:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def _divergence(summary: dict | None) -> float | None:
    if summary is None:
        return None
    for e in summary.get("openings", {}).get("entries", []):
        d = e.get("divergence")
        if d is not None:
            return float(d["search"]["js_distance"])  # the searched first-move distribution
    return None


# (finding, measure label, path in the summary, signed)
MEASURES = [
    ("A king is worth 1.2-1.9 men", "king in men (all probes)",
     ("material", "groups", "all", "all", "king_in_men"), False),
    ("Material sign follows the objective", "man value (atanh)",
     ("material", "groups", "all", "all", "man_value"), True),
    ("The Giver values its own men", "man value, Giver to move",
     ("material", "groups", "giver", "all", "man_value"), True),
    ("", "man value, Taker to move", ("material", "groups", "taker", "all", "man_value"), True),
    ("The losing objectives offer pieces 27-45% of the time", "offer rate",
     ("style", "groups", "all", "offer_rate"), False),
    ("First-mover / Taker score in self-play", "first mover's score",
     ("outcomes", "first_mover", "score"), False),
    ("", "Taker's score", ("outcomes", "taker", "score"), False),
]


def rows(new: str) -> tuple[list[dict], list[str]]:
    out, missing = [], []
    for name in NAMES:
        old_s = _summary(HERE / name / "analysis" / "summary.json")
        new_s = _summary(HERE / new / name / "analysis" / "summary.json")
        if old_s is None or new_s is None:
            missing.append(f"{name} ({'6-minute' if old_s is None else new} agent not analysed)")
            continue
        for finding, label, path, signed in MEASURES:
            o, n = _stat(old_s, *path), _stat(new_s, *path)
            if o is None and n is None:
                continue
            out.append({"agent": name, "finding": finding, "measure": label, "old": o,
                        "new": n, "verdict": verdict(o, n, signed)})
    return out, missing


def extras(new: str) -> list[dict]:
    out = []
    for name in NAMES:
        s = _summary(HERE / new / name / "analysis" / "summary.json")
        if s is None:
            continue
        g = s["material"]["groups"]["all"]
        row = {"agent": name}
        for phase in ("opening", "middlegame", "endgame"):
            row[f"king in men, {phase}"] = _stat(g, phase, "king_in_men")
        t = s["outcomes"].get("terminations", {})
        if s["outcomes"].get("taker"):  # one Taker and one Giver
            row["Giver eliminated / blocked / cut"] = (
                f"{t.get('giver_eliminated', 0)} / {t.get('blocked', 0)} / "
                f"{t.get('max_plies', 0)} of {s['outcomes']['games']}")
        old = _summary(HERE / name / "analysis" / "summary.json")
        row["first-move JS distance, old -> new"] = (_divergence(old), _divergence(s))
        out.append(row)
    return out


def write(new: str) -> Path:
    found, missing = rows(new)
    more = extras(new)
    lines = [f"# Findings of the 6-minute study on the {new} agents", "",
             f"`python experiments/cross_variant/findings.py --new {new}` (see its docstring "
             "for the verdicts). 95% intervals as `drl-analyze` reports them.", "",
             "| agent | finding | measure | 6-minute agent | " + new + " agent | verdict |",
             "|---|---|---|---|---|---|"]
    for r in found:
        lines.append(f"| {r['agent']} | {r['finding']} | {r['measure']} | {_fmt(r['old'])} | "
                     f"{_fmt(r['new'])} | {r['verdict']} |")
    lines += ["", "## What the stronger agents show besides", "",
              "| agent | king in men, opening | middlegame | endgame | Give and Take endings "
              "(Giver eliminated / blocked / cut at the ply cap) | first-move JS distance "
              "from human games, 6-minute -> now |", "|---|---|---|---|---|---|"]
    for r in more:
        js = r["first-move JS distance, old -> new"]
        jtxt = " -> ".join("—" if x is None else f"{x:.2f}" for x in js)
        lines.append(f"| {r['agent']} | {_fmt(r['king in men, opening'])} | "
                     f"{_fmt(r['king in men, middlegame'])} | {_fmt(r['king in men, endgame'])} "
                     f"| {r.get('Giver eliminated / blocked / cut', '—')} | {jtxt} |")
    if missing:
        lines += ["", "Not compared: " + "; ".join(missing) + "."]
    out = HERE / new / "findings.md"
    out.write_text("\n".join(lines) + "\n")
    (HERE / new / "findings.json").write_text(
        json.dumps({"findings": found, "extras": more, "missing": missing}, indent=2) + "\n")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--new", default="strong", help="the study folder of the new agents")
    print(write(ap.parse_args().new))


if __name__ == "__main__":
    main()
