"""The rules of draughts and its variants: positions, legal moves, outcomes, FEN and PDN.

>>> from drl.rules import Board
>>> board = Board("russian")
>>> board.turn
<Color.WHITE: 1>
>>> board.push("cd4")
>>> str(board.move_stack[-1])
'c3-d4'
>>> board.outcome() is None
True

Everything here is usable without torch or gymnasium. The hot path (move generation,
perft) is compiled; see ``docs/internals.md`` for the array layouts.
"""

from drl._numba_cache import announce_compiles

announce_compiles()  # before any kernel is compiled: say which, and how long it took

from drl.rules.board import (  # noqa: E402
    AmbiguousMoveError,
    Board,
    Color,
    IllegalMoveError,
    Move,
    Outcome,
    Termination,
)
from drl.rules.fen import FENError  # noqa: E402
from drl.rules.pdn import Game, PDNError, read_games, replay, replay_file, write_game  # noqa: E402
from drl.rules.perft import divide, perft  # noqa: E402
from drl.rules.variant import Variant, VariantError  # noqa: E402

__all__ = [
    "AmbiguousMoveError",
    "Board",
    "Color",
    "FENError",
    "Game",
    "IllegalMoveError",
    "Move",
    "Outcome",
    "PDNError",
    "Termination",
    "Variant",
    "VariantError",
    "divide",
    "perft",
    "read_games",
    "replay",
    "replay_file",
    "write_game",
]
