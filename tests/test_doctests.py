"""The ``>>>`` examples in drl's docstrings run and print what they show.

Every module under ``drl/`` whose source holds an example is one test, so that the
examples run in parallel and only the modules with examples are imported. An example
that cannot run everywhere (shared data, a GPU) is marked ``# doctest: +SKIP`` with the
reason beside it. The README's example runs in ``tests/test_readme.py``.
"""

from __future__ import annotations

import doctest
import importlib
import io
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _modules_with_examples() -> list[str]:
    names = []
    for path in sorted((ROOT / "drl").rglob("*.py")):
        if ">>>" not in path.read_text():
            continue
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names.append(".".join(parts))
    return names


MODULES = _modules_with_examples()


def test_there_are_examples_to_run():
    assert len(MODULES) >= 5, MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    out = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    tests = doctest.DocTestFinder().find(module, name)
    for test in tests:
        runner.run(test, out=out.write)
    result = runner.summarize(verbose=False)
    assert result.attempted, f"{name} has '>>>' in its source but no example was found"
    assert not result.failed, out.getvalue()
