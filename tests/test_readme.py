"""The interactive session at the top of the README runs as written."""

import doctest
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_session():
    text = README.read_text(encoding="utf-8")
    start = text.index("```python\n>>>") + len("```python\n")
    session = text[start : text.index("```", start)]
    parser = doctest.DocTestParser()
    test = parser.get_doctest(session, {}, "README", str(README), 0)
    assert test.examples, "the README session has no examples"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0
