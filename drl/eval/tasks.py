"""Game tasks: what a worker needs to play one game, and the schedule of a match.

A match between agents A and B is a list of :class:`GameTask` s. Games come in pairs,
one opening per pair: from each opening A plays Black, then White. In Give and Take (one
Taker, one Giver; the Taker's colour is the variant flag ``taker``) both games of a pair
have the same Taker colour, so A and B each play each role from that opening once, and
the next pair's opening has the other Taker colour: over four games A is Black Taker,
White Giver, White Taker, Black Giver. Openings are distinct seeded random openings
(:mod:`drl.eval.openings`) or a list of FENs.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import overload

import numpy as np

from drl._configs import DEFAULT_MAX_PLIES
from drl.agents import Agent, spec_name
from drl.eval.limits import check_games, check_max_plies
from drl.eval.openings import _Openings, role_variant
from drl.eval.settings import DEFAULT_SETTINGS, MatchSettings
from drl.rules import Board, Variant

__all__ = ["GameTask", "TaskList", "match_tasks"]


@dataclass(frozen=True)
class GameTask:
    """Everything a worker needs to play one game.

    Attributes:
        index: game number (records come back sorted by it).
        black_spec, white_spec: agent spec strings (or :class:`Agent` objects when games
            run in this process).
        black_name, white_name: names for records and PDN (unique within a match).
        variant: full variant string (with its ``taker`` flag in Give and Take).
        opening: FEN of the start position, or None for the variant's start position.
        opening_index: which opening this is.
        seed: game seed; the agents are reset with seeds derived from it.
        max_plies: cap on plies from the opening (the game is then truncated).
        event: PDN ``Event`` tag.
        round: PDN ``Round`` tag.
        egtb: end the game at a position the variant's endgame database decides, where
            one is on disk (:mod:`drl.eval.endings`).
    """

    index: int
    black_spec: str | Agent
    white_spec: str | Agent
    black_name: str
    white_name: str
    variant: str
    opening: str | None
    opening_index: int
    seed: int
    max_plies: int = DEFAULT_MAX_PLIES
    event: str = "drl arena"
    round: str = ""
    egtb: bool = True

    def __post_init__(self) -> None:
        check_max_plies(self.max_plies)


class TaskList(Sequence[GameTask]):
    """A read-only list of game tasks, each built when it is read.

    A long match does not build its tasks, nor draw its openings, before its first game.

    It behaves as a sequence (``len``, indexing, slices as lists, iteration, ``==``
    against any sequence of tasks); ``+`` with another sequence of tasks gives a
    :class:`TaskList` of both, still unbuilt.
    """

    def __init__(self, parts: Sequence[Sequence[GameTask]] = ()) -> None:
        self._parts: list[Sequence[GameTask]] = []
        self._ends: list[int] = []
        for part in parts:
            for p in part._parts if isinstance(part, TaskList) else [part]:
                if len(p):
                    self._parts.append(p)
                    self._ends.append((self._ends[-1] if self._ends else 0) + len(p))

    @classmethod
    def lazy(cls, length: int, build: Callable[[int], GameTask]) -> TaskList:
        """Tasks ``build(0), ..., build(length - 1)``, built when read."""
        return cls([_Built(length, build)])

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    @overload
    def __getitem__(self, i: int) -> GameTask: ...
    @overload
    def __getitem__(self, i: slice) -> list[GameTask]: ...
    def __getitem__(self, i: int | slice) -> GameTask | list[GameTask]:
        n = len(self)
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(n))]
        k = int(i) + n if i < 0 else int(i)
        if not 0 <= k < n:
            raise IndexError(f"task {i} of {n}")
        p = bisect.bisect_right(self._ends, k)
        return self._parts[p][k - (self._ends[p - 1] if p else 0)]

    def __iter__(self) -> Iterator[GameTask]:
        for part in self._parts:
            yield from part

    def __add__(self, other: Sequence[GameTask]) -> TaskList:
        return TaskList([self, tuple(other) if isinstance(other, list) else other])

    def __radd__(self, other: Sequence[GameTask]) -> TaskList:
        return TaskList([tuple(other) if isinstance(other, list) else other, self])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str) or len(other) != len(self):
            return False
        return all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<TaskList of {len(self)} tasks>"


class _StartPositions(Sequence[None]):
    """``n`` openings that are all the start position (None)."""

    def __init__(self, n: int) -> None:
        self._n = n

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i):
        return None


class _Built(Sequence[GameTask]):
    def __init__(self, length: int, build: Callable[[int], GameTask]) -> None:
        self._length, self._build = length, build

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, i):
        if not 0 <= i < self._length:
            raise IndexError(i)
        return self._build(i)

    def __iter__(self) -> Iterator[GameTask]:
        return (self._build(i) for i in range(self._length))


def _unique_names(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a != b else (f"{a}#1", f"{b}#2")


def _opening_fens(
    v: Variant, games: int, openings: int | Sequence[str] | None, seed: int
) -> Sequence[str | None]:
    """The openings of a match's ``games`` games, one per two games (see :func:`match_tasks`).

    Raises:
        ValueError: too few distinct live openings, an empty list of FENs, or a bad FEN.
    """
    n_open = -(-games // 2)
    fens: Sequence[str | None]
    if openings is None or (isinstance(openings, int) and openings == 0):
        return _StartPositions(n_open)
    if isinstance(openings, int):
        try:
            fens = _Openings(v, n_open, openings, seed)
        except ValueError as err:
            raise ValueError(f"{games:,} games start from {n_open:,} openings: {err}") from None
        fens[0]  # noqa: B018 - fails now if no live opening of this length exists
        return fens
    fens = list(openings)
    if not fens:
        raise ValueError("openings: the list of FENs is empty")
    for f in fens:
        Board(v, fen=f)  # raises FENError early, naming the FEN
    return fens


def _cycle_variants(v: Variant, cycle: int) -> list[str]:
    """The game's variant string for each place in the colour/role cycle (str() is costly)."""
    out = []
    for c in range(cycle):
        a_black = c in (0, 3)
        if v.is_asymmetric:
            a_taker = c in (0, 2)
            taker = (
                ("black" if a_black else "white") if a_taker else ("white" if a_black else "black")
            )
            out.append(str(role_variant(v, taker)))
        else:
            out.append(str(v))
    return out


