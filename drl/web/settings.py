"""The settings of a new game on the browser board: variant, role, opponent, time limit.

Each value comes from the page's "new game" form and is checked here; a bad one is a
:class:`GameError` whose message the page shows as it is.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from drl.agents import parse_spec
from drl.rules import Variant, VariantError

__all__ = [
    "COLORS",
    "GRACE",
    "GameError",
    "GameSettings",
    "NotFound",
    "check_opponent",
    "game_variant",
    "opponent_spec",
    "starts_process",
]

GRACE = 5.0
"""Seconds an opponent may take beyond the per-move time limit before it is given up on."""

COLORS = ("black", "white")


class GameError(ValueError):
    """A request the game refuses; the message is shown on the page as it is."""


class NotFound(GameError):
    """A request for a game or a PDN file that is not open (HTTP 404)."""


@dataclass(frozen=True)
class GameSettings:
    """What the page's "new game" form chooses.

    Attributes:
        variant: a preset or a variant string with rule flags (``Variant.parse``).
        opponent: an agent spec (``random``, ``alphabeta:depth=4``, ``az:ckpt=PATH``...).
        color: the colour the player plays, ``black`` or ``white``.
        role: Give and Take: ``taker`` or ``giver`` (sets which colour takes); None keeps
            the variant's own roles.
        fen: start position (default: the variant's start position).
        move_time: seconds per opponent move (None: the agent's own settings, within
            ``drl.web.limits.MAX_MOVE_TIME``). Given to agents that have a ``time``
            parameter (:func:`opponent_spec`); for every agent, the move is given up on
            and its search stopped after ``move_time +`` :data:`GRACE` seconds.
    """

    variant: str = "english"
    opponent: str = "random"
    color: str = "black"
    role: str | None = None
    fen: str | None = None
    move_time: float | None = None

    @classmethod
    def from_json(cls, data: Any, defaults: GameSettings | None = None) -> GameSettings:
        """Settings from the page's JSON object.

        Args:
            data: the decoded JSON of the new-game request.
            defaults: the values of the keys it leaves out (None, or ``""`` for
                ``variant``, ``opponent`` and ``color``): the server's ``--variant``,
                ``--opponent``... (None: this class's defaults).

        Returns:
            The settings.

        Raises:
            GameError: not an object, a value of the wrong type, a colour or role that is
                not one of the choices, or a time limit outside ``(0, 3600]`` seconds.
        """
        if not isinstance(data, dict):
            raise GameError("the new-game request must be a JSON object")
        base = defaults or cls()
        data = {**{k: v for k, v in base.__dict__.items() if k not in data}, **data}
        text = {k: data.get(k) for k in ("variant", "opponent", "color", "role", "fen")}
        for key, value in text.items():
            if value is not None and not isinstance(value, str):
                raise GameError(f"{key} must be text, got {value!r}")
            if isinstance(value, str) and len(value) > 2000:
                raise GameError(f"{key} is longer than 2000 characters")
        color = (text["color"] or base.color).strip().lower()
        if color not in COLORS:
            raise GameError(f"color must be black or white, got {text['color']!r}")
        role = (text["role"] or "").strip().lower() or None
        if role not in (None, "taker", "giver"):
            raise GameError(f"role must be taker or giver, got {text['role']!r}")
        return cls(
            variant=(text["variant"] or base.variant).strip(),
            opponent=(text["opponent"] or base.opponent).strip(),
            color=color,
            role=role,
            fen=(text["fen"] or "").strip() or None,
            move_time=_move_time(data.get("move_time")),
        )


def _move_time(value: Any) -> float | None:
    """The per-move time limit of a request: None, or seconds in ``(0, 3600]``."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):  # JSON true is not a number of seconds
        raise GameError(f"move_time must be a number of seconds, got {value!r}")
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        raise GameError(f"move_time must be a number of seconds, got {value!r}") from None
    if not 0 < seconds <= 3600:
        raise GameError(f"move_time must be in (0, 3600] seconds, got {value!r}")
    return seconds


def game_variant(text: str, color: str, role: str | None) -> Variant:
    """The variant of a new game, with the player's role applied.

    Args:
        text: a preset or a variant string.
        color: the player's colour, ``black`` or ``white``.
        role: ``taker``, ``giver`` or None (the variant's own roles).

    Returns:
        The variant; in Give and Take the Taker is the player's colour when ``role`` is
        ``taker`` and the other colour when it is ``giver``.

    Raises:
        GameError: a bad variant string (the message lists the valid flags), or a role in
            a variant without it (e.g. ``taker`` when both sides are Givers).
    """
    try:
        variant = Variant.parse(text)
    except VariantError as err:
        raise GameError(f"variant {text!r}: {err}") from None
    if role is None:
        return variant
    if variant.is_asymmetric:
        return variant.with_role(color, role)
    roles = {variant.role(0), variant.role(1)}
    if roles == {None}:
        raise GameError(f"{variant} has no Taker and Giver: leave the role empty")
    if role not in roles:
        raise GameError(f"in {variant} both sides are {roles.pop()}s: choose that role")
    return variant


def opponent_spec(spec: str, move_time: float | None) -> str:
    """Give the per-move time limit to the opponent's spec where the agent takes one.

    Args:
        spec: the opponent's agent spec.
        move_time: seconds per opponent move, or None (no limit given).

    Returns:
        ``spec`` with ``time=move_time`` added when the agent has a ``time`` parameter and
        the spec sets no ``time`` (nor ``depth``, except for ``alphabeta``, whose
        ``depth`` then caps the deepening); else ``spec`` unchanged.

    Raises:
        GameError: a bad spec (the message lists the valid agents and parameters), or a
            ``move_time`` outside the agent's range for ``time`` (e.g. below
            ``alphabeta``'s minimum).
    """
    try:
        kind, values = parse_spec(spec)
    except ValueError as err:
        raise GameError(f"opponent {spec!r}: {err}") from None
    if move_time is None or "time" in values or ("depth" in values and kind != "alphabeta"):
        return spec
    try:
        parse_spec(f"{kind}:time=1")
    except ValueError:
        return spec  # the kind has no time parameter: only the wait is limited
    text = f"{move_time:.12g}"
    try:
        parse_spec(f"{kind}:time={text}")
    except ValueError as err:
        first = str(err).splitlines()[0]
        raise GameError(f"move_time {text} s does not suit {kind}: {first}") from None
    return f"{spec}{',' if ':' in spec else ':'}time={text}"


def starts_process(spec: str) -> bool:
    """Whether the agent of ``spec`` runs an external program (its kind takes ``cmd=``).

    Every registered kind is asked, plug-ins included: ``hub`` and ``dxp`` here.

    Args:
        spec: an agent spec.

    Returns:
        True when the spec's kind has a ``cmd`` parameter.

    Raises:
        GameError: a bad spec (the message lists the valid agents and parameters).
    """
    try:
        kind, _ = parse_spec(spec)
    except ValueError as err:
        raise GameError(f"opponent {spec!r}: {err}") from None
    try:
        parse_spec(f"{kind}:cmd=x")
    except ValueError:
        return False
    return True


def check_opponent(spec: str, allowed: Iterable[str]) -> None:
    """Refuse an opponent that would run a program the server was not started with.

    A page may name any agent, but one that starts an external process (``hub:``,
    ``dxp:``: :func:`starts_process`) only when the same spec (same kind and values) was
    given on ``drl-web``'s command line (``--opponent`` or ``--engine``); otherwise any
    page could make the server run any command.

    Args:
        spec: the opponent's agent spec, as the page sent it.
        allowed: the engine specs of the command line.

    Raises:
        GameError: a bad spec, or an engine spec not among ``allowed`` (the message says
            to start the server with ``--engine SPEC``).
    """
    if not starts_process(spec):
        return
    wanted = parse_spec(spec)
    for other in allowed:
        try:
            if parse_spec(other) == wanted:
                return
        except ValueError:
            continue
    raise GameError(
        f"opponent {spec!r} runs an external program, which this server only does for the "
        f"engines it was started with: start the server with --engine {spec!r}"
    )
