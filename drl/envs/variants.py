"""Variant building for the envs: a preset or variant string plus extra rule flags."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from drl.rules.variant import Variant, VariantError

Options = str | Mapping[str, Any] | None


def _format(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    if isinstance(value, (tuple, list)):
        return "/".join(str(v) for v in value)
    return str(value)


def options_text(options: Options) -> str:
    """Rule flags as ``flag=value,...`` text.

    Args:
        options: ``None``, a ``"flag=value,..."`` string, or a mapping of flag to value
            (booleans, integers, ``None``, strings, or a pair for ``objectives``).

    Raises:
        ValueError: for any other type.
    """
    if options is None:
        return ""
    if isinstance(options, str):
        return options.strip().strip(",")
    if isinstance(options, Mapping):
        return ",".join(f"{k}={_format(v)}" for k, v in options.items())
    raise ValueError(
        f"variant_options must be a dict or a 'flag=value,...' string, got {type(options).__name__}"
    )


def build_variant(variant: str | Variant, options: Options = None, extra: str = "") -> Variant:
    """The variant ``variant`` with ``options`` (and then ``extra``) flags applied.

    Args:
        variant: a :class:`~drl.rules.Variant` or a variant string (``"english"``,
            ``"give_and_take:max_capture=true"``).
        options: more flags (see :func:`options_text`).
        extra: flags set by the env itself (e.g. ``"taker=white"``).

    A flag of ``options`` that ``variant`` already sets (``gym.make`` ids fix their
    variant, e.g. ``give_and_take:board_size=10``) must agree with it.

    Raises:
        VariantError: an unknown flag or value, a flag given twice in ``options``, or an
            option that conflicts with a flag of ``variant`` (the message names both).
    """
    base = Variant.parse(variant)
    text = str(base)
    fixed = {}
    for item in filter(None, text.partition(":")[2].split(",")):
        key, _, value = item.partition("=")
        fixed[key] = value
    kept = []
    for item in filter(None, (p.strip() for p in options_text(options).split(","))):
        key, _, value = item.partition("=")
        key = key.strip().lower()
        if key in fixed:
            try:
                same = getattr(Variant.parse(f"{base.name}:{key}={value.strip()}"), key) == getattr(
                    base, key
                )
            except VariantError:
                same = False
            if not same:
                raise VariantError(
                    f"variant_options {key}={value.strip()} conflicts with the variant "
                    f"{text!r}, which sets {key}={fixed[key]} (a gym.make id fixes its "
                    f"variant: choose another id, or DraughtsEnv(variant=...))"
                )
            continue  # the same value: nothing to add
        kept.append(item)
    flags = ",".join(t for t in (",".join(kept), extra) if t)
    if flags:
        text += ("," if ":" in text else ":") + flags
    return Variant.parse(text)


def role_variants(variant: Variant, role: str | None) -> dict[int, Variant]:
    """The variant to play for each agent colour (0 black, 1 white).

    Args:
        variant: the rules.
        role: ``"taker"`` or ``"giver"``: the agent's role in Give and Take; the ``taker``
            flag then follows the agent's colour. ``None``: the same variant for both.

    Raises:
        ValueError: an unknown role, or a role for a variant without one Taker and one
            Giver.
    """
    if role is None:
        return {0: variant, 1: variant}
    if role not in ("taker", "giver"):
        raise ValueError(f"role must be 'taker', 'giver' or None, got {role!r}")
    if not variant.is_asymmetric:
        raise ValueError(
            f"role={role!r} needs a variant with one Taker and one Giver; "
            f"{variant} has objectives {'/'.join(variant.objectives)}"
        )
    return {0: variant.with_role("black", role), 1: variant.with_role("white", role)}
