"""One finished arena game as a plain record (JSON-friendly, no board objects)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

__all__ = ["GameRecord", "COLORS"]

COLORS = ("black", "white")


@dataclass(frozen=True)
class GameRecord:
    """The result of one game.

    Attributes:
        index: game number within its match (0-based).
        black, white: the names of the players of the dark and light pieces (agent spec
            strings, made unique within a match).
        variant: the full variant string the game was played under (Give and Take: with
            its ``taker`` flag).
        roles: ``(black role, white role)``, each ``"taker"``/``"giver"``, or ``None``
            outside Give and Take.
        opening: FEN of the position the game started from.
        opening_index: which opening of the match this was.
        moves: the moves in PDN text, in playing order.
        result: ``"1-0"`` (White won), ``"0-1"`` (Black won), ``"1/2-1/2"`` or ``"*"``
            (truncated), as in PDN.
        winner: ``"black"``, ``"white"`` or ``None``.
        termination: the rule that ended the game (``drl.rules.Termination`` name in lower
            case, e.g. ``"no_pieces"``), or ``"max_plies"`` for a truncated game.
        plies: plies played from the opening.
        seed: the seed the agents were reset with.
        pdn: PDN text of the game.
        seconds: wall time of the game.
    """

    index: int
    black: str
    white: str
    variant: str
    roles: tuple[str | None, str | None]
    opening: str
    opening_index: int
    moves: tuple[str, ...]
    result: str
    winner: str | None
    termination: str
    plies: int
    seed: int
    pdn: str = ""
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)

    @property
    def truncated(self) -> bool:
        """True if the game hit the ``max_plies`` cap (not a draw by rule)."""
        return self.termination == "max_plies"

    def color_of(self, player: str) -> str:
        """``"black"`` or ``"white"`` for a player of this game.

        Raises:
            ValueError: the player did not play this game.
        """
        if player == self.black:
            return "black"
        if player == self.white:
            return "white"
        raise ValueError(
            f"{player!r} did not play game {self.index} ({self.black} vs {self.white})"
        )

    def role_of(self, player: str) -> str | None:
        """``"taker"``/``"giver"`` of a player in Give and Take, else None."""
        return self.roles[COLORS.index(self.color_of(player))]

    def score_of(self, player: str) -> float:
        """Points of a player: 1 win, 1/2 draw or truncation, 0 loss."""
        color = self.color_of(player)
        if self.winner is None:
            return 0.5
        return 1.0 if self.winner == color else 0.0

    def opponent_of(self, player: str) -> str:
        """The other player of this game."""
        return self.white if self.color_of(player) == "black" else self.black

    def to_dict(self) -> dict:
        """JSON-friendly dict of every field."""
        d = asdict(self)
        d["roles"] = list(self.roles)
        d["moves"] = list(self.moves)
        return d
