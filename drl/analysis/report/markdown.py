"""``report.md``: the page's tables in Markdown, its plots linked as PNG files beside it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from drl.analysis.report.plots import SUMMARY_PLOTS
from drl.analysis.report.tables import (
    comparison_rows,
    lookup,
    md_table,
    run_description,
    run_label,
    run_tables,
)


def _markdown_run(s: dict, k: int, plots: dict[str, bytes], sample_games: int) -> list[str]:
    """The Markdown lines of run ``k``; sample games are given as PDN."""
    md = [f"## {run_label(s)}", "", run_description(s), ""]
    for sub, rows in run_tables(s):
        md += [f"### {sub}", "", md_table(rows)]
    note = lookup(s, "outcomes", "taker_note")
    if note:
        md += [str(note), ""]
    if plots.get(f"openings-{k}.png"):
        md += [f"![first moves](openings-{k}.png)", ""]
    games = list(s.get("sample_games") or [])[:sample_games]
    if games:
        md += ["### Sample games", ""]
        for g in games:
            md += ["```", str(g.get("pdn", "")).strip(), "```", ""]
    return md


def markdown_page(
    summaries: Sequence[dict],
    plots: dict[str, bytes],
    *,
    title: str,
    extra: Sequence[tuple[str, Sequence[dict[str, Any]]]],
    sample_games: int,
) -> str:
    """The text of ``report.md``: the HTML page's tables, plots linked as PNG files beside it.

    Args:
        summaries: the runs' summaries, in order.
        plots: :func:`draw_plots`'s PNGs by file name (only which exist matters).
        title: the report's title.
        extra: ``(title, rows)`` tables shown before the comparison.
        sample_games: most sample games given per run.

    Returns:
        The Markdown document, ending in a newline.
    """
    md = [f"# {title}", ""]
    for t, rows in extra:
        md += [f"## {t}", "", md_table(rows)]
    md += ["## Comparison", "", md_table(comparison_rows(summaries))]
    md += [f"![{name}]({name})" for name in SUMMARY_PLOTS]
    md.append("")
    for k, s in enumerate(summaries):
        md += _markdown_run(s, k, plots, sample_games)
    return "\n".join(md) + "\n"
