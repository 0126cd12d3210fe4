"""drl-eval: a tiny run end to end, and errors without tracebacks."""

import json
import subprocess
import sys

import pytest

from drl.cli.eval import quote_overrides
from drl.eval.settings import MatchSettings
from drl.rules import read_games, replay


def _run(tmp_path, *args):
    cmd = [
        sys.executable,
        "-m",
        "drl.cli.eval",
        *args,
        f"hydra.run.dir={tmp_path}",
        "workers=1",
        "progress=false",
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def test_quote_overrides_keeps_spec_parameters_together():
    out = quote_overrides(
        [
            "agents=[alphabeta:depth=4,mcts:sims=400,c=2,random]",
            "variant=give_and_take:max_capture=true,taker=white",
            "games=3",
        ]
    )
    assert out == [
        'agents=["alphabeta:depth=4","mcts:sims=400,c=2","random"]',
        "variant=give_and_take",
        'variant.spec="give_and_take:max_capture=true,taker=white"',
        "games=3",
    ]


def test_round_robin_writes_results_pdn_and_plot(tmp_path):
    proc = _run(
        tmp_path,
        "variant=give_and_take:max_capture=true",
        "agents=[alphabeta:depth=1,greedy,random]",
        "games=4",
        "max_plies=60",
    )
    assert proc.returncode == 0, proc.stderr
    assert "Elo" in proc.stdout
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["variant"] == "give_and_take:max_capture=true"
    assert {p["name"] for p in results["ratings"]["players"]} == {
        "alphabeta:depth=1",
        "greedy",
        "random",
    }
    assert len(results["games"]) == 12
    assert set(results["summary"]["greedy"]) >= {"all", "taker", "giver"}
    games = list(read_games(tmp_path / "games.pdn"))
    assert len(games) == 12
    for g in games:
        replay(g)
    assert (tmp_path / "elo.png").stat().st_size > 1000


@pytest.mark.parametrize(
    "args, message",
    [
        (["gmaes=3"], "Key 'gmaes' not in"),
        (["agents=[alphabeta:depht=3,random]"], "unknown parameter 'depht'"),
        (["format=swiss"], "format='swiss'"),
        (["variant=give_and_take:taker=red"], "taker must be one of"),
    ],
)
def test_errors_are_short(tmp_path, args, message):
    proc = _run(tmp_path, *args)
    assert proc.returncode != 0
    assert message in proc.stderr + proc.stdout
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    "fmt, agents",
    [
        ("sprt", ["alphabeta:depth=3", "random"]),
        ("pool", ["alphabeta:depth=2", "greedy", "random"]),
        ("halftime", ["alphabeta:depth=2", "greedy"]),
        ("gauntlet", ["greedy", "random", "random:seed=1"]),
    ],
)
def test_formats_in_process(tmp_path, fmt, agents):
    from drl._configs import VariantCfg
    from drl.cli.eval import EvalConfig, run

    spec = "give_and_take" if fmt == "halftime" else "losing"
    cfg = EvalConfig(
        variant=VariantCfg(name=spec, spec=spec),
        agents=agents,
        format=fmt,
        games=4,
        workers=1,
        progress=False,
        max_plies=120,
        lives=1,
        plot=False,
    )
    res = run(cfg, tmp_path)
    saved = json.loads((tmp_path / "results.json").read_text())
    assert saved["format"] == fmt and len(saved["games"]) == len(res["games"]) > 0
    if fmt == "sprt":
        assert saved["sprt"]["decision"] == "H1"  # depth 3 against random, elo1 = 20
        assert sum(saved["sprt"]["pentanomial"]) * 2 == len(saved["games"])
    if fmt == "pool":
        assert saved["pool"]["winner"] == "alphabeta:depth=2"
    if fmt == "halftime":
        assert saved["halftime"]["winner"] == "alphabeta:depth=2"
    if fmt == "gauntlet":
        pairs = {frozenset((g["black"], g["white"])) for g in saved["games"]}
        assert pairs == {frozenset(("greedy", "random")), frozenset(("greedy", "random:seed=1"))}


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"max_plies": 0}, "max_plies=0"),
        ({"openings": -1}, "openings=-1"),
        ({"workers": 0}, "workers=0"),
        ({"lives": 0}, "lives=0"),
        ({"format": "halftime", "games": 3}, "games=3"),
        ({"format": "halftime", "games": 1}, "games=1"),
        ({"confidence": 1.5}, "confidence=1.5"),
        ({"prior_draws": float("nan")}, "prior_draws=nan"),
    ],
)
def test_check_names_the_bad_key(changes, message):
    from drl._configs import VariantCfg
    from drl.cli.eval import EvalConfig
    from drl.eval.checks import check_config

    spec = "give_and_take" if changes.get("format") == "halftime" else "english"
    cfg = EvalConfig(
        variant=VariantCfg(name=spec, spec=spec), agents=["greedy", "random"], **changes
    )
    with pytest.raises(ValueError, match=message):
        check_config(cfg)


def test_check_accepts_an_even_halftime_match():
    from drl._configs import VariantCfg
    from drl.cli.eval import EvalConfig
    from drl.eval.checks import check_config

    check_config(
        EvalConfig(
            variant=VariantCfg(name="give_and_take", spec="give_and_take"),
            agents=["greedy", "random"],
            format="halftime",
            games=4,
        )
    )


def test_library_refuses_a_zero_ply_cap_and_negative_openings():
    from drl.eval.arena import GameTask, match_tasks
    from drl.eval.formats import halftime_match, pool_tournament

    with pytest.raises(ValueError, match="max_plies"):
        GameTask(0, "greedy", "random", "a", "b", "english", None, 0, 1, max_plies=0)
    with pytest.raises(ValueError, match="max_plies"):
        match_tasks("greedy", "random", "english", 2, MatchSettings(max_plies=0))
    with pytest.raises(ValueError, match="openings"):
        match_tasks("greedy", "random", "english", 2, MatchSettings(openings=-1))
    with pytest.raises(ValueError, match="max_plies"):
        halftime_match(
            "greedy",
            "random",
            "give_and_take",
            1,
            settings=MatchSettings(max_plies=0, progress=False),
        )
    with pytest.raises(ValueError, match="openings"):
        pool_tournament(
            ["greedy", "random", "random:seed=1"],
            settings=MatchSettings(openings=-2, progress=False),
        )


def test_drl_eval_does_not_import_torch(tmp_path):
    code = (
        "import sys\n"
        "from drl._configs import VariantCfg\n"
        "from drl.cli.eval import EvalConfig, run\n"
        "cfg = EvalConfig(variant=VariantCfg(), agents=['greedy', 'random'], format='sprt', "
        "games=2, workers=1, progress=False, max_plies=20, plot=False)\n"
        "cfg.sprt.max_games = 2\n"
        f"run(cfg, __import__('pathlib').Path({str(tmp_path)!r}))\n"
        "print('torch' in sys.modules)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "False"
