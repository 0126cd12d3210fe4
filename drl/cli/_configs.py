"""Where the Hydra configs live, and the ``variant`` config group that ``drl-train`` and
``drl-eval`` share.

The configs are the repository's ``configs/`` in a source checkout or an editable
install, ``<prefix>/share/drl/configs`` in a regular install (pyproject's data-files put
them there). This module imports nothing else of drl (nor torch): ``drl-eval`` reads its
schema from here and starts without loading the training stack.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["VariantCfg", "config_dir"]


@dataclass
class VariantCfg:
    """Which game is played or learned (``configs/variant/*.yaml``).

    Attributes:
        name: short name (run folders, logs); the config file's name.
        spec: variant string, ``name[:flag=value,...]`` (see ``drl.rules.Variant.parse``).
        alternate_roles: training, Give and Take: alternate the Taker's colour game by
            game so the one network learns both roles (ignored for symmetric variants).
        max_plies: training: self-play games are truncated here (value target 0); the
            ``max_plies`` of ``drl.train.selfplay.SelfPlayConfig``.
    """

    name: str = "give_and_take"
    spec: str = "give_and_take"
    alternate_roles: bool = True
    max_plies: int = 200


def config_dir() -> str:
    """The absolute path of the ``configs`` folder.

    Raises:
        FileNotFoundError: when neither location holds the configs (a broken install).
    """
    candidates = (
        Path(__file__).resolve().parents[2] / "configs",
        Path(sys.prefix) / "share" / "drl" / "configs",
    )
    for path in candidates:
        if (path / "config.yaml").is_file():
            return str(path)
    raise FileNotFoundError(
        "drl's Hydra configs were not found; looked in " + ", ".join(str(p) for p in candidates)
    )
