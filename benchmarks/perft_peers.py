"""Perft speed of drl against py-draughts, measured side by side in one run.

From the start position: English depth 8, International depth 8, Russian depth 9. Both
libraries count the same way: the last ply is counted in bulk (the number of legal moves
of each position one ply above the leaves), never played. For py-draughts two figures:

- its public API (``board.legal_moves``, ``push``, ``pop``) driven by the natural
  recursive perft written here;
- its internal perft (``draughts.engines.turbo.perft``: a bitboard generator on the
  10x10 board, so International only).

When a py-draughts run at the full depth would take too long it is timed at a smaller
depth (nodes/s is comparable across depths) and the output says so. Counts are checked
against ``data/perft/published_perft.json`` of the shared folder (``../shared``, or
``$DRL_SHARED``; see ``drl._paths``) where available. py-draughts'
American board lets a side skip a capture, so its counts differ from the published
English ones: there it is compared for speed only.

Also printed: numba's cold compile time (a new process with an empty ``NUMBA_CACHE_DIR``)
and the warm start (a new process reusing that cache) up to a first ``generate_moves``.

    python benchmarks/perft_peers.py            # full run
    python benchmarks/perft_peers.py --budget 5 # py-draughts runs capped near 5 s each
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from drl._paths import shared_dir
from drl.rules import core
from drl.rules.variant import Variant

REPO = Path(__file__).resolve().parents[1]
PUBLISHED = shared_dir() / "data" / "perft" / "published_perft.json"

# (drl preset, depth, py-draughts board class name, published table)
RUNS = [
    ("english", 8, "AmericanBoard", "english_checkers"),
    ("international", 8, "StandardBoard", "international"),
    ("russian", 9, "RussianBoard", "russian"),
]

_CHILD = """
import time
t0 = time.perf_counter()
import numpy as np
from drl.rules import core
from drl.rules.variant import Variant
v = Variant.preset("english")
state = core.initial_state(v.params)
out = core.move_buffer()
core.generate_moves(state, v.params, out)
t1 = time.perf_counter()
core.perft(state, v.params, 2)
core.count_moves(state, v.params)
core.apply_move(state, v.params, out[0])
t2 = time.perf_counter()
print(t1 - t0, t2 - t0)
"""


def api_perft(board, depth: int) -> int:
    """Perft over py-draughts' public API, last ply counted in bulk."""
    moves = board.legal_moves
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        board.push(move)
        total += api_perft(board, depth - 1)
        board.pop()
    return total


def timed(fn, *args) -> tuple[int, float]:
    start = time.process_time()
    result = fn(*args)
    return result, time.process_time() - start


def timed_within_budget(fn, make_arg, depth: int, budget: float) -> tuple[int, int, float]:
    """Run ``fn(make_arg(), d)`` for d = 1.. up to ``depth``, stopping early when the next
    depth would likely exceed ``budget`` seconds. Returns (depth used, nodes, seconds)."""
    used, nodes, seconds = 0, 0, 0.0
    for d in range(1, depth + 1):
        n, s = timed(fn, make_arg(), d)
        used, nodes, seconds = d, n, s
        if d < depth and s * 8 > budget:
            break
    return used, nodes, seconds


def drl_perft(name: str, depth: int) -> tuple[int, float]:
    params = Variant.preset(name).params
    state = core.initial_state(params)
    core.perft(state, params, 2)  # loaded / compiled outside the timing
    best = None
    for _ in range(3):
        nodes, seconds = timed(core.perft, state, params, depth)
        best = seconds if best is None else min(best, seconds)
    return nodes, best


def start_times() -> tuple[float, float, float, float]:
    """(cold in-process to first generate_moves, cold total wall, warm to first
    generate_moves, warm total wall), each in a fresh interpreter."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        figures = []
        for _ in range(2):
            start = time.perf_counter()
            out = subprocess.run([sys.executable, "-c", _CHILD], env=env, check=True,
                                 capture_output=True, text=True, cwd=REPO).stdout.split()
            wall = time.perf_counter() - start
            figures += [float(out[0]), wall]
    return tuple(figures)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=20.0,
                        help="rough cap in seconds for each py-draughts run (default 20)")
    parser.add_argument("--skip-start", action="store_true",
                        help="skip the compile / start-time measurements")
    args = parser.parse_args(argv)
    console = Console(width=max(Console().width, 110))
    published = json.loads(PUBLISHED.read_text())["start_positions"] if PUBLISHED.exists() \
        else None
    try:
        import draughts
        from draughts.engines import turbo
    except ImportError:
        draughts = None
        console.print("[yellow]py-draughts is not installed (pip install py-draughts): "
                      "drl figures only[/yellow]")

    table = Table(title="Perft from the start position (CPU time, bulk counting at the "
                        "last ply)")
    for column in ("variant", "library", "depth", "nodes", "published", "seconds", "nodes/s",
                   "drl speed-up"):
        table.add_column(column, justify="right" if column not in ("variant", "library")
                         else "left")
    notes = []
    for name, depth, board_name, key in RUNS:
        expected = published[key]["drop_duplicates"] if published else None

        def published_at(d, expected=expected):
            return str(expected[d - 1]) if expected and d <= len(expected) else "-"

        nodes, seconds = drl_perft(name, depth)
        drl_rate = nodes / seconds
        ok = "" if published_at(depth) in ("-", str(nodes)) else " MISMATCH"
        table.add_row(name, "drl", str(depth), f"{nodes}{ok}", published_at(depth),
                      f"{seconds:.3f}", f"{drl_rate:,.0f}", "")
        if draughts is None:
            continue
        board_cls = getattr(draughts, board_name)
        d, n, s = timed_within_budget(api_perft, board_cls, depth, args.budget)
        match = "matches" if published_at(d) == str(n) else "differs from"
        table.add_row("", f"py-draughts API ({board_name.removesuffix('Board')})", str(d),
                      str(n), published_at(d),
                      f"{s:.3f}", f"{n / s:,.0f}", f"{drl_rate / (n / s):,.0f}x")
        if d < depth:
            notes.append(f"{name}: py-draughts API perft timed at depth {d} instead of "
                         f"{depth} to stay within the time budget (nodes/s is comparable).")
        if match == "differs from":
            notes.append(f"{name}: py-draughts' count {n} at depth {d} differs from the "
                         f"published {published_at(d)}"
                         + (" (its American board lets a side skip a capture; compared for "
                            "speed only)" if board_name == "AmericanBoard" else ""))
        if board_name == "StandardBoard":
            d, n, s = timed_within_budget(
                lambda b, dd: turbo.perft_from_board(b, dd), board_cls, depth, args.budget)
            table.add_row("", "py-draughts internal (turbo)", str(d), str(n),
                          published_at(d), f"{s:.3f}", f"{n / s:,.0f}",
                          f"{drl_rate / (n / s):,.0f}x")
            if d < depth:
                notes.append(f"{name}: py-draughts internal perft timed at depth {d}.")
    console.print(table)
    if draughts is not None:
        notes.append("py-draughts has an internal perft only for its 10x10 (International) "
                     "generator; English and Russian compare against its API perft.")
    for note in notes:
        console.print(f"- {note}")

    if not args.skip_start:
        cold_first, cold_wall, warm_first, warm_wall = start_times()
        console.print(
            f"numba cold compile (empty cache), new process: first generate_moves after "
            f"{cold_first:.2f} s (process total {cold_wall:.2f} s, with perft, count_moves "
            f"and apply_move compiled)")
        console.print(
            f"warm start (cache filled), new process: first generate_moves after "
            f"{warm_first:.2f} s (process total {warm_wall:.2f} s; target < 1 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
