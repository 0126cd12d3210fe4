"""Where the test data live.

- ``GOLDEN`` (``tests/golden``): the project's own ground truth, always present: the
  published perft counts, the FMJD/DCTL legal-move positions and the rule cases, each
  with its source (``tests/golden/README.md``). Rule tests read only these.
- ``SHARED`` (``../shared``, located by :func:`drl._paths.shared_dir`, ``DRL_SHARED``
  overrides): the optional folder of real game collections beside the checkout. Tests of
  the game collections skip when it is absent; ``tests/rules/test_golden.py`` checks the
  golden files against it when it is present.

A plain module rather than ``conftest``: several test folders have a ``conftest.py``, so
``from conftest import ...`` would pick whichever one pytest imported first.
"""

from pathlib import Path

from drl._paths import shared_dir

REPO_ROOT = Path(__file__).resolve().parents[1]

GOLDEN = REPO_ROOT / "tests" / "golden"
GOLDEN_CASES = GOLDEN / "cases"
GOLDEN_PERFT = GOLDEN / "perft" / "published_perft.json"
GOLDEN_POSITIONS = GOLDEN / "positions" / "international_legal_moves_dctl_french_tutorial.json"

SHARED = shared_dir()
SHARED_DATA = SHARED / "data"
SHARED_CASES = SHARED / "cases"
