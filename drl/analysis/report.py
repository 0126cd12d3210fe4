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

import base64
import html
import io
import json
import math
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["CHROMIUM", "comparison_rows", "screenshot", "write_report"]

CHROMIUM = "/usr/bin/chromium"
DASH = "—"
PHASES = ("all", "opening", "middlegame", "endgame")


# -- reading a summary, tolerant of missing parts -----------------------------------------


def _get(d: Any, *keys: Any) -> Any:
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
    value = _get(block, "value")
    if value is None:
        return DASH
    ci = _get(block, "ci95")
    if isinstance(ci, (list, tuple)) and len(ci) == 2:
        return f"{_num(value, digits)} [{_num(ci[0], digits)}, {_num(ci[1], digits)}]"
    return _num(value, digits)


def _label(summary: dict) -> str:
    name = summary.get("name") or "?"
    return str(name)


def _first_opening(summary: dict) -> dict | None:
    entries = _get(summary, "openings", "entries")
    return entries[0] if isinstance(entries, list) and entries else None


def comparison_rows(summaries: Sequence[dict]) -> list[dict[str, str]]:
    """One row of display strings per summary: the cross-run comparison table."""
    rows = []
    for s in summaries:
        o = s.get("outcomes") or {}
        mat = _get(s, "material", "groups", "all") or {}
        style = _get(s, "style", "groups", "all") or {}
        op = _first_opening(s) or {}
        js = _get(op, "divergence", "search", "js_distance")
        rows.append(
            {
                "run": _label(s),
                "variant": str(s.get("variant") or DASH),
                "iteration": _num(s.get("iteration"), 0),
                "self-play games trained": _num(s.get("games_trained"), 0),
                "sims": _num(s.get("simulations"), 0),
                "games": _num(o.get("games"), 0),
                "first-mover score": _est(_get(o, "first_mover", "score")),
                "Taker score": _est(_get(o, "taker", "score")),
                "draw rate": _est(o.get("draw_rate")),
                "truncated": _est(o.get("truncation_rate")),
                "mean plies": _est(_get(o, "length", "mean"), 0),
                **{f"king in men ({ph})": _est(_get(mat, ph, "king_in_men")) for ph in PHASES},
                "man value": _est(_get(mat, "all", "man_value")),
                "offer rate": _est(style.get("offer_rate")),
                "pieces per capture": _est(_get(style, "capture_length", "mean")),
                "king usage": _est(style.get("king_usage")),
                "mobility": _est(style.get("mobility"), 1),
                "opening JS distance": _num(js, 3),
            }
        )
    return rows


# -- plots --------------------------------------------------------------------------------


