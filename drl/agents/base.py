"""The agent interface: :class:`Agent`, a player that picks a legal move.

Agents are built from spec strings by the registry, :mod:`drl.agents.registry`
(:func:`~drl.agents.make`, :func:`~drl.agents.register_agent`). Its names can still be
imported from here.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from drl.rules import Board, Move, Variant

__all__ = ["Agent"]


class Agent(ABC):
    """A player: picks a legal move for the side to move.

    Attributes:
        name: the agent's canonical spec string (e.g. ``"alphabeta:depth=4"``).
    """

    name: str = "agent"
    batched: bool = False
    """True when :meth:`select_moves` over many games costs much less than
    :meth:`select_move` on each (a network called once per batch of leaves). The arena
    then plays all its games in flight in one process and shares this one agent between
    them, so a batched agent must keep no per-game state that changes its moves."""

    @abstractmethod
    def select_move(self, board: Board) -> Move:
        """A legal move of ``board.turn`` in ``board`` (the board is left unchanged).

        Raises:
            ValueError: the game is already over (no legal move).
        """

    def select_moves(self, boards: Sequence[Board]) -> list[Move]:
        """One legal move for each board, in order, as :meth:`select_move` would choose it.

        The boards are left unchanged. The default calls :meth:`select_move` on each in
        turn; batched agents override it.

        Raises:
            ValueError: a board's game is already over.
        """
        return [self.select_move(b) for b in boards]

    def reset(self, seed: int | None = None) -> None:  # noqa: B027 - no-op unless overridden
        """Forget per-game state (search tables, counters) and reseed tie-breaking."""

    def check_variant(self, variant: Variant | str) -> None:  # noqa: B027 - no-op unless overridden
        """Raise ``ValueError`` (naming what does not fit) if this agent cannot play ``variant``.

        For example a network built for another board size. The arena calls it for every
        agent before its games start; the default accepts every variant.
        """

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"
