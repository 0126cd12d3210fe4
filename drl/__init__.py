"""drl: reinforcement learning for draughts, losing draughts and Give and Take.

The command lines have Python twins: ``drl.train(overrides, run_dir)`` trains as
``drl-train`` does (:mod:`drl.train.api`), ``drl.evaluate(agents, variant, games)`` plays
a round robin as ``drl-eval`` does (:mod:`drl.eval.api`), and ``drl.agents.make(spec)``
builds an agent. They are loaded on first use, so ``import drl`` stays light.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

from drl import _numba_cache

_numba_cache.check()  # before any compiled module of the package loads

# Loaded on first use (PEP 562), from the layers above this module (docs/architecture.md).
# ``drl.train`` is the training package, which can be called: ``drl.train([...])`` is
# drl.train.api.train.
_LAZY = {"evaluate": "drl.eval.api"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    if name in ("train", "agents", "rules", "envs", "eval", "analysis"):
        return importlib.import_module(f"drl.{name}")
    raise AttributeError(f"module 'drl' has no attribute {name!r}")
