"""Golden trees: a seeded search with a uniform network, and one with a sparse network
evaluated inside the compiled search, compared with stored summaries.

Two roots are searched in one batch with root noise on (seeded), with the network
``logits 0, value 0`` (batched path) or with a sparse network of seeded weights
(:mod:`drl.search.inline`): the English start, and a Give and Take position with a capture in
progress (black's king on 18 has jumped to 11 and goes on to 2 or to 4) whose lines
reach the end of the game inside the tree, so that its root edges carry non-zero values
only terminal positions can give. For each root the summary holds the root's
visits, mean value and node count, the action played and, per root edge, its step
action, prior, visits and mean value. Any change in selection, priors, noise, backup
signs or the in-tree game changes it.

Regenerate the stored files after an intended change, and review their diff::

    PYTHONPATH=. python tests/search/test_golden_tree.py

The files are ``tests/search/golden/<root_selection>.json`` (uniform network) and
``tests/search/golden/sparse-<root_selection>.json``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from drl.encode.actions import num_actions, step_index
from drl.encode.features import num_features
from drl.encode.sparse_net import SparseWeights
from drl.nn.evaluator import UniformEvaluator
from drl.rules import Board
from drl.search import BatchedMCTS, Roots, SearchConfig

GOLDEN = Path(__file__).parent / "golden"
MODES = ["puct", "gumbel"]
NETS = ["uniform", "sparse"]
SIMULATIONS = 48
SEED = 2024
# (variant, FEN, steps of the move in progress as 1-based square pairs)
POSITIONS = [
    ("english", None, []),
    ("give_and_take", "B:W7,8,15,26:BK18", [(18, 11)]),
]


def sparse_weights(seed: int = 7, hidden: int = 64, hidden2: int = 16) -> SparseWeights:
    """A sparse network for 8x8 with seeded weights (torch's initialisation is not
    promised to stay the same across its versions; numpy's generator is)."""
    rng = np.random.default_rng(seed)
    f, a = num_features(8), num_actions(8)

    def w(*shape: int, scale: float) -> np.ndarray:
        return np.ascontiguousarray(rng.normal(0.0, scale, shape), np.float32)

    return SparseWeights(
        w1=w(f, hidden, scale=0.3),
        b1=w(hidden, scale=0.1),
        w2=w(hidden2, hidden, scale=0.3),
        b2=w(hidden2, scale=0.1),
        wv=w(hidden2, scale=0.3),
        bv=w(1, scale=0.1),
        wp=w(a, hidden2, scale=0.5),
        bp=w(a, scale=0.1),
    )


class _Sparse:
    """An evaluator whose network runs inside the compiled search."""

    def __init__(self) -> None:
        self.weights = sparse_weights()

    def __call__(self, obs, mask):
        raise AssertionError("the sparse network is evaluated inside the search")

    def compiled_weights(self) -> SparseWeights:
        return self.weights


def _golden(mode: str, net: str) -> Path:
    return GOLDEN / (f"{mode}.json" if net == "uniform" else f"{net}-{mode}.json")


def _summary(mode: str, net: str = "uniform") -> dict:
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
    evaluator = UniformEvaluator() if net == "uniform" else _Sparse()
    res = mcts.run(roots, evaluator, np.random.default_rng(SEED), explore=True)
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
    summary = {"root_selection": mode, "simulations": SIMULATIONS, "seed": SEED, "roots": out}
    return summary if net == "uniform" else {"network": net, **summary}


def _compare(got, want, where="summary", rel=1e-6, abs_=1e-9):
    if isinstance(want, dict):
        assert sorted(got) == sorted(want), where
        for key in want:
            _compare(got[key], want[key], f"{where}.{key}", rel, abs_)
    elif isinstance(want, list):
        assert len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _compare(g, w, f"{where}[{i}]", rel, abs_)
    elif isinstance(want, float):
        assert got == pytest.approx(want, rel=rel, abs=abs_), where
    else:
        assert got == want, where


@pytest.mark.parametrize("net", NETS)
@pytest.mark.parametrize("mode", MODES)
def test_tree_matches_the_golden_summary(mode, net):
    want = json.loads(_golden(mode, net).read_text())
    got = json.loads(json.dumps(_summary(mode, net)))  # tuples -> lists, as stored
    if net == "sparse":
        # float32 sums of the compiled network are vectorised for the host's SIMD width,
        # so their last bits differ between machines; counts still compare exactly.
        _compare(got, want, rel=1e-5, abs_=1e-6)
    else:
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


def test_sparse_golden_trees_use_the_network():
    """With the sparse network the root priors differ between edges and the start
    position's edges carry the network's values (a uniform network gives 0)."""
    for mode in MODES:
        start, _capture = json.loads(_golden(mode, "sparse").read_text())["roots"]
        assert len({round(e["prior"], 6) for e in start["edges"]}) > 1
        assert any(e["value"] != 0.0 for e in start["edges"] if e["visits"])


def _regenerate() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for mode in MODES:
        for net in NETS:
            path = _golden(mode, net)
            path.write_text(json.dumps(_summary(mode, net), indent=1) + "\n")
            print(f"wrote {path}")


if __name__ == "__main__":
    sys.exit(_regenerate())
