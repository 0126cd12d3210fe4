"""Policy-value networks (torch), their registry and their batched inference adapter.

The configs (:class:`NetConfig`), the registry (:func:`build`, :func:`register_arch`,
:func:`load`), the protocol (:class:`PolicyValueModel`, :class:`NetOutput`) and the error
of a diverged network (:class:`TrainingDiverged`) import without torch; the networks,
the evaluators and the masking helpers load torch on first use (``drl.nn.PolicyValueNet``
etc.), so reading or checking a config stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

from drl.nn.config import NetConfig
from drl.nn.errors import CheckpointError, TrainingDiverged
from drl.nn.model import NetOutput, PolicyValueModel
from drl.nn.registry import (
    DEFAULT_ARCH,
    INPUT_FIELDS,
    arch_config_class,
    build,
    build_from,
    check_compatible,
    check_variant,
    describe,
    load,
    make_config,
    register_arch,
    registered_archs,
)

_LAZY = {
    "PolicyValueNet": "drl.nn.network",
    "NetworkEvaluator": "drl.nn.evaluator",
    "UniformEvaluator": "drl.nn.evaluator",
    "masked_log_softmax": "drl.nn.masking",
    "masked_softmax": "drl.nn.masking",
    "policy_entropy": "drl.nn.masking",
}

__all__ = [
    "CheckpointError",
    "DEFAULT_ARCH",
    "INPUT_FIELDS",
    "NetConfig",
    "NetOutput",
    "NetworkEvaluator",
    "PolicyValueModel",
    "PolicyValueNet",
    "TrainingDiverged",
    "UniformEvaluator",
    "arch_config_class",
    "build",
    "build_from",
    "check_compatible",
    "check_variant",
    "describe",
    "load",
    "make_config",
    "masked_log_softmax",
    "masked_softmax",
    "policy_entropy",
    "register_arch",
    "registered_archs",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'drl.nn' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
