"""Where the optional shared data folder and the Hydra configs live.

This is the one lookup of ``../shared``.

The rule documents, real game collections and published perft tables the project was
built from sit in a folder named ``shared`` beside the repository checkout. They are not
part of the package: a fresh clone or an installed wheel has no such folder, and every
user of it (tests on the game collections, benchmarks, experiments, notebooks) must cope
with its absence. Tests, benchmarks and scripts take the path from :func:`shared_dir`
and nowhere else.

The environment variable ``DRL_SHARED`` overrides the location (for a checkout placed
elsewhere, or set to a missing path to run as a fresh clone would).

The configs are the repository's ``configs/`` in a source checkout or an editable
install, ``<prefix>/share/drl/configs`` in a regular install (pyproject's data-files put
them there).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["ENV_VAR", "config_dir", "repo_root", "shared_dir"]

ENV_VAR = "DRL_SHARED"


def repo_root() -> Path:
    """The folder holding the ``drl`` package (the repository root in a checkout)."""
    return Path(__file__).resolve().parents[1]


def shared_dir() -> Path:
    """The shared data folder: ``$DRL_SHARED``, else ``shared`` beside the repository root.

    ``$DRL_SHARED`` counts when set and not empty. The path may not exist; callers check
    and skip.
    """
    env = os.environ.get(ENV_VAR, "").strip()
    if env:
        return Path(env).expanduser()
    return repo_root().parent / "shared"


def config_dir() -> str:
    """The absolute path of the ``configs`` folder.

    Raises:
        FileNotFoundError: when neither location holds the configs (a broken install).
    """
    candidates = (
        repo_root() / "configs",
        Path(sys.prefix) / "share" / "drl" / "configs",
    )
    for path in candidates:
        if (path / "config.yaml").is_file():
            return str(path)
    raise FileNotFoundError(
        "drl's Hydra configs were not found; looked in " + ", ".join(str(p) for p in candidates)
    )
