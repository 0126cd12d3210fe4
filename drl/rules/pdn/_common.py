"""What the PDN reader, writer and replay share.

The error, the game record, the official GameType numbers and the result spellings.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from drl.rules._quote import excerpt

__all__ = ["GAME_TYPES", "Game", "PDNError", "normalize_result"]


class PDNError(ValueError):
    """Unreadable PDN text or an illegal recorded move.

    The message names file, game, line or move number, and the reason.
    """


#: Official PDN GameType numbers of the variants this package plays (PDN 3.0 standard).
GAME_TYPES: dict[int, str] = {20: "international", 21: "english", 25: "russian", 26: "brazilian"}

_RESULTS = {
    "2-0": "1-0",
    "1-0": "1-0",
    "1:0": "1-0",
    "2:0": "1-0",
    "0-2": "0-1",
    "0-1": "0-1",
    "0:1": "0-1",
    "0:2": "0-1",
    "1-1": "1/2-1/2",
    "1/2-1/2": "1/2-1/2",
    "1/2:1/2": "1/2-1/2",
    "1:1": "1/2-1/2",
    "0-0": "0-0",
    "0:0": "0-0",
    "*": "*",
}


def normalize_result(text: str) -> str:
    """Map any PDN result spelling to ``"1-0"``, ``"0-1"``, ``"1/2-1/2"``, ``"0-0"`` or ``"*"``.

    Only the spelling changes (``2-0`` -> ``1-0``, ``0:1`` -> ``0-1``, ``1-1`` ->
    ``1/2-1/2``); whose score comes first depends on the variant, see
    :func:`result_for_white`.

    Raises:
        PDNError: not a result.
    """
    try:
        return _RESULTS[text.strip()]
    except KeyError:
        raise PDNError(f"{excerpt(text)} is not a PDN result") from None


@dataclass
class Game:
    """One game read from PDN.

    Attributes:
        tags: tag pairs in file order (``FEN``, ``GameType``, ``Result``... when present).
        moves: move texts in playing order, without numbers, strength marks, comments or
            variations (e.g. ``["32-28", "19-23", "28x19"]``).
        result: the game termination marker that ends the movetext, as written (e.g.
            ``"2-0"``, ``"0:1"``, ``"*"``); None when the movetext ends without one (a
            file cut off, a game that the next tag line starts, a syntax error). The
            ``Result`` tag is not a substitute: it is in ``tags`` either way.
        index: 1-based number of the game in its source.
        source: file path or ``"<text>"``, for error messages.
        line: line of the source where the game starts.
        move_lines: for each move, the source line it is on.
        move_numbers: for each move, the PDN move number written before it (None if none).
        error: with ``read_games(..., strict=False)``, the syntax error that cut the game
            short (the reader went on at the next tag line); None for a clean game.
    """

    tags: dict[str, str] = field(default_factory=dict)
    moves: list[str] = field(default_factory=list)
    result: str | None = None
    index: int = 0
    source: str = "<text>"
    line: int = 1
    move_lines: list[int] = field(default_factory=list)
    move_numbers: list[int | None] = field(default_factory=list)
    error: str | None = None

    @property
    def complete(self) -> bool:
        """True when the game was read to its termination marker without a syntax error.

        False for a game cut off (a truncated file: the moves may be only the start of
        the game, whatever its ``Result`` tag says) and for a game with an ``error``;
        :func:`replay_file` reports such a game as incomplete or failed, never as ok.
        """
        return self.result is not None and self.error is None

    @property
    def fen(self) -> str | None:
        """The ``FEN`` tag, or None."""
        return self.tags.get("FEN")

    @property
    def name(self) -> str:
        """A short label for messages: ``source#index (White - Black)``."""
        players = (
            f" ({self.tags.get('White', '?')} - {self.tags.get('Black', '?')})"
            if "White" in self.tags or "Black" in self.tags
            else ""
        )
        return f"{self.source}#{self.index}{players}"
