"""Which drl wrote a checkpoint: the package version and the code version.

The code version is the git commit of the source tree drl is imported from (``git
rev-parse HEAD`` in the package's folder), with ``+dirty`` when tracked files have
uncommitted changes; ``unknown`` when drl is not imported from a git checkout (an
installed wheel), git is not installed or does not answer within 5 s. Both are read
once per process.
"""

from __future__ import annotations

import functools
import subprocess
from pathlib import Path

__all__ = ["code_version", "drl_version"]

_PACKAGE = Path(__file__).resolve().parents[1]


def drl_version() -> str:
    """The version of the drl package (``drl.__version__``)."""
    import drl

    return str(drl.__version__)


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(_PACKAGE), *args],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """The git commit of drl's source tree (``+dirty`` with uncommitted changes), or ``unknown``.

    Only a checkout whose git tracks drl's own files counts, so an installed copy that
    happens to sit inside some other repository is ``unknown``.
    """
    commit = _git("rev-parse", "--verify", "HEAD")
    if not commit or _git("ls-files", "--error-unmatch", "__init__.py") is None:
        return "unknown"
    dirty = _git("status", "--porcelain", "--untracked-files=no", "--", ".")
    return commit + ("+dirty" if dirty else "")
