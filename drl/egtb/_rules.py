"""Which database a variant uses: its rules with everything that does not change a value dropped.

A database holds values without counters, so the variants that differ only in
``first_player``, ``rows_of_men``, ``repetition_draw``, ``no_progress_plies``,
``endgame_rule`` or ``notation`` share one. In Give and Take the two role assignments
share one too: the database is built with Black as the Taker, and a position of the
variant with White as the Taker is looked up turned half round with the colours
swapped (the same position seen from the other chair).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from drl.egtb._index import Layout
from drl.rules.variant import Variant

__all__ = ["EgtbError", "Rules", "rules_of", "FORMAT"]

#: Bumped when the file layout or the meaning of a value changes (old files are rebuilt).
FORMAT = 1


class EgtbError(ValueError):
    """An endgame database cannot be built or read as asked (the message says why)."""


@dataclass(frozen=True)
class Rules:
    """The rules a database is solved under.

    Attributes:
        variant: the variant asked for.
        canonical: the variant solved: counters and repetition off, Black first, the
            Taker Black in Give and Take.
        flip: True when the variant's Taker is White (positions are looked up turned).
    """

    variant: Variant
    canonical: Variant
    flip: bool

    @property
    def symmetric(self) -> bool:
        """Both colours share an objective: only Black-to-move positions are stored."""
        return self.canonical.objectives[0] == self.canonical.objectives[1]

    @cached_property
    def params(self) -> np.ndarray:
        """Writable copy of the canonical variant's kernel parameters."""
        return np.array(self.canonical.params, dtype=np.int64)

    @cached_property
    def key(self) -> str:
        """File stem: the preset name and a digest of the parameters that matter."""
        digest = hashlib.sha1(self.canonical.params.tobytes() + bytes([FORMAT])).hexdigest()
        return f"{self.canonical.name}-{digest[:12]}"

    def layout(self, pieces: int) -> Layout:
        """The index of the database of up to ``pieces`` pieces."""
        return Layout(self.canonical.board_size, pieces, self.symmetric)


def rules_of(variant: Variant | str) -> Rules:
    """The database rules of a variant.

    Raises:
        EgtbError: the variant swaps roles after captures (``role_swap_after_captures``),
            where a position's value also depends on the capture count, which the
            database does not hold; or the variant string is not valid.
    """
    try:
        v = Variant.parse(variant)
    except ValueError as err:
        raise EgtbError(str(err)) from None
    if v.role_swap_after_captures is not None:
        raise EgtbError(
            f"{v}: endgame databases cover variants without role_swap_after_captures "
            "(the roles would depend on the number of captures, which a position does "
            "not show)"
        )
    flip = v.is_asymmetric and v.taker == "white"
    canonical = v.with_taker("black") if flip else v
    canonical = canonical.replace(
        first_player="black",
        rows_of_men=3 if v.board_size == 8 else 4,
        repetition_draw=None,
        no_progress_plies=None,
        endgame_rule="none",
        notation="numeric",
    )
    return Rules(variant=v, canonical=canonical, flip=flip)
