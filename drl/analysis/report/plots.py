"""The report's plots (matplotlib, Agg) as PNG bytes.

A bar chart draws, and its legend names, only the series that have a value for some run:
a report on English-only runs has no "Taker" entry.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from typing import Any

from drl.analysis.report.tables import PHASES, first_opening, lookup, run_label

SUMMARY_PLOTS = ("outcomes.png", "material.png", "style.png")


def _png(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=80, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return buf.getvalue()


def _value(block: Any) -> float | None:
    v = lookup(block, "value")
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        return None
    return float(v)


def present(series: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """The series that have a value for at least one run.

    The others are neither drawn nor named in the legend: no "Taker" in a report
    without Give and Take.
    """
    return {k: v for k, v in series.items() if any(_value(b) is not None for b in v)}


def _bars(ax: Any, labels: list[str], series: dict[str, list[Any]], ylabel: str) -> None:
    """Grouped bars with 95% error bars; ``series`` maps a legend name to blocks.

    Only the series with some value are drawn and named in the legend (:func:`present`).
    """
    series = present(series)
    width = 0.8 / max(1, len(series))
    for j, (name, blocks) in enumerate(series.items()):
        xs, ys, lo, hi = [], [], [], []
        for i, b in enumerate(blocks):
            v = _value(b)
            if v is None:
                continue
            ci = lookup(b, "ci95") or [v, v]
            xs.append(i + (j - (len(series) - 1) / 2) * width)
            ys.append(v)
            lo.append(max(0.0, v - ci[0]) if ci[0] is not None else 0.0)
            hi.append(max(0.0, ci[1] - v) if ci[1] is not None else 0.0)
        ax.bar(xs, ys, width=width, yerr=[lo, hi], capsize=2, label=name)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=35, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)
    if len(series) > 1:
        ax.legend(fontsize=7)


def _bar_figure(
    labels: list[str],
    series: dict[str, list[Any]],
    ylabel: str,
    title: str,
    *,
    line: float | None = None,
    unit_range: bool = False,
) -> bytes:
    """One figure of grouped bars (:func:`_bars`) as PNG bytes.

    Args:
        labels: one x label per run.
        series: legend name -> one estimate block per run.
        ylabel: the y axis label.
        title: the figure's title.
        line: height of a dashed reference line, or None for none.
        unit_range: whether the y axis is fixed to [0, 1] (scores and rates).

    Returns:
        The PNG file's bytes.
    """
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(max(6.0, 0.7 * len(labels) + 2), 3.4))
    _bars(ax, labels, series, ylabel)
    if line is not None:
        ax.axhline(line, color="grey", lw=0.8, ls="--")
    if unit_range:
        ax.set_ylim(0, 1)
    ax.set_title(title, fontsize=10)
    return _png(fig)


def _opening_plot(summary: dict) -> bytes | None:
    """The first-move shares (prior, search, human games) of a run's first opening as PNG.

    Returns:
        The PNG file's bytes, or None when the run has no opening with legal moves.
    """
    import matplotlib.pyplot as plt

    op = first_opening(summary)
    legal = list(op.get("legal") or []) if op else []
    if not op or not legal:
        return None
    prior, search = op.get("prior") or {}, op.get("search") or {}
    human = lookup(op, "human", "freq") or {}
    fig, ax = plt.subplots(figsize=(max(5.0, 0.45 * len(legal) + 2), 2.8))
    xs = range(len(legal))
    w = 0.27
    ax.bar([x - w for x in xs], [prior.get(m, 0.0) for m in legal], w, label="policy prior")
    ax.bar(list(xs), [search.get(m, 0.0) for m in legal], w, label="search visits")
    if human:
        ax.bar([x + w for x in xs], [human.get(m, 0.0) for m in legal], w, label="human games")
    ax.set_xticks(list(xs))
    ax.set_xticklabels(legal, rotation=60, fontsize=7)
    ax.set_ylabel("share")
    ax.legend(fontsize=7)
    ax.set_title(f"{run_label(summary)}: first moves", fontsize=9)
    return _png(fig)


def draw_plots(summaries: Sequence[dict]) -> dict[str, bytes]:
    """Every plot of the report, by file name.

    Returns:
        ``outcomes.png``, ``material.png``, ``style.png`` and ``openings-K.png`` for each
        run K that has an opening with legal moves, as PNG bytes.
    """
    import matplotlib

    matplotlib.use("Agg")

    def each(*keys: str) -> list[Any]:
        return [lookup(s, *keys) for s in summaries]

    labels = [run_label(s) for s in summaries]
    style = ("style", "groups", "all")
    out = {
        "outcomes.png": _bar_figure(
            labels,
            {
                "first mover": each("outcomes", "first_mover", "score"),
                "Taker": each("outcomes", "taker", "score"),
                "draw rate": each("outcomes", "draw_rate"),
            },
            "score / rate",
            "Outcomes under the agent's own play (95% intervals)",
            line=0.5,
            unit_range=True,
        ),
        "material.png": _bar_figure(
            labels,
            {ph: each("material", "groups", "all", ph, "king_in_men") for ph in PHASES},
            "king value / man value",
            "Learned material: a king is worth k men (value head, by phase)",
            line=1.0,
        ),
        "style.png": _bar_figure(
            labels,
            {
                "offer rate": each(*style, "offer_rate"),
                "multi-capture rate": each(*style, "capture_length", "multi_rate"),
                "king usage": each(*style, "king_usage"),
            },
            "rate",
            "Style (all moves)",
            unit_range=True,
        ),
    }
    for k, s in enumerate(summaries):
        png = _opening_plot(s)
        if png is not None:
            out[f"openings-{k}.png"] = png
    return out
