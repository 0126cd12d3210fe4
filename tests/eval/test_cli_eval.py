"""drl-eval: a tiny run end to end, and errors without tracebacks."""

import json
import subprocess
import sys

import pytest

from drl.cli.eval import quote_overrides
from drl.rules import read_games, replay


def _run(tmp_path, *args):
    cmd = [sys.executable, "-m", "drl.cli.eval", *args, f"hydra.run.dir={tmp_path}",
           "workers=1", "progress=false"]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def test_quote_overrides_keeps_spec_parameters_together():
    out = quote_overrides(["agents=[alphabeta:depth=4,mcts:sims=400,c=2,random]",
                           "variant=give_and_take:max_capture=true,taker=white", "games=3"])
    assert out == ['agents=["alphabeta:depth=4","mcts:sims=400,c=2","random"]',
                   "variant=give_and_take",
                   'variant.spec="give_and_take:max_capture=true,taker=white"', "games=3"]


def test_round_robin_writes_results_pdn_and_plot(tmp_path):
    proc = _run(tmp_path, "variant=give_and_take:max_capture=true",
                "agents=[alphabeta:depth=1,greedy,random]", "games=4", "max_plies=60")
    assert proc.returncode == 0, proc.stderr
    assert "Elo" in proc.stdout
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["variant"] == "give_and_take:max_capture=true"
    assert {p["name"] for p in results["ratings"]["players"]} == {
        "alphabeta:depth=1", "greedy", "random"}
    assert len(results["games"]) == 12
    assert set(results["summary"]["greedy"]) >= {"all", "taker", "giver"}
    games = list(read_games(tmp_path / "games.pdn"))
    assert len(games) == 12
    for g in games:
        replay(g)
    assert (tmp_path / "elo.png").stat().st_size > 1000


@pytest.mark.parametrize("args, message", [
    (["gmaes=3"], "Key 'gmaes' not in"),
    (["agents=[alphabeta:depht=3,random]"], "unknown parameter 'depht'"),
    (["format=swiss"], "format='swiss'"),
    (["variant=give_and_take:taker=red"], "taker must be one of"),
])
def test_errors_are_short(tmp_path, args, message):
    proc = _run(tmp_path, *args)
    assert proc.returncode != 0
    assert message in proc.stderr + proc.stdout
    assert "Traceback" not in proc.stderr
