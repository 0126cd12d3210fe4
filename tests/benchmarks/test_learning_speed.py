"""benchmarks/learning_speed.py: the rating of a hand-made game list, and one tiny run end
to end (train for a second, rate two checkpoints' worth against a two-rung ladder)."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "learning_speed.py"


def _module():
    spec = importlib.util.spec_from_file_location("learning_speed", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_rating_anchors_depth_one_and_reads_scores():
    ls = _module()
    d1, d2, net = "alphabeta:depth=1", "alphabeta:depth=2", "ckpt-00000004"
    # depth 2 scores 3 of 4 against depth 1 (+191 Elo); the net and depth 2 split evenly.
    games = [(d2, d1, 1.0), (d1, d2, 0.0), (d2, d1, 0.5), (d1, d2, 0.5)] * 2
    games += [(net, d2, 1.0), (d2, net, 1.0), (net, d2, 0.5), (d2, net, 0.5)]
    r = ls.rate(games)
    assert r[d1]["elo"] == 0.0
    assert r[d2]["elo"] == pytest.approx(190.8, abs=0.5)
    assert r[net]["elo"] == pytest.approx(r[d2]["elo"], abs=0.5)
    assert r[net]["lower"] < r[net]["elo"] < r[net]["upper"]
    # a player who lost every game has no finite rating
    lost = ls.rate(games[:8] + [("zero", d1, 0.0), (d1, "zero", 1.0)])
    assert lost["zero"]["elo"] == "-inf"


def test_role_scores_pool_the_depth_rungs_and_leave_out_the_timed_one(tmp_path):
    ls = _module()
    point = {
        "cpu_minutes": 3.0,
        "rungs": {
            # taker: 3 of 4 and 1 of 4 -> 4 of 8; giver: 1 of 2 and 0 of 6 -> 1 of 8
            "alphabeta:depth=2": {
                "roles": {
                    "taker": {"score": 0.75, "games": 4},
                    "giver": {"score": 0.5, "games": 2},
                }
            },
            "alphabeta:depth=4": {
                "roles": {
                    "taker": {"score": 0.25, "games": 4},
                    "giver": {"score": 0.0, "games": 6},
                }
            },
            "alphabeta:time=0.02": {"roles": {"taker": {"score": 1.0, "games": 100}}},
        },
    }
    assert ls.role_scores(point) == {"taker": 0.5, "giver": 0.125}
    assert ls.role_scores({"rungs": {"alphabeta:depth=2": {"W": 1}}}) == {}
    png = tmp_path / "r.png"
    ls.plot_roles([{"variant": "give_and_take", "checkpoints": [point]}], png, ["run"])
    assert png.stat().st_size > 0


@pytest.mark.slow  # about a minute: a training subprocess and its games
def test_end_to_end_tiny(tmp_path):
    out = tmp_path / "ls"
    cmd = [
        sys.executable,
        str(SCRIPT),
        "--name",
        "t",
        "--minutes",
        "0.02",
        "--games",
        "4",
        "--ladder",
        "1,2",
        "--sims",
        "4",
        "--points",
        "2",
        "--max-plies",
        "40",
        "--out-dir",
        str(out),
        "--",
        "train=tiny",  # the default sparse network: 4 simulations take well under 1 ms
    ]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    res = json.loads((out / "t.json").read_text())
    assert (out / "t.png").stat().st_size > 0 and (out / "ladder-give_and_take.json").exists()
    assert res["ladder"]["alphabeta:depth=1"]["elo"] == 0.0
    assert set(res["ladder"]) == {"alphabeta:depth=1", "alphabeta:depth=2"}
    assert res["overrides"] == ["train=tiny"]
    assert {"cpu_count", "loadavg_before", "loadavg_after", "device", "torch_threads"} <= set(
        res["machine"]
    )
    last = res["checkpoints"][-1]
    ckpts = sorted((out / "runs" / "t" / "checkpoints").glob("ckpt-*.pt"))
    assert last["checkpoint"] == ckpts[-1].name and last["cpu_minutes"] > 0
    for key in ("iteration", "wall_minutes", "elo", "lower", "upper", "az_seconds_per_move"):
        assert key in last
    rungs = last["rungs"]
    assert {"alphabeta:depth=1", "alphabeta:depth=2"} < set(rungs)
    timed = [k for k in rungs if k.startswith("alphabeta:time=")]
    assert len(timed) == 1
    # at least alpha-beta's shortest move time, however fast the network moves
    assert float(timed[0].split("=", 1)[1]) >= 1e-3
    for t in rungs.values():
        assert t["W"] + t["D"] + t["L"] == t["games"] == 4
        assert set(t["roles"]) == {"taker", "giver"}
    # --compare plots without training
    subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--compare",
            str(out / "t.json"),
            "--out",
            str(tmp_path / "c.png"),
        ],
        cwd=ROOT,
        check=True,
        timeout=120,
    )
    assert (tmp_path / "c.png").exists()
