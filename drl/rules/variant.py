"""Rule variants: a frozen dataclass of rule flags, named presets and a parser.

A variant is written ``name[:flag=value,...]``, e.g.
``"give_and_take:max_capture=true,board_size=10,taker=white"``. ``str(variant)`` gives the
canonical spelling (only the flags that differ from the preset) and parses back to an
equal variant. ``Variant.params`` is the ``int64`` parameter array read by the compiled
kernels (layout in ``docs/internals.md``).

Rule sources of the presets (``docs/rules.md``, "Sources"; the decisions are there too):

- ``english``: the English draughts rules and the F.I.D. capture rules:
  dark moves first, men move and capture forward only, short kings, free choice of
  capture, a man reaching the crowning row during a capture stops there; draw by
  threefold repetition or 40 moves each without capture or man move.
- ``russian``: the Russian rules: light moves first, men capture backwards, flying kings, no
  majority rule, a man crowned mid-capture continues as a king; 15-move kings-only rule
  and the federation's endgame draw rules (``endgame_rule=russian``: 15 / 5 / 30 / 60
  moves by material class, docs/rules.md).
- ``brazilian``: the Russian variant table (Brazilian = international rules on 8x8): maximum
  capture, a man passing the back row mid-capture is not crowned; 25-move rule.
- ``international``: the FMJD rules: 10x10, 20 men each, maximum
  capture, flying kings; draws by the 25-move rule (50 plies of king moves without
  capture) and the FMJD 16-move / 5-move king endgame rules.
- ``giveaway``: the Russian variant table (Russian movement rules) with both sides
  aiming to lose their pieces.
- ``losing``: the Losing Draughts rules: English movement, both sides give, a man is
  crowned only at the end of the move, a blocked player wins (house rule: loses).
- ``give_and_take``: the Draughts Give and Take rules: English movement, one Taker and
  one Giver (default: Black takes), promotion ends the move, threefold repetition only.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from drl.rules._quote import excerpt

__all__ = ["Variant", "VariantError", "PRESETS"]


class VariantError(ValueError):
    """A variant name, flag or flag value is not valid."""


# Parameter array layout (docs/internals.md).
P_SIZE_IDX = 0
P_BOARD_SIZE = 1
P_NSQ = 2
P_MEN_BACK = 3
P_FLYING = 4
P_MAX_CAPTURE = 5
P_PROMO_MID = 6
P_PROMOTION = 7
P_OBJ_BLACK = 8
P_OBJ_WHITE = 9
P_ASYMMETRIC = 10
P_BLOCKED_GIVER = 11
P_TAKER_BLOCKED = 12
P_ELIM_WINNER = 13
P_ROLE_SWAP = 14
P_REPETITION = 15
P_NO_PROGRESS = 16
P_FIRST = 17
P_ROWS = 18
P_ENDGAME_RULE = 19
PARAMS_SIZE = 24

COLORS = ("black", "white")
OBJECTIVES = ("take", "give")
PROMO_MID = ("stop", "continue_as_man", "continue_as_king")
PROMOTION = ("crown", "remove")
BLOCKED_GIVER = ("wins", "loses")
TAKER_BLOCKED = ("loses", "draw")
ELIM_WINNER = ("taker", "giver")
ENDGAME_RULES = ("none", "fmjd", "russian")
NOTATIONS = ("numeric", "algebraic")

# Flags in canonical order (the order of str(variant)); fields that others derive from
# come first (board_size before rows_of_men, taker before objectives).
# (not reformatted: a table, kept packed)
# fmt: off
_FLAG_ORDER = (
    "board_size", "rows_of_men", "first_player", "men_capture_backward", "flying_kings",
    "max_capture", "promotion_mid_capture", "promotion", "taker", "objectives",
    "blocked_giver", "taker_blocked", "elimination_winner", "role_swap_after_captures",
    "repetition_draw", "no_progress_plies", "endgame_rule", "notation",
)
# fmt: on

_CHOICES = {
    "first_player": COLORS,
    "promotion_mid_capture": PROMO_MID,
    "promotion": PROMOTION,
    "taker": COLORS,
    "blocked_giver": BLOCKED_GIVER,
    "taker_blocked": TAKER_BLOCKED,
    "elimination_winner": ELIM_WINNER,
    "endgame_rule": ENDGAME_RULES,
    "notation": NOTATIONS,
}
_BOOLS = ("men_capture_backward", "flying_kings", "max_capture")
_OPTIONAL_INTS = ("role_swap_after_captures", "no_progress_plies", "repetition_draw")
#: Largest value of a counting flag: the kernels keep counters in int64 and compare them
#: with these; a billion plies or captures is "never" in any game.
MAX_COUNT = 10**9


@dataclass(frozen=True)
class Variant:
    """The rules of one draughts variant.

    Build one with :meth:`preset` or :meth:`parse`; the constructor validates every flag.

    Attributes:
        name: the preset this variant starts from.
        board_size: 8 or 10.
        rows_of_men: rows of men per side in the start position (3 on 8x8, 4 on 10x10).
        first_player: ``"black"`` (dark pieces) or ``"white"``: who moves first.
        men_capture_backward: men may capture backwards (they always move forwards).
        flying_kings: kings move and capture any distance along a diagonal.
        max_capture: a capture must take the largest number of pieces (pieces counted,
            no king/man preference).
        promotion_mid_capture: a man reaching the crowning row during a capture
            ``stop``s there, ``continue_as_man`` (crowned only if the move ends there) or
            ``continue_as_king`` (crowned at once, goes on capturing as a king).
        promotion: ``crown`` the man, or ``remove`` it (the no-kings variation).
        objectives: ``(black, white)``, each ``"take"`` or ``"give"``.
        taker: Give and Take: which colour is the Taker.
        blocked_giver: a Giver that is to move, still has pieces and cannot move ``wins``
            or ``loses``.
        taker_blocked: a Taker that cannot move ``loses`` or the game is a ``draw``.
        elimination_winner: who wins when the Giver's last piece is captured.
        role_swap_after_captures: swap the two objectives each time another N pieces have
            been captured; ``None`` for never.
        repetition_draw: the number of occurrences of a position that draws; ``None`` off.
        no_progress_plies: plies without capture or man move that draw; ``None`` off.
            (The three counts are at most :data:`MAX_COUNT`.)
        endgame_rule: ``"fmjd"`` for the FMJD 16-move / 5-move king endgame rules,
            ``"russian"`` for the Russian federation's endgame rules (three or more kings
            against a lone king: 15 moves; three pieces against a lone king on the main
            road, or two against a lone king: 5 moves; kings on both sides with 4-5 / 6-7
            pieces on the board: 30 / 60 moves), ``"none"`` off. Counted in plies from
            the position where the material class is reached (docs/rules.md).
        notation: ``"numeric"`` (``11-15``) or ``"algebraic"`` (``c3-d4``) move text.
    """

    name: str = "english"
    board_size: int = 8
    rows_of_men: int = 3
    first_player: str = "black"
    men_capture_backward: bool = False
    flying_kings: bool = False
    max_capture: bool = False
    promotion_mid_capture: str = "stop"
    promotion: str = "crown"
    objectives: tuple[str, str] = ("take", "take")
    taker: str = "black"
    blocked_giver: str = "wins"
    taker_blocked: str = "loses"
    elimination_winner: str = "taker"
    role_swap_after_captures: int | None = None
    repetition_draw: int | None = 3
    no_progress_plies: int | None = 80
    endgame_rule: str = "none"
    notation: str = "numeric"

    def __post_init__(self) -> None:
        if self.name not in PRESETS:
            raise VariantError(f"unknown variant {excerpt(self.name)}; valid: {', '.join(PRESETS)}")
        if self.board_size not in (8, 10):
            raise VariantError(f"board_size must be 8 or 10, got {excerpt(self.board_size)}")
        max_rows = self.board_size // 2 - 1
        if not isinstance(self.rows_of_men, int) or not 1 <= self.rows_of_men <= max_rows:
            raise VariantError(
                f"rows_of_men must be 1..{max_rows} on {self.board_size}x{self.board_size}, "
                f"got {excerpt(self.rows_of_men)}"
            )
        for flag, choices in _CHOICES.items():
            if getattr(self, flag) not in choices:
                raise VariantError(
                    f"{flag} must be one of {', '.join(choices)}; "
                    f"got {excerpt(getattr(self, flag))}"
                )
        for flag in _BOOLS:
            if not isinstance(getattr(self, flag), bool):
                raise VariantError(
                    f"{flag} must be true or false, got {excerpt(getattr(self, flag))}"
                )
        objectives = tuple(self.objectives)
        if len(objectives) != 2 or any(o not in OBJECTIVES for o in objectives):
            raise VariantError(
                "objectives must be two of take|give as black/white, "
                f"got {excerpt(self.objectives)}"
            )
        object.__setattr__(self, "objectives", objectives)
        if objectives[0] != objectives[1] and objectives[COLORS.index(self.taker)] != "take":
            raise VariantError(
                f"objectives {'/'.join(objectives)} make {self.taker} the "
                f"Giver, but taker={self.taker}"
            )
        for flag in _OPTIONAL_INTS:
            value = getattr(self, flag)
            low = 2 if flag == "repetition_draw" else 1
            if value is not None and (
                isinstance(value, bool)
                or not isinstance(value, int)
                or not low <= value <= MAX_COUNT
            ):
                raise VariantError(
                    f"{flag} must be none or an integer in {low}..{MAX_COUNT}, got {excerpt(value)}"
                )

    # ------------------------------------------------------------------ construction

    @classmethod
    def preset(cls, name: str) -> Variant:
        """The named preset.

        The presets are ``english``, ``russian``, ``brazilian``, ``international``,
        ``giveaway``, ``losing`` and ``give_and_take``.

        Raises:
            VariantError: for an unknown name (the message lists the valid ones).
        """
        return cls.parse(name)

    @classmethod
    def parse(cls, text: str | Variant) -> Variant:
        """Parse ``name[:flag=value,...]``.

        Values: booleans ``true/false`` (also ``1/0``, ``yes/no``), integers, ``none``
        for an optional integer, objectives as ``black/white`` (``take/give``), the other
        flags by their names. Giving ``board_size`` without ``rows_of_men`` sets the
        standard rows for that size; in ``give_and_take`` the objectives follow ``taker``
        unless given (``objectives=give/give`` is the "both Givers" variation).

        Raises:
            VariantError: naming the unknown variant, flag or value and listing the
                valid ones.
        """
        if isinstance(text, Variant):
            return text
        if not isinstance(text, str):
            raise VariantError(f"a variant is written as a string, got {type(text).__name__}")
        name, _, rest = text.strip().partition(":")
        name = name.strip().lower()
        if name not in PRESETS:
            raise VariantError(f"unknown variant {excerpt(name)}; valid: {', '.join(PRESETS)}")
        overrides: dict[str, Any] = {}
        for item in filter(None, (part.strip() for part in rest.split(","))):
            flag, eq, value = item.partition("=")
            flag = flag.strip().lower()
            if not eq:
                raise VariantError(f"expected flag=value, got {excerpt(item)}")
            if flag not in _FLAG_ORDER:
                raise VariantError(
                    f"unknown flag {excerpt(flag)} in {excerpt(text)}; "
                    f"valid flags: {', '.join(_FLAG_ORDER)}"
                )
            if flag in overrides:
                raise VariantError(f"flag {excerpt(flag)} given twice in {excerpt(text)}")
            overrides[flag] = _parse_value(flag, value.strip())
        return _build(name, overrides)

    def __str__(self) -> str:
        overrides: dict[str, Any] = {}
        for flag in _FLAG_ORDER:
            if getattr(_build(self.name, overrides), flag) != getattr(self, flag):
                overrides[flag] = getattr(self, flag)
        if not overrides:
            return self.name
        return self.name + ":" + ",".join(f"{f}={_format_value(v)}" for f, v in overrides.items())

    def replace(self, **changes: Any) -> Variant:
        """A copy with some flags changed (validated like the constructor)."""
        return dataclasses.replace(self, **changes)

    def with_taker(self, color: str) -> Variant:
        """This variant with ``color`` (``"black"`` or ``"white"``) as the Taker.

        The objectives are flipped with it; a variant without one Taker and one Giver is
        returned unchanged.

        Raises:
            VariantError: ``color`` is not ``"black"`` or ``"white"``.
        """
        if color not in COLORS:
            raise VariantError(f"taker must be 'black' or 'white', got {color!r}")
        if not self.is_asymmetric:
            return self
        return self.replace(taker=color, objectives=_taker_objectives(color))

    def with_role(self, color: str, role: str) -> Variant:
        """This variant with the player of ``color`` in ``role``.

        Args:
            color: ``"black"`` or ``"white"``.
            role: ``"taker"`` (``color`` takes) or ``"giver"`` (the other colour takes).

        Returns:
            :meth:`with_taker` of the Taker's colour; a variant without one Taker and one
            Giver unchanged.

        Raises:
            VariantError: ``color`` or ``role`` is not one of those.
        """
        if color not in COLORS:
            raise VariantError(f"color must be 'black' or 'white', got {color!r}")
        if role not in ("taker", "giver"):
            raise VariantError(f"role must be 'taker' or 'giver', got {role!r}")
        return self.with_taker(color if role == "taker" else COLORS[1 - COLORS.index(color)])

    # ------------------------------------------------------------------ queries

    @property
    def is_asymmetric(self) -> bool:
        """True when one colour takes and the other gives (Give and Take)."""
        return self.objectives[0] != self.objectives[1]

    def role(self, color: int) -> str | None:
        """``"taker"`` or ``"giver"`` for a colour (0 black, 1 white) at the start of a game.

        ``None`` outside Give and Take (variants where both colours share one objective,
        except the "both Givers" variation of ``give_and_take``).
        """
        color = _color_index(color)
        if not (self.is_asymmetric or self.name == "give_and_take"):
            return None
        return "taker" if self.objectives[color] == "take" else "giver"

    @cached_property
    def params(self) -> np.ndarray:
        """The kernel parameter array, ``int64[PARAMS_SIZE]`` (read-only, cached)."""
        p = np.zeros(PARAMS_SIZE, dtype=np.int64)
        p[P_SIZE_IDX] = 0 if self.board_size == 8 else 1
        p[P_BOARD_SIZE] = self.board_size
        p[P_NSQ] = self.board_size * self.board_size // 2
        p[P_MEN_BACK] = int(self.men_capture_backward)
        p[P_FLYING] = int(self.flying_kings)
        p[P_MAX_CAPTURE] = int(self.max_capture)
        p[P_PROMO_MID] = PROMO_MID.index(self.promotion_mid_capture)
        p[P_PROMOTION] = PROMOTION.index(self.promotion)
        p[P_OBJ_BLACK] = OBJECTIVES.index(self.objectives[0])
        p[P_OBJ_WHITE] = OBJECTIVES.index(self.objectives[1])
        p[P_ASYMMETRIC] = int(self.is_asymmetric)
        p[P_BLOCKED_GIVER] = BLOCKED_GIVER.index(self.blocked_giver)
        p[P_TAKER_BLOCKED] = TAKER_BLOCKED.index(self.taker_blocked)
        p[P_ELIM_WINNER] = ELIM_WINNER.index(self.elimination_winner)
        p[P_ROLE_SWAP] = self.role_swap_after_captures or 0
        p[P_REPETITION] = self.repetition_draw or 0
        p[P_NO_PROGRESS] = self.no_progress_plies or 0
        p[P_FIRST] = COLORS.index(self.first_player)
        p[P_ROWS] = self.rows_of_men
        p[P_ENDGAME_RULE] = ENDGAME_RULES.index(self.endgame_rule)
        p.setflags(write=False)
        return p


def _color_index(color: Any) -> int:
    if isinstance(color, str) and color.lower() in COLORS:
        return COLORS.index(color.lower())
    if color in (0, 1):
        return int(color)
    raise VariantError(f"colour must be 0 (black) or 1 (white), got {excerpt(color)}")


def _parse_count(flag: str, digits: str) -> int:
    """ASCII digits -> int.

    A number with more digits than :data:`MAX_COUNT` is over every flag's range and is
    refused unconverted (``int()`` of thousands of digits is slow, and an error past 4300
    digits).
    """
    if len(digits.lstrip("0")) > len(str(MAX_COUNT)):
        if flag in _OPTIONAL_INTS:
            low = 2 if flag == "repetition_draw" else 1
            valid = f"none or an integer in {low}..{MAX_COUNT}"
        else:
            valid = "8 or 10" if flag == "board_size" else "a small integer"
        raise VariantError(f"{flag} must be {valid}, got {excerpt(digits)}")
    return int(digits)


def _parse_value(flag: str, text: str) -> Any:
    low = text.lower()
    if flag in ("board_size", "rows_of_men"):
        if not (low.isascii() and low.isdigit()):
            raise VariantError(f"{flag} must be an integer, got {excerpt(text)}")
        return _parse_count(flag, low)
    if flag in _BOOLS:
        if low in ("true", "1", "yes", "on"):
            return True
        if low in ("false", "0", "no", "off"):
            return False
        raise VariantError(f"{flag} must be true or false, got {excerpt(text)}")
    if flag in _OPTIONAL_INTS:
        if low in ("none", "off", "null"):
            return None
        if not (low.isascii() and low.isdigit()):
            raise VariantError(f"{flag} must be none or an integer, got {excerpt(text)}")
        return _parse_count(flag, low)
    if flag == "objectives":
        parts = tuple(p.strip() for p in low.split("/"))
        if len(parts) != 2 or any(p not in OBJECTIVES for p in parts):
            raise VariantError(
                f"objectives must be black/white with each one of take|give "
                f"(e.g. take/give), got {excerpt(text)}"
            )
        return parts
    choices = _CHOICES[flag]
    if low not in choices:
        raise VariantError(f"{flag} must be one of {', '.join(choices)}; got {excerpt(text)}")
    return low


def _format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    if isinstance(value, tuple):
        return "/".join(value)
    return str(value)


def _build(name: str, overrides: dict[str, Any]) -> Variant:
    values = dict(PRESETS[name])
    values.update(overrides)
    if "board_size" in overrides and "rows_of_men" not in overrides:
        values["rows_of_men"] = 3 if values["board_size"] == 8 else 4
    objectives = values["objectives"]
    if "objectives" in overrides:
        if "taker" not in overrides and objectives[0] != objectives[1]:
            values["taker"] = COLORS[objectives.index("take")]
    elif name == "give_and_take":
        values["objectives"] = _taker_objectives(values["taker"])
    return Variant(name=name, **values)


def _taker_objectives(taker: str) -> tuple[str, str]:
    """The objectives (black's, white's) when ``taker`` takes and the other colour gives."""
    return ("take", "give") if taker == "black" else ("give", "take")


_BASE = {f.name: f.default for f in dataclasses.fields(Variant) if f.name != "name"}

# Preset defaults: docs/rules.md and the README's variant table. Sources in the module docstring.
# (not reformatted: a table, one preset per entry)
# fmt: off
PRESETS: dict[str, dict[str, Any]] = {
    # English draughts rules / F.I.D. capture rules.
    "english": dict(_BASE),
    # Russian draughts; draw counters from the federation rules.
    "russian": {**_BASE, "first_player": "white", "men_capture_backward": True,
                "flying_kings": True, "promotion_mid_capture": "continue_as_king",
                "no_progress_plies": 30, "endgame_rule": "russian", "notation": "algebraic"},
    # Russian variant table; international rules on 8x8.
    "brazilian": {**_BASE, "first_player": "white", "men_capture_backward": True,
                  "flying_kings": True, "max_capture": True,
                  "promotion_mid_capture": "continue_as_man", "no_progress_plies": 50,
                  "notation": "algebraic"},
    # FMJD rules (25-move rule, 16-move / 5-move king endgames).
    "international": {**_BASE, "board_size": 10, "rows_of_men": 4, "first_player": "white",
                      "men_capture_backward": True, "flying_kings": True,
                      "max_capture": True, "promotion_mid_capture": "continue_as_man",
                      "no_progress_plies": 50, "endgame_rule": "fmjd"},
    # Russian variant table (Russian movement, both sides give).
    "giveaway": {**_BASE, "first_player": "white", "men_capture_backward": True,
                 "flying_kings": True, "promotion_mid_capture": "continue_as_king",
                 "objectives": ("give", "give"), "no_progress_plies": 30,
                 "notation": "algebraic"},
    # Losing Draughts: crowned only at the end of the move (rule 10).
    "losing": {**_BASE, "promotion_mid_capture": "continue_as_man",
               "objectives": ("give", "give"), "no_progress_plies": None},
    # Give and Take: rule 8 promotion ends the move; rule 12 repetition only.
    "give_and_take": {**_BASE, "objectives": ("take", "give"), "no_progress_plies": None},
}
# fmt: on
