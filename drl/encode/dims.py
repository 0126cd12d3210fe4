"""The sizes a network of one board size reads and writes, in one place."""

from __future__ import annotations

from dataclasses import dataclass

from drl.encode.actions import num_actions
from drl.encode.planes import N_CHANNELS

__all__ = ["Encoding", "encoding"]


@dataclass(frozen=True)
class Encoding:
    """A board size's encoding: the network's input planes and output logits.

    ``channels`` observation planes of ``board_size`` x ``board_size`` in, ``actions``
    step logits out.
    """

    channels: int
    board_size: int
    actions: int

    def as_dict(self) -> dict[str, int]:
        """``{"board_size", "channels", "actions"}``, as a checkpoint records it."""
        return {"board_size": self.board_size, "channels": self.channels, "actions": self.actions}

    def net_fields(self) -> dict[str, int]:
        """The input and output fields of a network config.

        ``in_channels``, ``board_size`` and ``num_actions``.
        """
        return {
            "in_channels": self.channels,
            "board_size": self.board_size,
            "num_actions": self.actions,
        }


def encoding(board_size: int) -> Encoding:
    """The :class:`Encoding` of a board size.

    >>> encoding(8)
    Encoding(channels=22, board_size=8, actions=896)

    Raises:
        ValueError: if the board size is not 8 or 10.
    """
    return Encoding(N_CHANNELS, board_size, num_actions(board_size))
