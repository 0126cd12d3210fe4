"""The report's tables: display strings read from a summary, tolerant of missing parts.

Every cell is text: an estimate is ``value [lo, hi]``, anything missing or not finite a
dash. The same rows make the HTML tables (:mod:`.page`) and the Markdown ones
(:mod:`.markdown`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

__all__ = ["DASH", "NA", "PHASES", "comparison_rows"]

DASH = "—"
NA = "n/a"
"""The endgame accuracy's cell where the variant's endgame database was not on disk."""
PHASES = ("all", "opening", "middlegame", "endgame")


def lookup(d: Any, *keys: Any) -> Any:
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return None
        d = d[k]
    return d


def _num(x: Any, digits: int = 2) -> str:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        return DASH
    return f"{x:.{digits}f}"


def _est(block: Any, digits: int = 2) -> str:
    """``value [lo, hi]`` of a rate or estimate block, or a dash."""
    value = lookup(block, "value")
    if value is None:
        return DASH
    ci = lookup(block, "ci95")
    if isinstance(ci, (list, tuple)) and len(ci) == 2:
        return f"{_num(value, digits)} [{_num(ci[0], digits)}, {_num(ci[1], digits)}]"
    return _num(value, digits)


def run_label(summary: dict) -> str:
    name = summary.get("name") or "?"
    return str(name)


def first_opening(summary: dict) -> dict | None:
    entries = lookup(summary, "openings", "entries")
    return entries[0] if isinstance(entries, list) and entries else None


def endgame_cell(summary: dict, group: str = "all") -> str:
    """The endgame accuracy of a group: ``value [lo, hi]``, ``n/a`` without a database.

    A dash where the database was there but the group made no move in its positions.
    """
    endgame = summary.get("endgame")
    if not isinstance(endgame, dict):
        return NA
    return _est(lookup(endgame, "groups", group, "accuracy"))


def comparison_rows(summaries: Sequence[dict]) -> list[dict[str, str]]:
    """One row of display strings per summary: the cross-run comparison table."""
    rows = []
    for s in summaries:
        o = s.get("outcomes") or {}
        mat = lookup(s, "material", "groups", "all") or {}
        style = lookup(s, "style", "groups", "all") or {}
        op = first_opening(s) or {}
        js = lookup(op, "divergence", "search", "js_distance")
        rows.append(
            {
                "run": run_label(s),
                "variant": str(s.get("variant") or DASH),
                "iteration": _num(s.get("iteration"), 0),
                "self-play games trained": _num(s.get("games_trained"), 0),
                "sims": _num(s.get("simulations"), 0),
                "games": _num(o.get("games"), 0),
                "first-mover score": _est(lookup(o, "first_mover", "score")),
                "Taker score": _est(lookup(o, "taker", "score")),
                "draw rate": _est(o.get("draw_rate")),
                "truncated": _est(o.get("truncation_rate")),
                "mean plies": _est(lookup(o, "length", "mean"), 0),
                **{f"king in men ({ph})": _est(lookup(mat, ph, "king_in_men")) for ph in PHASES},
                "man value": _est(lookup(mat, "all", "man_value")),
                "offer rate": _est(style.get("offer_rate")),
                "pieces per capture": _est(lookup(style, "capture_length", "mean")),
                "king usage": _est(style.get("king_usage")),
                "mobility": _est(style.get("mobility"), 1),
                "opening JS distance": _num(js, 3),
                "endgame accuracy": endgame_cell(s),
            }
        )
    return rows


def _outcome_rows(s: dict) -> list[dict[str, str]]:
    o = s.get("outcomes") or {}
    rows = []
    blocks = [
        ("first mover", o.get("first_mover")),
        ("Taker", o.get("taker")),
        ("Giver", o.get("giver")),
    ]
    for key in ("taker", "giver"):
        blocks.append((f"first mover as {key}", lookup(o, "first_mover_by_role", key)))
    for name, b in blocks:
        if not b:
            continue
        rows.append(
            {
                "side": name,
                "games": _num(lookup(b, "score", "n"), 0),
                "score": _est(b.get("score")),
                "win": _est(b.get("win")),
                "draw": _est(b.get("draw")),
                "loss": _est(b.get("loss")),
                "truncated": _est(b.get("truncated")),
            }
        )
    return rows


def _material_rows(s: dict) -> list[dict[str, str]]:
    rows = []
    for group, g in (lookup(s, "material", "groups") or {}).items():
        for ph in PHASES:
            b = lookup(g, ph)
            if not b:
                continue
            rows.append(
                {
                    "to move": group,
                    "objective": str(g.get("objective", DASH)),
                    "phase": ph,
                    "probes": _num(b.get("probes"), 0),
                    "man value": _est(b.get("man_value")),
                    "king value": _est(b.get("king_value")),
                    "king in men": _est(b.get("king_in_men")),
                }
            )
    return rows


def _style_rows(s: dict) -> list[dict[str, str]]:
    rows = []
    for group, g in (lookup(s, "style", "groups") or {}).items():
        dist = lookup(g, "capture_length", "distribution") or {}
        rows.append(
            {
                "moves by": group,
                "plies": _num(g.get("plies"), 0),
                "offer rate": _est(g.get("offer_rate")),
                "capture rate": _est(g.get("capture_rate")),
                "pieces per capture": _est(lookup(g, "capture_length", "mean")),
                "captures by length": ", ".join(f"{k}: {v}" for k, v in dist.items()) or DASH,
                "king usage": _est(g.get("king_usage")),
                "mobility": _est(g.get("mobility"), 1),
            }
        )
    return rows


def _endgame_rows(s: dict) -> list[dict[str, str]]:
    if not isinstance(s.get("endgame"), dict):
        return [{"moves by": "all", "accuracy": f"{NA}: no endgame database on disk"}]
    groups = lookup(s, "endgame", "groups") or {}
    pieces = _num(lookup(s, "endgame", "pieces"), 0)
    return [
        {
            "moves by": group,
            "database pieces": pieces,
            "moves": _num(g.get("moves"), 0),
            "accuracy": _est(g.get("accuracy")),
            "win kept": _est(g.get("win_kept")),
            "draw kept": _est(g.get("draw_kept")),
            "from lost positions": _num(g.get("from_loss"), 0),
        }
        for group, g in groups.items()
        if isinstance(g, dict)
    ]


def _opening_rows(s: dict, top: int = 6) -> list[dict[str, str]]:
    rows = []
    for op in lookup(s, "openings", "entries") or []:
        prior, search = op.get("prior") or {}, op.get("search") or {}
        human = lookup(op, "human", "freq") or {}

        def tops(d: dict) -> str:
            best = sorted(d.items(), key=lambda kv: -kv[1])[:top]
            return ", ".join(f"{m} {p:.2f}" for m, p in best) or DASH

        div = lookup(op, "divergence", "search") or {}
        rows.append(
            {
                "position": str(op.get("mover_role") or "start"),
                "policy prior": tops(prior),
                "search": tops(search),
                "human": tops(human) if human else str(op.get("human_reason") or DASH),
                "human games": _num(lookup(op, "human", "games"), 0),
                "JS distance (search, human)": _num(div.get("js_distance"), 3),
                "same top move": DASH if not div else str(div.get("top_agreement")),
            }
        )
    return rows


def run_description(s: dict) -> str:
    """One sentence on a run: variant, checkpoint, and how its self-play games were played."""
    sp = s.get("self_play") or {}
    return (
        f"variant {s.get('variant', DASH)}; checkpoint {s.get('checkpoint', DASH)} "
        f"(iteration {s.get('iteration', DASH)}, {s.get('games_trained', DASH)} "
        f"self-play games, drl {s.get('drl_version', 'unknown')}, code "
        f"{str(s.get('code_version', 'unknown'))[:12]}); {sp.get('games', DASH)} games of "
        "self-play at "
        f"{s.get('simulations', DASH)} simulations per step from "
        f"{sp.get('opening_plies', DASH)}-ply openings, cap {sp.get('max_plies', DASH)} plies"
    )


def run_tables(s: dict) -> list[tuple[str, list[dict[str, str]]]]:
    """A run's tables in the order shown: ``(heading, rows)``."""
    return [
        ("Outcomes", _outcome_rows(s)),
        ("Material values", _material_rows(s)),
        ("Style", _style_rows(s)),
        ("Endgame accuracy", _endgame_rows(s)),
        ("First moves", _opening_rows(s)),
    ]


def md_table(rows: Sequence[dict[str, Any]]) -> str:
    if not rows:
        return "(no rows)\n"
    cols: list[str] = []
    for r in rows:
        cols += [c for c in r if c not in cols]

    def cell(x: Any) -> str:
        return str(x).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(cell(c) for c in cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(cell(r.get(c, DASH)) for c in cols) + " |" for r in rows]
    return "\n".join(lines) + "\n"
