"""The cross-variant study's budget search (``experiments/cross_variant/budget.py``):
pooling over seeds, the smallest budget that reaches the target, and its table."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "experiments" / "cross_variant" / "budget.py"


@pytest.fixture(scope="module")
def budget():
    spec = importlib.util.spec_from_file_location("cross_variant_budget", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _row(k: int, role: str, wins: int, draws: int, losses: int, seed: int = 1) -> dict:
    games = wins + draws + losses
    return {
        "run": "give_and_take",
        "iterations": k,
        "role": role,
        "seed": seed,
        "games": games,
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "score": (wins + draws / 2) / games,
        "ci95": [0.0, 1.0],
        "opponent": "alphabeta:depth=4",
        "sims": 800,
    }


def test_pooled_adds_the_games_of_every_seed(budget):
    cells = budget.pooled(
        [_row(60, "all", 60, 15, 25, seed=1), _row(60, "all", 46, 13, 41, seed=2)]
    )
    c = cells[60]["all"]
    assert c["games"] == 200 and c["seeds"] == 2
    assert c["score"] == pytest.approx((60 + 7.5 + 46 + 6.5) / 200)
    lo, hi = c["ci95"]
    assert lo < c["score"] < hi


def test_smallest_needs_every_role_and_uses_the_pooled_score(budget):
    rows = [
        # 24: overall 0.65 but the Giver scores 0.50 -> not reached
        _row(24, "all", 60, 10, 30),
        _row(24, "taker", 40, 0, 10),
        _row(24, "giver", 20, 10, 20),
        # 36: 0.62 on one seed, 0.50 on another -> pooled 0.56, not reached
        _row(36, "all", 62, 0, 38, seed=1),
        _row(36, "all", 50, 0, 50, seed=2),
        # 48: reached
        _row(48, "all", 70, 0, 30),
        _row(48, "taker", 35, 0, 15),
        _row(48, "giver", 35, 0, 15),
    ]
    assert budget.smallest(rows, 0.60) == 48
    assert budget.smallest(rows, 0.75) is None
    assert budget.smallest(rows, 0.50) == 24  # the Giver's 0.50 reaches a 0.50 target


def test_table_marks_the_smallest_tried_as_an_upper_bound(budget, tmp_path, monkeypatch):
    study = tmp_path / "study"
    for name, rows in {
        "english": [_row(12, "all", 80, 0, 20), _row(24, "all", 90, 0, 10)],
        "russian": [_row(24, "all", 50, 0, 50), _row(36, "all", 61, 0, 39)],
        "brazilian": [_row(24, "all", 50, 0, 50)],
    }.items():
        (study / "budget" / name).mkdir(parents=True)
        (study / "budget" / name / "budget.json").write_text(json.dumps(rows))
    budget.table(study, 0.60)
    md = (study / "budget.md").read_text()
    lines = {line.split("|")[1].strip(): line for line in md.splitlines() if line.startswith("| ")}
    assert lines["english"].rstrip().endswith("| ≤ 12 |")
    assert lines["russian"].rstrip().endswith("| 36 |")
    assert lines["brazilian"].rstrip().endswith("| not reached by 24 |")
    summary = json.loads((study / "budget.json").read_text())
    assert summary["smallest"] == {"english": 12, "russian": 36, "brazilian": None}


def _checkpoint(folder: Path, k: int) -> Path:
    import torch

    from drl.nn.checkpoint import save_checkpoint

    payload = {"model": {"w": torch.full((2,), float(k))}, "net_config": {}, "counters": {}}
    return save_checkpoint(folder, k, payload, keep=100)


def test_adopt_copies_the_checkpoint_with_its_digest(budget, tmp_path):
    import hashlib

    study = tmp_path / "study"
    source = _checkpoint(study / "english" / "run" / "checkpoints", 12)
    budget.adopt(study, ["english"], 12)
    agent = study / "english" / "agent.pt"
    assert agent.read_bytes() == source.read_bytes()
    digest = (study / "english" / "agent.pt.sha256").read_text().strip()
    assert digest == hashlib.sha256(agent.read_bytes()).hexdigest()
    with pytest.raises(SystemExit, match="no checkpoint of iteration 24"):
        budget.adopt(study, ["english"], 24)


def test_adopt_refuses_a_corrupt_checkpoint_and_replaces_no_agent(budget, tmp_path):
    study = tmp_path / "study"
    _checkpoint(study / "english" / "run" / "checkpoints", 12)
    bad = _checkpoint(study / "russian" / "run" / "checkpoints", 12)
    bad.write_bytes(bad.read_bytes()[:100])  # cut short: its digest no longer matches
    with pytest.raises(SystemExit, match="russian: .*ckpt-00000012.pt"):
        budget.adopt(study, ["english", "russian"], 12)
    assert not (study / "english" / "agent.pt").exists()  # all or nothing


def test_table_never_pools_another_opponent_or_search_budget(budget, tmp_path):
    study = tmp_path / "study"
    rows = [
        _row(24, "all", 40, 0, 60),
        {**_row(24, "all", 100, 0, 0), "opponent": "alphabeta:depth=1"},
        {**_row(24, "all", 100, 0, 0, seed=2), "sims": 64},
    ]
    (study / "budget" / "english").mkdir(parents=True)
    (study / "budget" / "english" / "budget.json").write_text(json.dumps(rows))
    budget.table(study, 0.60)
    summary = json.loads((study / "budget.json").read_text())
    assert [r["opponent"] for r in summary["rows"]] == ["alphabeta:depth=4"]
    assert summary["smallest"] == {"english": None}
    budget.table(study, 0.60, "alphabeta:depth=1", 800)
    assert json.loads((study / "budget.json").read_text())["smallest"] == {"english": 24}


def test_a_new_setting_adds_rows_and_keeps_the_others(budget, tmp_path, monkeypatch):
    import argparse

    study = tmp_path / "study"
    _checkpoint(study / "english" / "run" / "checkpoints", 24)

    def fake_play(name, ckpt, args):
        row = _row(24, "all", 10, 0, 0, seed=args.seed)
        return [
            {**row, "opponent": f"alphabeta:depth={args.depth}", "sims": args.sims, "seconds": 1}
        ]

    monkeypatch.setattr(budget, "_play", fake_play)

    def run(depth, seed, redo=False):
        args = argparse.Namespace(depth=depth, games=10, sims=800, seed=seed, redo=redo)
        budget.search(study, ["english"], [24], args)
        return json.loads((study / "budget" / "english" / "budget.json").read_text())

    run(4, 1)
    rows = run(1, 1)  # another opponent at the same seed: both sets stay
    assert sorted(r["opponent"] for r in rows) == ["alphabeta:depth=1", "alphabeta:depth=4"]
    rows = run(4, 2)  # a second seed: pooled later, both kept
    assert len(rows) == 3
    assert len(run(4, 2, redo=True)) == 3  # replayed: replaced, not added
