"""The analysis report: one self-contained HTML page, and the same tables in Markdown.

The report is drawn from the summaries of :func:`drl.analysis.analyze_run`.

``index.html`` holds everything it shows: CSS and script inline, plots as inline PNG
(matplotlib, Agg), boards as inline SVG (:func:`drl.rules.svg.board_svg`), so it opens
from disk with nothing fetched. Sample games are stepped through move by move (buttons,
or the arrow keys, Home and End). ``report.md`` has the tables and links the plots, saved
as PNG files beside it; ``summary.json`` is the list of summaries as given.

    from drl.analysis.report import write_report
    paths = write_report([summary_a, summary_b], "out/report")

``python -m drl.analysis.report --screenshot PAGE.html OUT.png`` draws a page in headless
Chromium (Debian's ``chromium``) to a PNG.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from drl.analysis.report.markdown import markdown_page
from drl.analysis.report.page import html_page
from drl.analysis.report.plots import draw_plots
from drl.analysis.report.screenshot import CHROMIUM, CHROMIUM_FLAGS, screenshot
from drl.analysis.report.tables import comparison_rows

__all__ = ["CHROMIUM", "CHROMIUM_FLAGS", "comparison_rows", "screenshot", "write_report"]


def write_report(
    summaries: Sequence[dict],
    out_dir: str | os.PathLike,
    *,
    title: str = "drl analysis",
    extra_tables: Sequence[tuple[str, Sequence[dict[str, Any]]]] | None = None,
    sample_games: int = 3,
    board_size: int = 280,
) -> dict[str, Path]:
    """Write ``index.html``, ``report.md`` (with its PNG plots) and ``summary.json``.

    Args:
        summaries: summaries of :func:`drl.analysis.analyze_run` (missing or null parts
            are shown as a dash).
        out_dir: the report folder (created).
        title: the page's title.
        extra_tables: ``(title, rows)`` tables shown first, rows being dicts of cells
            (e.g. an alpha-beta ladder).
        sample_games: most sample games drawn per run.
        board_size: board width in pixels.

    Returns:
        ``{"html": path, "markdown": path, "summary": path}``.

    Raises:
        ValueError: ``summaries`` is empty or not a list of dicts, or ``out_dir`` cannot
            be written.
    """
    summaries = list(summaries)
    if not summaries or not all(isinstance(s, dict) for s in summaries):
        raise ValueError("write_report: give a non-empty list of summary dicts")
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ValueError(f"{out}: cannot write the report there ({err})") from None
    plots = draw_plots(summaries)
    extra = list(extra_tables or [])
    page = html_page(
        summaries,
        plots,
        title=title,
        extra=extra,
        sample_games=sample_games,
        board_size=board_size,
    )
    md = markdown_page(summaries, plots, title=title, extra=extra, sample_games=sample_games)
    paths = {
        "html": out / "index.html",
        "markdown": out / "report.md",
        "summary": out / "summary.json",
    }
    try:
        for name, png in plots.items():
            (out / name).write_bytes(png)
        paths["html"].write_text(page, encoding="utf-8")
        paths["markdown"].write_text(md, encoding="utf-8")
        paths["summary"].write_text(json.dumps(summaries, indent=1) + "\n", encoding="utf-8")
    except OSError as err:
        raise ValueError(f"{out}: cannot write the report there ({err})") from None
    return paths
