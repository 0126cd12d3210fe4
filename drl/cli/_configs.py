"""Where the Hydra configs live: the repository's ``configs/`` in a source checkout or an
editable install, ``<prefix>/share/drl/configs`` in a regular install (pyproject's
data-files put them there)."""

from __future__ import annotations

import sys
from pathlib import Path


def config_dir() -> str:
    """The absolute path of the ``configs`` folder.

    Raises:
        FileNotFoundError: when neither location holds the configs (a broken install).
    """
    candidates = (Path(__file__).resolve().parents[2] / "configs",
                  Path(sys.prefix) / "share" / "drl" / "configs")
    for path in candidates:
        if (path / "config.yaml").is_file():
            return str(path)
    raise FileNotFoundError("drl's Hydra configs were not found; looked in "
                            + ", ".join(str(p) for p in candidates))
