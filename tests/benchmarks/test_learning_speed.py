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
        "--equal-time",
        "0.01",
        "--equal-games",
        "0",
        "--equal-games-last",
        "4",
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
    # the equal-time rung: the last point only, az with a clock against alpha-beta's
    assert res["algo"] == "az"
    assert all("equal_time" not in p for p in res["checkpoints"][:-1])
    eq = last["equal_time"]
    assert eq["agent"].startswith("az:ckpt=") and eq["agent"].endswith(",time=0.01")
    assert eq["opponent"] == "alphabeta:time=0.01" and eq["W"] + eq["D"] + eq["L"] == 4
    assert (out / "t-equal-time.png").stat().st_size > 0
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


def _equal_time():
    _module()  # puts the benchmarks folder on sys.path
    import learning_equal_time

    return learning_equal_time


def test_the_equal_time_rung_plays_the_searcher_each_algorithm_trained(tmp_path):
    et = _equal_time()
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.yaml").write_text("algo:\n  name: minimax\nminimax:\n  depth: 3\n")
    assert et.run_algo(run) == "minimax"
    (run / "config.yaml").write_text("algo:\n  name: az\n")
    assert et.run_algo(run) == "az"
    ckpt = run / "checkpoints" / "ckpt-00000002.pt"
    assert et.agent_spec("minimax", ckpt, 0.1) == f"alphabeta:ckpt={ckpt},time=0.1"
    assert et.agent_spec("az", ckpt, 0.1) == f"az:ckpt={ckpt},time=0.1"
    with pytest.raises(ValueError, match="mcts"):
        et.agent_spec("mcts", ckpt, 0.1)
    e = et.elo_of(0.75, 0.5, 1.0)
    assert e["elo"] == pytest.approx(190.8, abs=0.5) and e["lower"] == 0.0
    assert e["upper"] == et.ELO_CAP and et.elo_of(0.0, 0.0, 0.2)["elo"] == -et.ELO_CAP


def test_the_equal_time_plot_draws_both_algorithms_and_options_are_checked(tmp_path):
    et = _equal_time()
    ls = _module()

    def result(algo, elos):
        pts = [
            {"wall_minutes": 2.0 * k, "equal_time": {"elo": e, "lower": e - 50, "upper": e + 50}}
            for k, e in enumerate(elos, 1)
        ]
        for p in pts:
            p["equal_time"]["opponent"] = "alphabeta:time=0.1"
        return {"variant": "english", "algo": algo, "checkpoints": pts}

    png = tmp_path / "e.png"
    assert et.plot([result("az", [-300, -100]), result("minimax", [-50, 80])], png, ["a", "m"])
    assert png.stat().st_size > 0
    assert not et.plot([{"variant": "english", "checkpoints": [{}]}], tmp_path / "n.png", ["x"])
    assert not (tmp_path / "n.png").exists()
    args = ls.parse(["--name", "x", "--equal-games", "7", "--equal-games-last", "9"])
    assert (args.equal_time, args.equal_games, args.equal_games_last) == (0.1, 7, 9)
    with pytest.raises(SystemExit):
        ls.parse(["--name", "x", "--equal-time", "-1"])
