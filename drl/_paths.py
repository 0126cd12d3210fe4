"""Where the optional shared data folder lives: the one lookup of ``../shared``.

The rule documents, real game collections and published perft tables the project was
built from sit in a folder named ``shared`` beside the repository checkout. They are not
part of the package: a fresh clone or an installed wheel has no such folder, and every
user of it (tests on the game collections, benchmarks, experiments, notebooks) must cope
with its absence. Tests, benchmarks and scripts take the path from :func:`shared_dir`
and nowhere else.

The environment variable ``DRL_SHARED`` overrides the location (for a checkout placed
elsewhere, or set to a missing path to run as a fresh clone would).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["ENV_VAR", "repo_root", "shared_dir"]

ENV_VAR = "DRL_SHARED"


def repo_root() -> Path:
    """The folder holding the ``drl`` package (the repository root in a checkout)."""
    return Path(__file__).resolve().parents[1]


def shared_dir() -> Path:
    """The shared data folder: ``$DRL_SHARED`` if set (and not empty), else ``shared``
    beside the repository root. The path may not exist; callers check and skip."""
    env = os.environ.get(ENV_VAR, "").strip()
    if env:
        return Path(env).expanduser()
    return repo_root().parent / "shared"
