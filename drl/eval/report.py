"""Presenting results: rich tables, JSON, and an Elo plot with error bars."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from drl._atomic import write_atomic
from drl.eval.elo import Ratings
from drl.eval.records import GameRecord
from drl.eval.stats import clocks, summarize

__all__ = [
    "is_timed_name",
    "standings_table",
    "pairs_table",
    "roles_table",
    "write_json",
    "plot_elo",
    "fmt_elo",
]


def fmt_elo(x: float) -> str:
    """Elo as ``+123``, ``+inf``/``-inf``, or ``-`` for NaN."""
    if math.isnan(x):
        return "-"
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return f"{round(x):+d}"


def standings_table(ratings: Ratings, records: Sequence[GameRecord], title: str = "Ratings"):
    """A rich table: one row per player, best first (games, W-D-L, score, Elo with CI)."""
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for col in ("player", "games", "W-D-L", "score", "Elo", f"{ratings.confidence:.0%} CI"):
        table.add_column(col, justify="left" if col == "player" else "right", no_wrap=True)
    order = sorted(range(len(ratings.players)), key=lambda i: -ratings.elo[i])
    for i in order:
        name = ratings.players[i]
        w = summarize(records, name)["all"]
        table.add_row(
            name,
            str(w.games),
            f"{w.wins}-{w.draws}-{w.losses}",
            f"{w.score:.3f}",
            fmt_elo(ratings.elo[i]),
            f"[{fmt_elo(ratings.lower[i])}, {fmt_elo(ratings.upper[i])}]",
        )
    return table


def is_timed_name(name: str) -> bool:
    """Whether a player's name is the spec of an agent on a clock (``time=``).

    A ``#1``/``#2`` suffix (two equal specs in a match) is ignored; a name that is not a
    spec is not timed.
    """
    from drl.agents import is_timed

    try:
        return is_timed(name.rsplit("#", 1)[0] if "#" in name else name)
    except ValueError:
        return False


def _clock_cell(entry: dict[str, float] | None) -> str:
    if entry is None:
        return "-"
    return f"{1000 * entry['mean_s']:.0f}/{1000 * entry['max_s']:.0f}"


def pairs_table(records: Sequence[GameRecord], players: Sequence[str], title: str = "Pairs"):
    """A rich table: for each pair that met, the first player's W-D-L, score and 95% CI.

    With the games cut at the ply cap (``truncated``) and those the endgame database
    ended with their exact result (``database``).

    When a player is on a clock (:func:`is_timed_name`), both clocks of every row with
    one are shown: each side's mean and most milliseconds per move in that pair's games
    (``mean/max``).
    """
    from rich.table import Table

    timed = {p: is_timed_name(p) for p in players}
    table = Table(title=title, title_justify="left")
    cols = ["player", "opponent", "games", "W-D-L", "score", "95% CI", "truncated", "database"]
    if any(timed.values()):
        cols += ["ms/move", "opp. ms/move"]  # each: mean/max
    for col in cols:
        table.add_column(
            col, justify="left" if col in ("player", "opponent") else "right", no_wrap=True
        )
    for i, a in enumerate(players):
        for b in players[i + 1 :]:
            games = [r for r in records if {r.black, r.white} == {a, b}]
            if not games:
                continue
            w = summarize(games, a)["all"]
            lo, hi = w.score_interval
            cells = [
                a,
                b,
                str(w.games),
                f"{w.wins}-{w.draws}-{w.losses}",
                f"{w.score:.3f}",
                f"{lo:.2f}-{hi:.2f}",
                str(w.truncated),
                str(w.database),
            ]
            if len(cols) > len(cells):
                both = clocks(games, (a, b)) if timed[a] or timed[b] else {}
                cells += [_clock_cell(both.get(a)), _clock_cell(both.get(b))]
            table.add_row(*cells)
    return table


def roles_table(
    records: Sequence[GameRecord], players: Sequence[str], title: str = "By colour and role"
):
    """A rich table: each player's W-D-L and score as Black, White, Taker and Giver."""
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    parts = ["black", "white", "taker", "giver"]
    present = [p for p in parts if any(p in summarize(records, n) for n in players)]
    table.add_column("player", no_wrap=True)
    for p in present:
        table.add_column(p, justify="right", no_wrap=True)
    for n in players:
        s = summarize(records, n)
        cells = []
        for p in present:
            w = s.get(p)
            cells.append("-" if w is None else f"{w.wins}-{w.draws}-{w.losses} ({w.score:.2f})")
        table.add_row(n, *cells)
    return table


def _clean(obj: Any) -> Any:
    if isinstance(obj, float):
        if math.isnan(obj):
            return None
        if math.isinf(obj):
            return "inf" if obj > 0 else "-inf"
        return obj
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    if hasattr(obj, "item") and callable(obj.item):  # numpy scalars
        return _clean(obj.item())
    return obj


def write_json(obj: Any, path: str | os.PathLike) -> Path:
    """Write ``obj`` as indented JSON (NaN -> null, infinities -> "inf"/"-inf").

    The file is replaced atomically (written to ``<name>.tmp``, then renamed): a reader,
    or an interrupted writer, leaves the old file or the new one, never a part. When it
    cannot be written (a full disk), ``<name>.tmp`` is removed and the ``OSError`` names
    ``path``.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(_clean(obj), indent=2) + "\n"
    try:
        write_atomic(path, text, fsync=False)
    except OSError as err:  # (a full disk): no partial file is left, the error names the file
        raise OSError(err.errno, err.strerror, str(path)) from None
    return path


def plot_elo(ratings: Ratings, path: str | os.PathLike, title: str = "") -> Path:
    """Save a plot of the ratings as points with interval bars (PNG, Agg backend).

    Unbounded interval ends are drawn as arrows to the plot's edge.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order = sorted(range(len(ratings.players)), key=lambda i: ratings.elo[i])
    finite = [
        v
        for i in order
        for v in (ratings.elo[i], ratings.lower[i], ratings.upper[i])
        if math.isfinite(v)
    ]
    lo_edge = min(finite) - 100 if finite else -100
    hi_edge = max(finite) + 100 if finite else 100
    fig, ax = plt.subplots(figsize=(7, 0.6 * len(order) + 1.5))
    for y, i in enumerate(order):
        e, lo, hi = ratings.elo[i], ratings.lower[i], ratings.upper[i]
        x = min(max(e, lo_edge), hi_edge)
        left = min(max(lo, lo_edge), hi_edge)
        right = min(max(hi, lo_edge), hi_edge)
        ax.plot([left, right], [y, y], color="tab:blue", lw=2)
        ax.plot([x], [y], "o", color="tab:blue")
        for end, edge, marker in ((lo, lo_edge, "<"), (hi, hi_edge, ">")):
            if not math.isfinite(end):
                ax.plot([edge], [y], marker, color="tab:blue")
        ax.annotate(
            fmt_elo(e), (x, y), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=8
        )
    ax.set_ylim(-0.6, len(order) - 0.3)
    ax.set_yticks(range(len(order)))
    ax.set_yticklabels([ratings.players[i] for i in order])
    ax.set_xlim(lo_edge - 20, hi_edge + 20)
    anchor_elo = ratings.elo[ratings.players.index(ratings.anchor)]
    ax.set_xlabel(
        f"Elo (anchor {ratings.anchor} = {anchor_elo:.0f}), {ratings.confidence:.0%} intervals"
    )
    ax.axvline(anchor_elo, color="grey", lw=0.5)
    if title:
        ax.set_title(title)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
