"""Golden trees: a seeded search with a uniform network, compared with a stored summary.

Two roots are searched in one batch with the network ``logits 0, value 0`` and root
noise on (seeded): the English start, and a Give and Take position with a capture in
progress (black's king on 18 has jumped to 11 and goes on to 2 or to 4) whose lines
reach the end of the game inside the tree, so that its root edges carry non-zero values
only terminal positions can give. For each root the summary holds the root's
visits, mean value and node count, the action played and, per root edge, its step
action, prior, visits and mean value. Any change in selection, priors, noise, backup
signs or the in-tree game changes it.

Regenerate the stored files after an intended change, and review their diff::

    PYTHONPATH=. python tests/search/test_golden_tree.py

The files are ``tests/search/golden/<root_selection>.json``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from drl.encode.actions import step_index
from drl.nn.evaluator import UniformEvaluator
from drl.rules import Board
from drl.search import BatchedMCTS, Roots, SearchConfig

GOLDEN = Path(__file__).parent / "golden"
MODES = ["puct", "gumbel"]
SIMULATIONS = 48
SEED = 2024
# (variant, FEN, steps of the move in progress as 1-based square pairs)
POSITIONS = [
    ("english", None, []),
    ("give_and_take", "B:W7,8,15,26:BK18", [(18, 11)]),
]


def _summary(mode: str) -> dict:
    boards = [Board(v, fen=f) if f else Board(v) for v, f, _ in POSITIONS]
    prefixes = [
        tuple(step_index(a - 1, b - 1, int(board.turn), board.variant.params) for a, b in steps)
        for board, (_, _, steps) in zip(boards, POSITIONS, strict=True)
    ]
    roots = Roots.from_positions(
        [b.state for b in boards], [b.variant.params for b in boards], prefixes=prefixes
    )
    mcts = BatchedMCTS(
        SearchConfig(num_simulations=SIMULATIONS, root_selection=mode),
        batch_size=len(boards),
        board_size=8,
    )
    res = mcts.run(roots, UniformEvaluator(), np.random.default_rng(SEED), explore=True)
    tree = mcts.tree
    out = []
    for b, (variant, fen, steps) in enumerate(POSITIONS):
        start, k = int(tree.edge_start[b, 0]), int(tree.edge_count[b, 0])
        edges = []
        for e in range(start, start + k):
            n = int(tree.edge_visits[b, e])
            edges.append(
                {
                    "action": int(tree.action[b, e]),
                    "prior": float(tree.prior[b, e]),
                    "visits": n,
                    "value": float(tree.edge_value_sum[b, e] / n) if n else 0.0,
                }
            )
        out.append(
            {
                "variant": variant,
                "fen": fen or boards[b].fen(),
                "steps": steps,
                "root_visits": int(tree.visits[b, 0]),
                "root_value": float(tree.value_sum[b, 0] / tree.visits[b, 0]),
                "num_nodes": int(tree.num_nodes[b]),
                "action": int(res.action[b]),
                "edges": edges,
            }
        )
    return {"root_selection": mode, "simulations": SIMULATIONS, "seed": SEED, "roots": out}


def _compare(got, want, where="summary"):
    if isinstance(want, dict):
        assert sorted(got) == sorted(want), where
        for key in want:
            _compare(got[key], want[key], f"{where}.{key}")
    elif isinstance(want, list):
        assert len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _compare(g, w, f"{where}[{i}]")
    elif isinstance(want, float):
        assert got == pytest.approx(want, rel=1e-6, abs=1e-9), where
    else:
        assert got == want, where


@pytest.mark.parametrize("mode", MODES)
def test_tree_matches_the_golden_summary(mode):
    want = json.loads((GOLDEN / f"{mode}.json").read_text())
    got = json.loads(json.dumps(_summary(mode)))  # tuples -> lists, as stored
    _compare(got, want)


def test_golden_trees_are_not_trivial():
    """The stored trees exercise what they guard: terminal values reach every edge of
    the capture-in-progress root, and priors and visits differ between edges."""
    for mode in MODES:
        roots = json.loads((GOLDEN / f"{mode}.json").read_text())["roots"]
        start, capture = roots
        assert start["root_visits"] == capture["root_visits"] == SIMULATIONS + 1
        assert len({e["visits"] for e in start["edges"]}) > 1
        assert len(capture["edges"]) == 2
        assert all(e["value"] != 0.0 for e in capture["edges"])
        if mode == "puct":  # Dirichlet noise makes the root priors differ
            assert len({round(e["prior"], 9) for e in start["edges"]}) > 1


def _regenerate() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for mode in MODES:
        path = GOLDEN / f"{mode}.json"
        path.write_text(json.dumps(_summary(mode), indent=1) + "\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    sys.exit(_regenerate())
