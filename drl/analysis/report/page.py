"""``index.html``: one self-contained page (CSS, script, plots and boards inline).

It fits a 1,280 px window: a table wider than the page scrolls inside its own box, and the
sample games' controls are plain text that every font has.
"""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Sequence
from typing import Any

from drl.analysis.report.plots import SUMMARY_PLOTS
from drl.analysis.report.tables import (
    DASH,
    comparison_rows,
    lookup,
    run_description,
    run_label,
    run_tables,
)

_CSS = """
body{font-family:sans-serif;margin:1.5em;color:#222}
p,h1,h2,h3,b{overflow-wrap:anywhere}
.scroll{max-width:100%;overflow-x:auto;margin:.6em 0 1.2em}
table{border-collapse:collapse;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}
td{white-space:nowrap}
th{background:#f2f2f2} img{max-width:100%}
.game{display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start;margin:1em 0}
.moves{max-height:300px;overflow:auto;font-family:monospace;font-size:12px;width:22em}
.moves span{cursor:pointer;padding:0 2px;white-space:nowrap} .moves span.current{background:#e8c547}
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
    table = f'<table class="{_e(cls)}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
    return f'<div class="scroll">{table}</div>'


def _boards(variant: str, fens: Sequence[str], size: int) -> list[str]:
    """One SVG per position (empty list when the variant or a FEN cannot be read)."""
    from drl.rules import Board, Variant
    from drl.rules.svg import board_svg

    try:
        v = Variant.parse(variant)
        return [board_svg(Board(v, fen=f), size=size, numbers=False) for f in fens]
    except (ValueError, TypeError):
        return []


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
        # plain text that every font has (no media-control symbols)
        '<button class="first" title="first (Home)">&laquo; start</button>'
        '<button class="back" title="back (left arrow)">&lsaquo; back</button>'
        '<button class="forward" title="forward (right arrow)">next &rsaquo;</button>'
        '<button class="last" title="last (End)">end &raquo;</button>'
        f' ply <span class="ply">0</span> / {len(boards) - 1}</div></div>'
        f'<div><b>{_e(title)}</b><div class="moves">{" ".join(spans)}</div></div>'
        f'<script type="application/json" class="boards">{data}</script></div>'
    )


def _img(png: bytes, alt: str) -> str:
    return f'<img alt="{_e(alt)}" src="data:image/png;base64,{base64.b64encode(png).decode()}">'


def _html_run(s: dict, k: int, plots: dict[str, bytes], sample_games: int, board_size: int) -> str:
    """The HTML section of run ``k``: description, tables, first-move plot, sample games."""
    label = run_label(s)
    parts = [f'<h2 id="run-{k}">{_e(label)}</h2><p>{_e(run_description(s))}</p>']
    for sub, rows in run_tables(s):
        # one class per table ("first-moves", not "first moves": the games' .moves style)
        parts.append(f"<h3>{_e(sub)}</h3>{_html_table(rows, sub.lower().replace(' ', '-'))}")
    note = lookup(s, "outcomes", "taker_note")
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


def html_page(
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
        plots: :func:`draw_plots`'s PNGs by file name.
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
    parts += [_img(plots[name], name) for name in SUMMARY_PLOTS]
    parts += [_html_run(s, k, plots, sample_games, board_size) for k, s in enumerate(summaries)]
    parts.append(f"<script>{_JS}</script></body></html>")
    return "".join(parts)
