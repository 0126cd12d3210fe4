"""The experiment scripts fail clearly and early: bad numbers, unknown names, folders
outside experiments/ and corrupt JSON files are one line (exit status 2 for arguments)
before anything is loaded or played, and the budget study's table does not depend on the
settings of the last search run."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXP = ROOT / "experiments"


def _module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def run_experiment():
    return _module(EXP / "run_experiment.py", "drl_run_experiment")


@pytest.fixture(scope="module")
def budget():
    return _module(EXP / "cross_variant" / "budget.py", "drl_cross_variant_budget")


@pytest.fixture(scope="module")
def role_balance():
    return _module(EXP / "cross_variant" / "role_balance.py", "drl_role_balance")


def _fail(module, argv, monkeypatch, capsys) -> tuple[object, str]:
    """Run the script's main() with ``argv``; nothing may be played or loaded."""
    import drl.train.evaluate as ev

    def refuse(*args, **kwargs):
        raise AssertionError("a game was played")

    monkeypatch.setattr(ev, "play_against_baseline", refuse)
    monkeypatch.setattr(sys, "argv", ["script", *argv])
    with pytest.raises(SystemExit) as info:
        module.main()
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if isinstance(info.value.code, int):  # argparse: the usage, then the error line
        return info.value.code, err.strip().splitlines()[-1]
    return info.value.code, str(info.value.code)


CKPT = "experiments/long-english/agent.pt"
RUN_EXPERIMENT_BAD = [
    (["t", "--variant", "english", "--stages", "eval", "--games", "0"], "--games"),
    (["t", "--variant", "english", "--stages", "eval", "--games", "-4"], "--games"),
    (["t", "--variant", "give_and_take", "--stages", "eval", "--games", "3"], "multiple of 4"),
    (["t", "--variant", "english", "--stages", "eval", "--sims", "0"], "--sims"),
    (["t", "--variant", "english", "--stages", "eval", "--openings", "-5"], "openings"),
    (["t", "--variant", "english", "--stages", "eval", "--opponents", "nosuch"], "nosuch"),
    (["t", "--variant", "nosuch", "--stages", "eval"], "--variant"),
    (["t", "--variant", "english", "--timeout-min", "nan"], "--timeout-min"),
    (["../../../tmp/escaped", "--variant", "english", "--stages", "eval"], "inside"),
    (
        ["t", "--variant", "english", "--stages", "eval", "--checkpoint", "/nonexistent.pt"],
        "--checkpoint",
    ),
]


@pytest.mark.parametrize("argv,named", RUN_EXPERIMENT_BAD)
def test_run_experiment_refuses_bad_arguments_before_loading(
    run_experiment, monkeypatch, capsys, tmp_path, argv, named
):
    monkeypatch.setattr(run_experiment, "HERE", tmp_path / "experiments")
    (tmp_path / "experiments").mkdir()
    code, message = _fail(
        run_experiment,
        [*argv, "--checkpoint", CKPT] if "--checkpoint" not in argv else argv,
        monkeypatch,
        capsys,
    )
    assert code == 2 and named in message
    assert not (tmp_path / "experiments" / "t").exists()


def test_run_experiment_names_a_corrupt_results_file(run_experiment, monkeypatch, capsys, tmp_path):
    here = tmp_path / "experiments"
    (here / "t14").mkdir(parents=True)
    (here / "t14" / "results.json").write_text("{not json")
    monkeypatch.setattr(run_experiment, "HERE", here)
    code, message = _fail(
        run_experiment, ["t14", "--variant", "english", "--stages", "report"], monkeypatch, capsys
    )
    assert "results.json" in message and "not a readable JSON file" in message
    (here / "t14" / "results.json").write_text('[{"opponent": "random"}]')
    code, message = _fail(
        run_experiment,
        [
            "t14",
            "--variant",
            "english",
            "--stages",
            "eval",
            "--append",
            "--checkpoint",
            CKPT,
            "--sims",
            "2",
        ],
        monkeypatch,
        capsys,
    )
    assert "results.json: record 0 lacks" in message


BUDGET_BAD = [
    (["--study", "strong", "--iterations", "7", "--games", "0"], "--games"),
    (["--study", "strong", "--iterations", "7", "--games", "-2"], "--games"),
    (["--study", "strong", "--iterations", "7", "--sims", "0"], "--sims"),
    (["--study", "strong", "--iterations", "7", "--depth", "0"], "--depth"),
    (["--study", "strong", "--iterations", "7", "--openings", "-1"], "openings"),
    (["--study", "strong", "--iterations", "7", "--target", "nan"], "--target"),
    (["--study", "strong", "--iterations", "7", "--target", "1.5"], "--target"),
    (["--study", "nosuch", "--table"], "no study folder"),
    (["--study", "/tmp", "--table"], "inside"),
    (["--study", "..", "--table"], "inside"),
    (["--study", "strong", "--only", "nosuch", "--table"], "unknown study names"),
    (["--study", "strong", "--adopt", "-1"], "--adopt"),
]


@pytest.mark.parametrize("argv,named", BUDGET_BAD)
def test_budget_refuses_bad_arguments_before_playing(budget, monkeypatch, capsys, argv, named):
    code, message = _fail(budget, argv, monkeypatch, capsys)
    assert code == 2 and named in message


