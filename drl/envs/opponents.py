"""The opponent played inside the single-agent env, built from an agent spec string.

``"random"`` never comes here: the env plays uniformly random replies inside its compiled
step. Every other spec (``"greedy"``, ``"alphabeta:depth=4"``, ...) is built by
:func:`drl.agents.make`, imported when first needed.
"""

from __future__ import annotations

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
    from drl.agents import make  # the registry loads every agent: only when one is asked

    return make(spec)
