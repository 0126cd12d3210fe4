"""Where the shared rule cases and game data live (``../shared`` beside the repository).

A plain module rather than ``conftest``: several test folders have a ``conftest.py``, so
``from conftest import ...`` would pick whichever one pytest imported first.
"""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED = REPO_ROOT.parent / "shared"
SHARED_DATA = SHARED / "data"
SHARED_CASES = SHARED / "cases"