def _row(k: int, sims: int, wins: int) -> dict:
    return {
        "run": "english",
        "variant": "english",
        "iterations": k,
        "role": "all",
        "seed": 1,
        "games": 10,
        "wins": wins,
        "draws": 0,
        "losses": 10 - wins,
        "score": wins / 10,
        "ci95": [0.0, 1.0],
        "opponent": "alphabeta:depth=4",
        "sims": sims,
    }


def _study(tmp_path, rows) -> Path:
    base = tmp_path / "cross_variant"
    (base / "study" / "budget" / "english").mkdir(parents=True)
    (base / "study" / "budget" / "english" / "budget.json").write_text(json.dumps(rows))
    return base


def test_budget_names_a_corrupt_rows_file(budget, monkeypatch, capsys, tmp_path):
    base = _study(tmp_path, [])
    monkeypatch.setattr(budget, "BASE", base)
    rows = base / "study" / "budget" / "english" / "budget.json"
    rows.write_text('[{"iterations": 60')
    _, message = _fail(budget, ["--study", "study", "--table"], monkeypatch, capsys)
    assert "budget.json: not a readable JSON file" in message
    rows.write_text('[{"iterations": 60}]')
    _, message = _fail(budget, ["--study", "study", "--table"], monkeypatch, capsys)
    assert "row 0 lacks opponent" in message


def test_a_search_at_other_settings_leaves_the_study_table_as_it_is(budget, monkeypatch, tmp_path):
    base = _study(tmp_path, [_row(12, 800, 7), _row(24, 800, 8), _row(7, 4, 2)])
    monkeypatch.setattr(budget, "BASE", base)
    monkeypatch.setattr(
        sys, "argv", ["budget.py", "--study", "study", "--table", "--target", "0.7"]
    )
    budget.main()
    study = base / "study"
    table = (study / "budget.md").read_text()
    made = json.loads((study / "budget.json").read_text())
    assert len(made["rows"]) == 2 and made["target"] == 0.7 and "24 it." in table
    monkeypatch.setattr(budget, "search", lambda *a, **k: None)  # the rows are there
    for argv in (["--iterations", "7", "--sims", "4"], ["--iterations", "24"]):
        monkeypatch.setattr(sys, "argv", ["budget.py", "--study", "study", *argv])
        budget.main()
        assert (study / "budget.md").read_text() == table
        assert json.loads((study / "budget.json").read_text()) == made


ROLE_BALANCE_BAD = [
    (["--jobs", "0"], "--jobs"),
    (["--sims", "0"], "--sims"),
    (["--sims", "abc"], "--sims"),
    (["--depths", "0"], "--depths"),
    (["--max-plies", "0"], "max_plies"),
    (["--openings", "-1"], "openings"),
    (["--games", "3"], "--games"),
    (["--study", "nosuch"], "no study folder"),
    (["--study", "/tmp"], "inside"),
    (["--out", "rows.txt"], "--out"),
]


@pytest.mark.parametrize("argv,named", ROLE_BALANCE_BAD)
def test_role_balance_refuses_bad_arguments_before_playing(
    role_balance, monkeypatch, capsys, argv, named
):
    code, message = _fail(role_balance, ["--only", "give_and_take", *argv], monkeypatch, capsys)
    assert code == 2 and named in message


def test_role_balance_journal_and_database_column(role_balance, tmp_path):
    from types import SimpleNamespace

    out = tmp_path / "rb.json"
    on_record = role_balance._journal(out)
    for index, roles, winner, term in [
        (0, ("taker", "giver"), None, "database"),
        (2, ("giver", "taker"), "black", "no_pieces"),
    ]:
        on_record(
            SimpleNamespace(
                index=index,
                roles=roles,
                winner=winner,
                termination=term,
                plies=40,
                pdn=f'[Result "*"]\n\n{index} *\n',
            )
        )
    lines = [json.loads(x) for x in out.with_suffix(".games.jsonl").read_text().splitlines()]
    assert lines == [
        {"game": 0, "taker": "black", "winner": None, "termination": "database", "plies": 40},
        {"game": 1, "taker": "white", "winner": "black", "termination": "no_pieces", "plies": 40},
    ]
    assert out.with_suffix(".pdn").read_text().count("[Result") == 2
    assert role_balance._journal(None) is None
    row = {
        "name": "gt-10x10",
        "variant": "give_and_take:board_size=10",
        "player": "network",
        "budget": "800 sims",
        "sims": 800,
        "games": 4,
        "taker_wins": 1,
        "draws": 2,
        "taker_losses": 1,
        "truncated": 1,
        "database": 2,
        "taker_score": 0.5,
        "ci95": [0.15, 0.85],
        "mean_plies": 90.0,
    }
    role_balance.write_md([row], out.with_suffix(".md"))
    md = out.with_suffix(".md").read_text()
    assert "| truncated | database | Taker score |" in md
    assert "| 1-2-1 | 1 | 2 | 0.500 |" in md
    role_balance.write_md([{k: v for k, v in row.items() if k != "database"}], out)
    assert "database" not in out.read_text()


def test_role_balance_names_a_corrupt_rows_file(role_balance, monkeypatch, capsys, tmp_path):
    bad = tmp_path / "role_balance.json"
    bad.write_text('[{"name": "give_and_take", "player"')
    monkeypatch.setattr(role_balance, "OUT_JSON", bad)
    monkeypatch.setattr(role_balance, "ROOT", tmp_path)
    _, message = _fail(
        role_balance,
        ["--only", "give_and_take", "--sims", "", "--depths", "1", "--games", "4", "--jobs", "1"],
        monkeypatch,
        capsys,
    )
    assert "role_balance.json: not a readable JSON file" in message
