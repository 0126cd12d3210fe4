"""The test modules can all be collected in one run: pytest imports test files of
folders without ``__init__.py`` by their base name, so two ``test_x.py`` in different
folders stop the whole run with an "import file mismatch"."""

import re
from collections import Counter
from pathlib import Path


def test_test_module_names_are_unique():
    tests = Path(__file__).resolve().parent
    names = Counter(p.name for p in tests.rglob("test_*.py"))
    assert not [n for n, c in names.items() if c > 1]


def test_no_test_imports_a_conftest_by_name():
    # with several conftest.py files, `from conftest import x` gets whichever pytest
    # imported first, so the result depends on the order of collection
    tests = Path(__file__).resolve().parent
    statement = re.compile(r"^\s*(from conftest import|import conftest\b)", re.M)
    offenders = [
        p.relative_to(tests).as_posix()
        for p in tests.rglob("*.py")
        if statement.search(p.read_text())
    ]
    assert not offenders
