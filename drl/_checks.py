"""Range and choice checks of the settings dataclasses.

Each check raises one ``ValueError("name=value: must ...")``.

The configuration's dataclasses (``drl.search.SearchConfig``, ``drl.train.selfplay.
SelfPlayConfig``, ``drl.train.config.LoopCfg``, ...) call these in their
``__post_init__``; ``drl.train.config.train_settings`` reports the message under the config key
(``config search.c_puct=-1.0: must be >= 0``). Below every layer: imports nothing of drl.

The machine's limits on integers: a seed must fit the int64 that numpy's and torch's
generators take; a count or a size goes into int32 / int64 arrays and loops of the
compiled kernels (:data:`INT32_MAX`, :data:`INT64_MAX`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["INT32_MAX", "INT64_MAX", "check_choice", "check_range"]

INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1


def check_range(
    name: str,
    value: float,
    low: float | None = None,
    high: float | None = None,
    *,
    open_low: bool = False,
    open_high: bool = False,
    why: str = "",
) -> None:
    """Refuse ``value`` of setting ``name`` outside its range.

    A float must also be finite. The bounds are inclusive unless ``open_low`` /
    ``open_high`` says otherwise.

    Args:
        name: the field's name (the message starts ``name=value:``).
        value: an int or a float.
        low: the lowest value allowed (None: no lower bound).
        high: the highest value allowed (None: no upper bound).
        open_low: ``low`` itself is refused.
        open_high: ``high`` itself is refused.
        why: appended to the message of a value out of range (`` (0 = no clipping)``).

    Raises:
        ValueError: ``name=value: must be a finite number``, ``must be >= low`` (``>``
            for an open bound), ``must be <= high`` (``<``) or ``must lie in [low, high]``
            (``(`` / ``)`` for an open bound, then ``why``).
    """
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{name}={value!r}: must be a finite number")
    below = low is not None and (value <= low if open_low else value < low)
    above = high is not None and (value >= high if open_high else value > high)
    if not (below or above):
        return
    if high is None:
        rule = f"must be {'>' if open_low else '>='} {low}"
    elif low is None:
        rule = f"must be {'<' if open_high else '<='} {high}"
    else:
        rule = f"must lie in {'(' if open_low else '['}{low}, {high}{')' if open_high else ']'}"
    raise ValueError(f"{name}={value!r}: {rule}{why}")


def check_choice(name: str, value: object, choices: Sequence[str]) -> None:
    """Refuse ``value`` of setting ``name`` that is not one of ``choices``.

    Args:
        name: the field's name (the message starts ``name=value:``).
        value: the value given.
        choices: the allowed values (a ``Literal``'s ``typing.get_args``).

    Raises:
        ValueError: ``name=value: must be a, b or c``.
    """
    if value not in choices:
        listed = f"{', '.join(choices[:-1])} or {choices[-1]}" if len(choices) > 1 else choices[0]
        raise ValueError(f"{name}={value!r}: must be {listed}")
