"""Openings: distinct seeded random openings of ``k`` plies, live under both Taker colours.

One per two games of a match, so two nearly deterministic players do not replay the same
few games; a variant with fewer distinct openings of that length than the match needs is
an error.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from drl.eval.limits import check_openings
from drl.rules import Board, Variant

__all__ = [
    "OPENINGS_CHECKED",
    "check_distinct_openings",
    "make_openings",
    "role_variant",
]


def role_variant(variant: Variant | str, taker: str) -> Variant:
    """The variant with ``taker`` as the Taker's colour (Give and Take; else unchanged).

    Raises:
        ValueError: ``taker`` is not ``"black"`` or ``"white"``.
    """
    return Variant.parse(variant).with_taker(taker)


OPENINGS_CHECKED = 1_000
"""Most distinct openings counted before a match's first game (:class:`_Openings`): a
request for more distinct openings than a variant has at that length fails at once up to
this many (a few tenths of a second); past it, only when the openings run out."""

_DRAW_ATTEMPTS = 200


def _distinct_openings(variant: Variant, plies: int, check: Sequence[Variant]) -> Iterator[str]:
    """Every distinct live position ``plies`` legal moves from the start.

    They come in depth-first order of the legal move lists (transpositions explored once).
    Live: the game goes on under every variant of ``check`` (both Taker colours in Give and
    Take).
    """
    board = Board(variant)
    explored: set[tuple[int, str]] = set()
    leaves: set[str] = set()

    def walk(left: int) -> Iterator[str]:
        fen = board.fen()
        if left == 0:
            if fen not in leaves:
                leaves.add(fen)
                if all(not Board(w, fen=fen).is_game_over() for w in check):
                    yield fen
            return
        if (left, fen) in explored:
            return
        explored.add((left, fen))
        legal = board.legal_moves
        if not legal or board.is_game_over():
            return
        for move in legal:
            board.push_unchecked(move)
            yield from walk(left - 1)
            board.pop()

    yield from walk(plies)


class _Openings(Sequence[str]):
    """Distinct seeded random openings, drawn in order as they are first asked for.

    Item ``i`` is ``make_openings(variant, count, plies, seed)[i]``, without drawing those
    after it.

    A random opening already drawn is drawn again; when random draws keep landing on
    drawn ones, the first position in depth-first order not drawn yet is taken (so the
    last few of a variant's openings are found too). The constructor counts up to
    ``min(count, OPENINGS_CHECKED)`` distinct live openings of that length and raises
    ``ValueError`` if the variant has fewer, naming how many it has.
    """

    def __init__(self, variant: Variant, count: int, plies: int, seed: int) -> None:
        v = variant
        self.variant, self._n, self.plies = v, count, plies
        self._check = (
            [role_variant(v, "black"), role_variant(v, "white")] if v.is_asymmetric else [v]
        )
        self._rng = np.random.default_rng(seed)
        self._fens: list[str] = []
        self._drawn: set[str] = set()
        self._all = _distinct_openings(v, plies, self._check)
        self._listed: list[str] = []  # self._all as far as it has been read
        self._list(min(count, OPENINGS_CHECKED))

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i):
        if not 0 <= i < self._n:
            raise IndexError(f"opening {i} of {self._n}")
        while len(self._fens) <= i:
            fen = self._draw()
            self._fens.append(fen)
            self._drawn.add(fen)
        return self._fens[i]

    def _list(self, n: int) -> None:
        """Read the distinct openings in order until ``n`` are listed (or raise)."""
        while len(self._listed) < n:
            fen = next(self._all, None)
            if fen is None:
                raise ValueError(
                    f"{self.variant} has only {len(self._listed):,} distinct live "
                    f"{self.plies}-ply openings, {self._n:,} asked for: use longer "
                    f"openings (more plies)"
                )
            self._listed.append(fen)

    def _draw(self) -> str:
        rng = self._rng
        for _attempt in range(_DRAW_ATTEMPTS):
            board = Board(self.variant)
            ok = True
            for _ply in range(self.plies):
                legal = board.legal_moves
                if not legal or board.is_game_over():
                    ok = False
                    break
                board.push_unchecked(legal[int(rng.integers(len(legal)))])
            fen = board.fen()
            if (
                ok
                and fen not in self._drawn
                and all(not Board(w, fen=fen).is_game_over() for w in self._check)
            ):
                return fen
        # the random draws keep repeating: the first opening in order not drawn yet
        for k in range(len(self._drawn) + 1):
            self._list(k + 1)
            if self._listed[k] not in self._drawn:
                return self._listed[k]
        raise AssertionError("unreachable: more openings drawn than listed")


def check_distinct_openings(variant: Variant | str, plies: int, games: int) -> None:
    """Raise ``ValueError`` unless ``variant`` has the openings a match of ``games`` games draws.

    It needs one distinct live ``plies``-ply opening per two games (counted up to
    :data:`OPENINGS_CHECKED`); none is drawn.
    """
    check_openings(plies)
    n_open = -(-games // 2)
    try:
        _Openings(Variant.parse(variant), n_open, plies, 0)
    except ValueError as err:
        raise ValueError(f"{games:,} games start from {n_open:,} openings: {err}") from None


def make_openings(variant: Variant | str, count: int, plies: int, seed: int = 0) -> list[str]:
    """Seeded random openings: ``count`` distinct FENs reached by ``plies`` random legal moves.

    Openings that end the game (under either Taker colour in Give and Take) or that were
    drawn already are drawn again (see :class:`_Openings`). Matches draw the same
    openings one by one as their games start (:func:`match_tasks`).

    Raises:
        ValueError: negative ``count``/``plies``, ``plies`` over
            :data:`MAX_OPENING_PLIES`, or fewer than ``count`` distinct live openings of
            ``plies`` plies in the variant (the message says how many there are).
    """
    if count < 0 or plies < 0:
        raise ValueError(f"count and plies must be >= 0, got {count}, {plies}")
    check_openings(plies)
    drawn = _Openings(Variant.parse(variant), count, plies, seed)
    return [drawn[i] for i in range(count)]
