"""The opponent played inside the single-agent env, built from an agent spec string.

``"random"`` never comes here: the env plays uniformly random replies inside its compiled
step. Every other spec (``"greedy"``, ``"alphabeta:depth=4"``, ...) is built by
:func:`drl.agents.make`, imported when first needed.
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol

from drl.rules.board import Board, Move


class Opponent(Protocol):
    """What the env needs from an opponent."""

    def select_move(self, board: Board) -> Move:  # pragma: no cover - protocol
        """The move to play on ``board`` (not pushed)."""

    def reset(self, seed: int | None = None) -> None:  # pragma: no cover - protocol
        """Start a new game; ``seed`` makes its choices reproducible."""


def make_opponent(spec: Any) -> Opponent:
    """The opponent for an agent spec string (or an object with ``select_move``).

    Args:
        spec: a spec that :func:`drl.agents.make` accepts, or an agent object (returned
            as is).

    Raises:
        ValueError: the spec is not a string or agent, or ``drl.agents`` cannot build it.
    """
    if hasattr(spec, "select_move"):
        return spec
    if not isinstance(spec, str):
        raise ValueError(f"opponent must be an agent spec string or an agent, got {spec!r}")
    try:
        make = importlib.import_module("drl.agents").make
    except (ImportError, AttributeError):
        raise ValueError(
            f"opponent {spec!r} needs drl.agents.make, which is not available; "
            f"only 'random' works without it"
        ) from None
    return make(spec)
