"""experiments/AGENTS.md lists every committed agent, as experiments/agents_index.py writes it."""

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load_script():
    spec = importlib.util.spec_from_file_location(
        "agents_index", ROOT / "experiments" / "agents_index.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_index_is_what_the_script_writes():
    index = _load_script()
    assert index.INDEX.read_text(encoding="utf-8") == index.render(), (
        "experiments/AGENTS.md is out of date: run python experiments/agents_index.py"
    )
    assert index.main(["--check"]) == 0


def test_every_committed_agent_is_listed_with_its_strength():
    index = _load_script()
    text = index.INDEX.read_text(encoding="utf-8")
    found = sorted(ROOT.glob("experiments/**/agent.pt"))
    assert found, "no committed agent.pt"
    for pt in found:
        rel = pt.relative_to(ROOT).as_posix()
        row = next((line for line in text.splitlines() if line.startswith(f"| `{rel}`")), None)
        assert row is not None, f"{rel} is not in the index"
        assert "[0." in row or "[1." in row, f"{rel}: no score interval in {row!r}"


def test_a_changed_result_makes_the_index_stale(tmp_path, monkeypatch):
    index = _load_script()
    src = ROOT / "experiments" / "default-english"
    copy = tmp_path / "experiments" / "default-english"
    shutil.copytree(src, copy, ignore=shutil.ignore_patterns("*.pdn", "*.png", "run"))
    monkeypatch.setattr(index, "ROOT", tmp_path)
    monkeypatch.setattr(index, "INDEX", tmp_path / "experiments" / "AGENTS.md")
    assert index.main([]) == 0
    assert index.main(["--check"]) == 0
    rows = json.loads((copy / "results.json").read_text())
    rows[0]["score"] = 0.123
    (copy / "results.json").write_text(json.dumps(rows))
    assert index.main(["--check"]) == 1
    assert "0.12" in index.render()


@pytest.mark.parametrize("name", ["LICENSE", "CITATION.cff"])
def test_license_and_citation_exist(name):
    text = (ROOT / name).read_text(encoding="utf-8")
    assert "the drl authors" in text
