"""The golden data of ``tests/golden`` agree with the shared folder they were copied from.

Runs only where the shared folder (``../shared``, or ``$DRL_SHARED``) is present; a fresh
clone has the golden files alone. Every golden entry must equal its original, so a fix in
either place that is not made in the other fails here.
"""

from __future__ import annotations

import json

import pytest

from tests.shared_paths import (
    GOLDEN,
    GOLDEN_CASES,
    GOLDEN_PERFT,
    GOLDEN_POSITIONS,
    SHARED,
    SHARED_CASES,
    SHARED_DATA,
)

needs_shared = pytest.mark.skipif(
    not SHARED.exists(), reason=f"shared folder not available: {SHARED}"
)


def _json(path):
    return json.loads(path.read_text(encoding="utf-8"))


def test_golden_files_are_present():
    """The golden data are part of the repository (no skip, whatever is beside it)."""
    assert GOLDEN_PERFT.is_file() and GOLDEN_POSITIONS.is_file()
    assert len(list(GOLDEN_CASES.glob("*.json"))) >= 23
    assert (GOLDEN / "README.md").is_file()


@needs_shared
def test_perft_counts_agree_with_shared():
    golden = _json(GOLDEN_PERFT)
    shared = _json(SHARED_DATA / "perft" / "published_perft.json")
    assert golden["start_positions"], "no start-position tables"
    for table, entry in golden["start_positions"].items():
        assert entry == shared["start_positions"][table], table
    originals = {(p["variant"], p["name"]): p for p in shared["test_positions"]}
    assert golden["test_positions"], "no test positions"
    for pos in golden["test_positions"]:
        assert pos == originals[pos["variant"], pos["name"]], pos["name"]
    # Every international position with drop-duplicates counts is kept.
    assert {p["name"] for p in golden["test_positions"]} == {
        name
        for (variant, name), p in originals.items()
        if variant == "international" and "drop_duplicates" in p
    }
    assert shared["_notes"] == golden["_notes"][: len(shared["_notes"])]


@needs_shared
def test_positions_agree_with_shared():
    assert _json(GOLDEN_POSITIONS) == _json(SHARED_DATA / "positions" / GOLDEN_POSITIONS.name)


@needs_shared
def test_rule_cases_agree_with_shared():
    golden = {p.name: _json(p) for p in GOLDEN_CASES.glob("*.json")}
    shared = {p.name: _json(p) for p in SHARED_CASES.glob("*.json")}
    assert sorted(golden) == sorted(shared), "a case was added or removed on one side only"
    for name, case in shared.items():
        assert golden[name] == case, name


def test_shared_dir_honours_the_environment(monkeypatch, tmp_path):
    from drl import _paths

    monkeypatch.setenv(_paths.ENV_VAR, str(tmp_path))
    assert _paths.shared_dir() == tmp_path
    monkeypatch.setenv(_paths.ENV_VAR, "")
    assert _paths.shared_dir() == _paths.repo_root().parent / "shared"
    monkeypatch.delenv(_paths.ENV_VAR)
    assert _paths.shared_dir() == _paths.repo_root().parent / "shared"


def test_one_place_locates_the_shared_folder():
    """No test, benchmark, experiment, notebook or package module builds the ``../shared``
    path itself: they all ask ``drl._paths.shared_dir()``."""
    import re

    root = GOLDEN.parents[1]
    pattern = re.compile(r"""/\s*\\?["']shared\\?["']|\\?["']\.\./shared""")
    offenders = []
    for folder in ("drl", "tests", "benchmarks", "experiments", "notebooks"):
        for path in (root / folder).rglob("*"):
            if path.suffix not in (".py", ".ipynb") or path.name == "_paths.py":
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            for line in text.splitlines():
                code = line.split("#", 1)[0]
                if pattern.search(code) and "shared_dir" not in code:
                    offenders.append(f"{path.relative_to(root)}: {line.strip()}")
    assert not offenders, offenders