def _png(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=80, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return buf.getvalue()


def _bars(ax: Any, labels: list[str], series: dict[str, list[Any]], ylabel: str) -> None:
    """Grouped bars with 95% error bars; ``series`` maps a legend name to blocks."""
    width = 0.8 / max(1, len(series))
    for j, (name, blocks) in enumerate(series.items()):
        xs, ys, lo, hi = [], [], [], []
        for i, b in enumerate(blocks):
            v = _get(b, "value")
            if not isinstance(v, (int, float)) or not math.isfinite(v):
                continue
            ci = _get(b, "ci95") or [v, v]
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

    op = _first_opening(summary)
    legal = list(op.get("legal") or []) if op else []
    if not op or not legal:
        return None
    prior, search = op.get("prior") or {}, op.get("search") or {}
    human = _get(op, "human", "freq") or {}
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
    ax.set_title(f"{_label(summary)}: first moves", fontsize=9)
    return _png(fig)


def _plots(summaries: Sequence[dict]) -> dict[str, bytes]:
    """Every plot of the report, by file name.

    Returns:
        ``outcomes.png``, ``material.png``, ``style.png`` and ``openings-K.png`` for each
        run K that has an opening with legal moves, as PNG bytes.
    """
    import matplotlib

    matplotlib.use("Agg")

    def each(*keys: str) -> list[Any]:
        return [_get(s, *keys) for s in summaries]

    labels = [_label(s) for s in summaries]
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


# -- boards -------------------------------------------------------------------------------


def _boards(variant: str, fens: Sequence[str], size: int) -> list[str]:
    """One SVG per position (empty list when the variant or a FEN cannot be read)."""
    from drl.rules import Board, Variant
    from drl.rules.svg import board_svg

    try:
        v = Variant.parse(variant)
        return [board_svg(Board(v, fen=f), size=size, numbers=False) for f in fens]
    except (ValueError, TypeError):
        return []


# -- HTML ---------------------------------------------------------------------------------

_CSS = """
body{font-family:sans-serif;margin:1.5em;max-width:1400px;color:#222}
table{border-collapse:collapse;margin:.6em 0 1.2em;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f2f2f2} img{max-width:100%}
.game{display:flex;gap:1em;align-items:flex-start;margin:1em 0}
.moves{max-height:300px;overflow:auto;font-family:monospace;font-size:12px;width:22em}
.moves span{cursor:pointer;padding:0 2px} .moves span.current{background:#e8c547}
button{margin-right:4px}
"""

_JS = r"""
(function(){
  document.querySelectorAll('.game').forEach(function(g){
    var d=JSON.parse(g.querySelector('script.boards').textContent);
    var boards=d.boards.map(function(ids){
      return ids.map(function(k){return d.lines[k];}).join('\n');
    });
    var view=g.querySelector('.board'), ply=g.querySelector('.ply');
    var moves=g.querySelectorAll('.moves span');
    var i=0;
    function show(k){
      i=Math.max(0,Math.min(boards.length-1,k));
      view.innerHTML=boards[i]; ply.textContent=String(i); g.dataset.ply=String(i);
      moves.forEach(function(m){m.classList.toggle('current', Number(m.dataset.ply)===i);});
    }
    g.querySelector('.first').onclick=function(){show(0);};
    g.querySelector('.back').onclick=function(){show(i-1);};
    g.querySelector('.forward').onclick=function(){show(i+1);};
    g.querySelector('.last').onclick=function(){show(boards.length-1);};
    moves.forEach(function(m){m.onclick=function(){show(Number(m.dataset.ply));};});
    g.tabIndex=0;
    g.addEventListener('keydown',function(e){
      if(e.key==='ArrowRight')show(i+1); else if(e.key==='ArrowLeft')show(i-1);
      else if(e.key==='Home')show(0); else if(e.key==='End')show(boards.length-1); else return;
      e.preventDefault();
    });
    show(0);
  });
})();
"""


def _e(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _html_table(rows: Sequence[dict[str, Any]], cls: str = "") -> str:
    if not rows:
        return "<p>(no rows)</p>"
    cols: list[str] = []
    for r in rows:
        cols += [c for c in r if c not in cols]
    head = "".join(f"<th>{_e(c)}</th>" for c in cols)
    body = "".join(
        "<tr>" + "".join(f"<td>{_e(r.get(c, DASH))}</td>" for c in cols) + "</tr>" for r in rows
    )
    return f'<table class="{_e(cls)}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _md_table(rows: Sequence[dict[str, Any]]) -> str:
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


def _outcome_rows(s: dict) -> list[dict[str, str]]:
    o = s.get("outcomes") or {}
    rows = []
    blocks = [
        ("first mover", o.get("first_mover")),
        ("Taker", o.get("taker")),
        ("Giver", o.get("giver")),
    ]
    for key in ("taker", "giver"):
        blocks.append((f"first mover as {key}", _get(o, "first_mover_by_role", key)))
    for name, b in blocks:
        if not b:
            continue
        rows.append(
            {
                "side": name,
                "games": _num(_get(b, "score", "n"), 0),
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
    for group, g in (_get(s, "material", "groups") or {}).items():
        for ph in PHASES:
            b = _get(g, ph)
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
    for group, g in (_get(s, "style", "groups") or {}).items():
        dist = _get(g, "capture_length", "distribution") or {}
        rows.append(
            {
                "moves by": group,
                "plies": _num(g.get("plies"), 0),
                "offer rate": _est(g.get("offer_rate")),
                "capture rate": _est(g.get("capture_rate")),
                "pieces per capture": _est(_get(g, "capture_length", "mean")),
                "captures by length": ", ".join(f"{k}: {v}" for k, v in dist.items()) or DASH,
                "king usage": _est(g.get("king_usage")),
                "mobility": _est(g.get("mobility"), 1),
            }
        )
    return rows


def _opening_rows(s: dict, top: int = 6) -> list[dict[str, str]]:
    rows = []
    for op in _get(s, "openings", "entries") or []:
        prior, search = op.get("prior") or {}, op.get("search") or {}
        human = _get(op, "human", "freq") or {}

        def tops(d: dict) -> str:
            best = sorted(d.items(), key=lambda kv: -kv[1])[:top]
            return ", ".join(f"{m} {p:.2f}" for m, p in best) or DASH

        div = _get(op, "divergence", "search") or {}
        rows.append(
            {
                "position": str(op.get("mover_role") or "start"),
                "policy prior": tops(prior),
                "search": tops(search),
                "human": tops(human) if human else str(op.get("human_reason") or DASH),
                "human games": _num(_get(op, "human", "games"), 0),
                "JS distance (search, human)": _num(div.get("js_distance"), 3),
                "same top move": DASH if not div else str(div.get("top_agreement")),
            }
        )
    return rows


def _game_html(summary: dict, game: dict, gid: str, size: int) -> str:
    fens = list(game.get("fens") or [])
    moves = list(game.get("moves") or [])
    boards = _boards(str(summary.get("variant") or ""), fens, size)
    if not boards:
        return f"<p>{_e(game.get('title', 'game'))}: the positions cannot be drawn.</p>"
    spans = []
    for k, m in enumerate(moves, 1):
        num = f"{(k + 1) // 2}. " if k % 2 else ""
        spans.append(f'<span data-ply="{k}">{_e(num)}{_e(m)}</span>')
    # Drawings of one game share most of their lines (the squares, the pieces that did
    # not move): each distinct line is stored once and a drawing is a list of line numbers.
    table: dict[str, int] = {}
    drawn = [[table.setdefault(line, len(table)) for line in b.split("\n")] for b in boards]
    data = json.dumps({"lines": list(table), "boards": drawn}, separators=(",", ":"))
    data = data.replace("</", "<\\/")  # no early end of the script element
    title = f"{game.get('title', 'game')} ({game.get('result', '')}, {game.get('termination', '')})"
    return (
        f'<div class="game" data-game="{_e(gid)}" data-plies="{len(boards) - 1}">'
        f'<div><div class="board"></div><div class="controls">'
        '<button class="first" title="first (Home)">&#x23EE;</button>'
        '<button class="back" title="back (&#x2190;)">&#x25C0;</button>'
        '<button class="forward" title="forward (&#x2192;)">&#x25B6;</button>'
        '<button class="last" title="last (End)">&#x23ED;</button>'
        f' ply <span class="ply">0</span> / {len(boards) - 1}</div></div>'
        f'<div><b>{_e(title)}</b><div class="moves">{" ".join(spans)}</div></div>'
        f'<script type="application/json" class="boards">{data}</script></div>'
    )


def _img(png: bytes, alt: str) -> str:
    return f'<img alt="{_e(alt)}" src="data:image/png;base64,{base64.b64encode(png).decode()}">'


_SUMMARY_PLOTS = ("outcomes.png", "material.png", "style.png")


def _run_description(s: dict) -> str:
    """One sentence on a run: variant, checkpoint, and how its self-play games were played."""
    sp = s.get("self_play") or {}
    return (
        f"variant {s.get('variant', DASH)}; checkpoint {s.get('checkpoint', DASH)} "
        f"(iteration {s.get('iteration', DASH)}, {s.get('games_trained', DASH)} "
        f"self-play games); {sp.get('games', DASH)} games of self-play at "
        f"{s.get('simulations', DASH)} simulations per step from "
        f"{sp.get('opening_plies', DASH)}-ply openings, cap {sp.get('max_plies', DASH)} plies"
    )


def _run_tables(s: dict) -> list[tuple[str, list[dict[str, str]]]]:
    """A run's tables in the order shown: ``(heading, rows)``."""
    return [
        ("Outcomes", _outcome_rows(s)),
        ("Material values", _material_rows(s)),
        ("Style", _style_rows(s)),
        ("First moves", _opening_rows(s)),
    ]


def _html_run(s: dict, k: int, plots: dict[str, bytes], sample_games: int, board_size: int) -> str:
    """The HTML section of run ``k``: description, tables, first-move plot, sample games."""
    label = _label(s)
    parts = [f'<h2 id="run-{k}">{_e(label)}</h2><p>{_e(_run_description(s))}</p>']
    for sub, rows in _run_tables(s):
        parts.append(f"<h3>{_e(sub)}</h3>{_html_table(rows, sub.lower())}")
    note = _get(s, "outcomes", "taker_note")
    if note:
        parts.append(f"<p>{_e(note)}</p>")
    png = plots.get(f"openings-{k}.png")
    if png:
        parts.append(_img(png, f"first moves of {label}"))
    games = list(s.get("sample_games") or [])[:sample_games]
    if games:
        parts.append("<h3>Sample games</h3>")
        parts += [_game_html(s, g, f"{k}-{j}", board_size) for j, g in enumerate(games)]
    return "".join(parts)


def _html_report(
    summaries: Sequence[dict],
    plots: dict[str, bytes],
    *,
    title: str,
    extra: Sequence[tuple[str, Sequence[dict[str, Any]]]],
    sample_games: int,
    board_size: int,
) -> str:
    """The text of ``index.html``: one page with its CSS, script, plots and boards inline.

    Args:
        summaries: the runs' summaries, in order.
        plots: :func:`_plots`'s PNGs by file name.
        title: the page's title.
        extra: ``(title, rows)`` tables shown before the comparison.
        sample_games: most sample games drawn per run.
        board_size: board width in pixels.

    Returns:
        The HTML document.
    """
    parts = [
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{_e(title)}</title>'
        f"<style>{_CSS}</style></head><body><h1>{_e(title)}</h1>"
    ]
    parts += [f"<h2>{_e(t)}</h2>{_html_table(rows, 'extra')}" for t, rows in extra]
    parts.append("<h2>Comparison</h2>" + _html_table(comparison_rows(summaries), "comparison"))
    parts += [_img(plots[name], name) for name in _SUMMARY_PLOTS]
    parts += [_html_run(s, k, plots, sample_games, board_size) for k, s in enumerate(summaries)]
    parts.append(f"<script>{_JS}</script></body></html>")
    return "".join(parts)


def _markdown_run(s: dict, k: int, plots: dict[str, bytes], sample_games: int) -> list[str]:
    """The Markdown lines of run ``k``; sample games are given as PDN."""
    md = [f"## {_label(s)}", "", _run_description(s), ""]
    for sub, rows in _run_tables(s):
        md += [f"### {sub}", "", _md_table(rows)]
    note = _get(s, "outcomes", "taker_note")
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


def _markdown_report(
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
        plots: :func:`_plots`'s PNGs by file name (only which exist matters).
        title: the report's title.
        extra: ``(title, rows)`` tables shown before the comparison.
        sample_games: most sample games given per run.

    Returns:
        The Markdown document, ending in a newline.
    """
    md = [f"# {title}", ""]
    for t, rows in extra:
        md += [f"## {t}", "", _md_table(rows)]
    md += ["## Comparison", "", _md_table(comparison_rows(summaries))]
    md += [f"![{name}]({name})" for name in _SUMMARY_PLOTS]
    md.append("")
    for k, s in enumerate(summaries):
        md += _markdown_run(s, k, plots, sample_games)
    return "\n".join(md) + "\n"


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
    plots = _plots(summaries)
    extra = list(extra_tables or [])
    page = _html_report(
        summaries,
        plots,
        title=title,
        extra=extra,
        sample_games=sample_games,
        board_size=board_size,
    )
    md = _markdown_report(summaries, plots, title=title, extra=extra, sample_games=sample_games)
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


# -- screenshots --------------------------------------------------------------------------

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)


def screenshot(
    html_path: str | os.PathLike,
    png_path: str | os.PathLike,
    width: int = 1280,
    height: int = 2000,
    chromium: str = CHROMIUM,
    timeout: float = 120.0,
) -> Path:
    """Draw a page (a local file) in headless Chromium into a PNG.

    Raises:
        FileNotFoundError: no Chromium at ``chromium`` or no page at ``html_path``.
        RuntimeError: Chromium failed or wrote no picture.
    """
    page = Path(html_path).resolve()
    if not page.is_file():
        raise FileNotFoundError(f"no page at {page}")
    if not Path(chromium).exists():
        raise FileNotFoundError(f"no Chromium at {chromium} (Debian package: chromium)")
    png = Path(png_path).resolve()
    with tempfile.TemporaryDirectory() as profile:
        cmd = [
            chromium,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={profile}",
            f"--window-size={width},{height}",
            f"--screenshot={png}",
            page.as_uri(),
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if proc.returncode or not png.exists():
        raise RuntimeError(f"chromium failed ({proc.returncode}): {proc.stderr[-500:]}")
    return png


def _main(argv: list[str]) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m drl.analysis.report")
    ap.add_argument("--screenshot", nargs=2, metavar=("PAGE", "PNG"), required=True)
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=2000)
    args = ap.parse_args(argv)
    try:
        page, png = args.screenshot
        print(screenshot(page, png, width=args.width, height=args.height))
    except (OSError, RuntimeError) as err:
        print(f"screenshot: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(_main(sys.argv[1:]))