def match_tasks(
    agent_a: str | Agent,
    agent_b: str | Agent,
    variant: Variant | str,
    games: int,
    settings: MatchSettings = DEFAULT_SETTINGS,
    *,
    names: tuple[str, str] | None = None,
    first_index: int = 0,
) -> TaskList:
    """The tasks of an A-vs-B match.

    See the module doc for the colour/role schedule: games ``2k`` and ``2k + 1`` start from
    opening ``k`` with A and B's colours swapped (in Give and Take with the same Taker
    colour, Black's for even ``k``, White's for odd).

    Args:
        agent_a: player A's spec string (or agent, for in-process play).
        agent_b: player B's spec string (or agent).
        variant: the variant (Give and Take: its ``taker`` flag is set per game).
        games: number of games, in ``[1, MAX_GAMES]``; a multiple of 2 (4 in Give and
            Take) plays every colour/role combination equally often.
        settings: the settings the tasks take: ``openings`` (plies of the seeded
            random openings, distinct, one per two games; a list of FENs, used in turn,
            one per two games; or None / 0 for the start position), ``seed`` (openings
            and agent seeds), ``max_plies`` (per-game cap), ``event`` (the PDN
            ``Event`` tag, default ``drl arena``) and ``egtb`` (end games at positions
            the endgame database decides, :class:`GameTask`); the others are for
            :func:`~drl.eval.arena.play_tasks`. Their ranges are checked when they are
            made (:class:`~drl.eval.settings.MatchSettings`).
        names: display names of A and B (default: their specs, made unique).
        first_index: index of the first task.

    Returns:
        A :class:`TaskList`: each task is made when it is read, and the random openings
        are drawn in order as they are first needed (reading task ``k`` draws the
        openings up to its own; the first is drawn here, so that a variant without live
        openings of that length fails at once).

    Raises:
        ValueError: ``games`` outside ``[1, MAX_GAMES]``, bad variant, bad FEN in
            ``settings.openings``, or fewer distinct live openings of
            ``settings.openings`` plies than ``games / 2`` (counted up to
            :data:`OPENINGS_CHECKED` here, past it as they run out).
    """
    games = check_games(games)
    s = settings
    v = Variant.parse(variant)
    cycle = 4 if v.is_asymmetric else 2  # games until the colour/role schedule repeats
    fens = _opening_fens(v, games, s.openings, s.seed)
    if names is None:
        names = _unique_names(spec_name(agent_a), spec_name(agent_b))
    name_a, name_b = names
    game_seeds = np.random.SeedSequence(s.seed).generate_state(games, dtype=np.uint32)
    max_plies, event = s.max_plies, s.event_or("drl arena")
    cycle_variants = _cycle_variants(v, cycle)

    def build(g: int) -> GameTask:
        o, c = g // 2, g % cycle
        a_black = c in (0, 3)
        return GameTask(
            index=first_index + g,
            black_spec=agent_a if a_black else agent_b,
            white_spec=agent_b if a_black else agent_a,
            black_name=name_a if a_black else name_b,
            white_name=name_b if a_black else name_a,
            variant=cycle_variants[c],
            opening=fens[o % len(fens)],
            opening_index=o % len(fens),
            seed=int(game_seeds[g]),
            max_plies=max_plies,
            event=event,
            round=str(g + 1),
            egtb=s.egtb,
        )

    return TaskList.lazy(games, build)
