"""Where the Hydra configs live, and the ``variant`` config group.

``drl-train`` and ``drl-eval`` share that group.

Both live below every layer (``drl._paths.config_dir`` and ``drl._configs.VariantCfg``),
so that ``drl.train`` reaches them without importing ``drl.cli``; this module re-exports
them for the entry points. It imports nothing else of drl (nor torch): ``drl-eval`` reads
its schema from here and starts without loading the training stack.
"""

from __future__ import annotations

from drl._configs import VariantCfg
from drl._paths import config_dir

__all__ = ["VariantCfg", "config_dir"]
