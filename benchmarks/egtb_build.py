"""Endgame database build and probe speed.

Builds one variant's database (in a fresh temporary folder unless ``--dir`` is given)
and prints its build time, size, positions solved per second, and the time of a probe
next to its peer in the same process: counting the position's legal moves with the
rules engine (``drl.rules.core.count_moves`` through ``_movegen.count_at``).

    nice -n 5 python benchmarks/egtb_build.py --variant english --pieces 4
    nice -n 5 python benchmarks/egtb_build.py --variant give_and_take --pieces 4
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
from numba import njit

from drl.egtb import build
from drl.egtb._index import BINOM, S_OFFSET, unrank
from drl.egtb._probe import lookup_batch
from drl.rules._movegen import CTX_SIZE, MAX_MOVES, MOVE_WIDTH, count_at
from drl.rules.core import STATE_SIZE


@njit(cache=True)
def _count_batch(positions, params, out):
    states = np.zeros((1, STATE_SIZE), dtype=np.int64)
    moves = np.zeros((1, MAX_MOVES, MOVE_WIDTH), dtype=np.int64)
    ctx = np.zeros(CTX_SIZE, dtype=np.int64)
    for i in range(positions.shape[0]):
        for j in range(5):
            states[0, j] = positions[i, j]
        out[i] = count_at(states, 0, params, moves, 0, ctx)


def _random_positions(db, count: int, seed: int = 0) -> np.ndarray:
    layout = db.layout
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        g = int(rng.integers(layout.total))
        sid = int(np.searchsorted(layout.table[:, S_OFFSET], g, side="right") - 1)
        *pos, ok = unrank(
            sid, g - int(layout.table[sid, S_OFFSET]), layout.geo, layout.table, BINOM
        )
        if ok:
            out.append(pos)
    return np.array(out, dtype=np.int64)


def main() -> None:
    """Build, then time probes against move counting."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="english")
    parser.add_argument("--pieces", type=int, default=4)
    parser.add_argument("--dir", default=None, help="keep the database here")
    parser.add_argument("--probes", type=int, default=200_000)
    args = parser.parse_args()
    folder = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="egtb-bench-"))
    try:
        build(args.variant, 1, directory=folder, progress=False)  # compile outside the timing
        start = time.perf_counter()
        db = build(args.variant, args.pieces, directory=folder)
        wall = time.perf_counter() - start
        entries = int(db.layout.total)
        size = db.path.stat().st_size
        positions = sum(r["positions"] for r in db.stats())
        print(f"variant       {args.variant}   pieces {args.pieces}")
        print(f"positions     {positions:,} ({entries:,} index entries)")
        print(f"file          {size:,} bytes ({size / positions:.2f} bytes per position)")
        print(f"build         {wall:.1f} s   {entries / wall:,.0f} entries/s")
        pos = _random_positions(db, args.probes)
        out = np.zeros(len(pos), dtype=np.int64)
        params = np.array(db.rules.params)
        lookup_batch(pos[:10], db.kernel, out)
        _count_batch(pos[:10], params, out)
        t0 = time.perf_counter()
        lookup_batch(pos, db.kernel, out)
        t_probe = (time.perf_counter() - t0) / len(pos)
        t0 = time.perf_counter()
        _count_batch(pos, params, out)
        t_count = (time.perf_counter() - t0) / len(pos)
        t0 = time.perf_counter()
        for p in pos[:2000]:
            state = np.zeros(STATE_SIZE, dtype=np.int64)
            state[:5] = p
            db.probe_state(state)
        t_python = (time.perf_counter() - t0) / 2000
        print(f"probe         {t_probe * 1e9:.0f} ns compiled, {t_python * 1e6:.1f} us from Python")
        print(f"count moves   {t_count * 1e9:.0f} ns   (probe / count = {t_probe / t_count:.2f})")
    finally:
        if not args.dir:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
