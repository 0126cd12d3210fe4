"""The step game over B games at once: one compiled call per step of all games.

Self-play and the network agent keep their games in one :class:`GameStates` (positions
``int64[B, POS_SIZE]``, variant parameters ``int64[B, PARAMS_SIZE]``, histories
``int64[B, H]``) and call these kernels once per step instead of the single-game kernels
of :mod:`drl.game.kernels` once per game. Each kernel does for every game with
``active[i]`` what the single-game kernel of the same name does; the others are left as
they are. A search starts from a :class:`GameStates` too
(``drl.search.Roots.from_games``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from drl.game import kernels as G
from drl.rules.core import MAX_MOVES, MOVE_WIDTH
from drl.rules.variant import PARAMS_SIZE

if TYPE_CHECKING:
    from drl.rules.board import Board

__all__ = ["GameStates", "legal_counts", "observe_all", "step_all"]


def _check(name: str, a: object, shape: tuple[int | None, ...]) -> None:
    """Raise ValueError unless ``a`` is an int64 array of ``shape`` (None = any length)."""
    if not isinstance(a, np.ndarray) or a.dtype != np.int64:
        got = a.dtype if isinstance(a, np.ndarray) else type(a).__name__
        raise ValueError(f"{name} must be an int64 numpy array, got {got}")
    want = "[" + ", ".join("*" if n is None else str(n) for n in shape) + "]"
    if a.ndim != len(shape) or any(
        n is not None and n != m for n, m in zip(shape, a.shape, strict=True)
    ):
        raise ValueError(f"{name} must have shape {want}, got {list(a.shape)}")


@dataclass(frozen=True, eq=False)
class GameStates:
    """B games in the game core, one row each: what the batch kernels step.

    The arrays are held, not copied: the kernels below write into them in place.

    Attributes:
        pos: ``int64[B, POS_SIZE]`` positions (layout in :mod:`drl.game.kernels`).
        params: ``int64[B, PARAMS_SIZE]`` each game's variant parameters
            (``Variant.params``; games may differ, but not in board size).
        hist: ``int64[B, H]`` each game's position hashes by ply (``hist[i, p]`` = hash
            at ply ``p``, 0 = unknown); ``H`` must exceed the last ply a game reaches,
            since a completed move writes the entry of its new position.

    Raises:
        ValueError: an array that is not int64, or of the wrong shape (naming it).
    """

    pos: np.ndarray
    params: np.ndarray
    hist: np.ndarray

    def __post_init__(self) -> None:
        _check("pos", self.pos, (None, G.POS_SIZE))
        b = self.pos.shape[0]
        _check("params", self.params, (b, PARAMS_SIZE))
        _check("hist", self.hist, (b, None))
        if self.hist.shape[1] < 1:
            raise ValueError("hist must have at least one entry per game, got 0")

    def __len__(self) -> int:
        """B, the number of games."""
        return int(self.pos.shape[0])

    @classmethod
    def zeros(cls, games: int, history: int) -> GameStates:
        """``games`` zeroed rows with ``history`` history entries each.

        Fill each row with :func:`drl.game.kernels.start`.

        Raises:
            ValueError: ``games`` < 0 or ``history`` < 1.
        """
        if games < 0 or history < 1:
            raise ValueError(f"need games >= 0 and history >= 1, got {games} and {history}")
        return cls(
            np.zeros((games, G.POS_SIZE), np.int64),
            np.zeros((games, PARAMS_SIZE), np.int64),
            np.zeros((games, history), np.int64),
        )

    @classmethod
    def from_boards(cls, boards: Sequence[Board]) -> GameStates:
        """The boards' games at the start of their moves, their histories included.

        Each row's history has one entry more than the longest board history, room for
        the position of the move about to be played.

        Raises:
            ValueError: no boards, or a board's game is over (naming its FEN).
        """
        if not boards:
            raise ValueError("no boards")
        hists = [b.history() for b in boards]
        games = cls.zeros(len(boards), max(len(h) for h in hists) + 1)
        moves = G.move_buffer()
        for i, b in enumerate(boards):
            games.params[i] = b.variant.params
            games.hist[i, : len(hists[i])] = hists[i]
            state = np.asarray(b.state, np.int64)
            G.start(games.pos[i], state, games.params[i], moves, games.hist[i])
            if G.is_over(games.pos[i]):
                raise ValueError(f"no move to choose: the game is over in {b.fen()}")
        return games

    def legal_counts(self, active: np.ndarray, count_out: np.ndarray, single: np.ndarray) -> None:
        """:func:`legal_counts` of these games."""
        legal_counts(self.pos, self.params, active, count_out, single)

    def step(
        self,
        actions: np.ndarray,
        active: np.ndarray,
        played: np.ndarray,
        result: np.ndarray,
    ) -> None:
        """:func:`step_all` on these games (their ``pos`` and ``hist`` change in place)."""
        step_all(self.pos, self.params, self.hist, actions, active, played, result)

    def observe(self, active: np.ndarray, out: np.ndarray) -> None:
        """:func:`observe_all` of these games."""
        observe_all(self.pos, self.params, active, out)


@njit(cache=True)
def legal_counts(pos, params, active, count_out, single_out):
    """Write the number of legal steps of each game, and the step where there is only one.

    ``count_out[i]`` (``int64[B]``) receives game i's number of legal steps and
    ``single_out[i]`` its one legal step, -1 where there is not exactly one.
    """
    moves = np.empty((MAX_MOVES, MOVE_WIDTH), np.int64)
    steps = np.empty(MAX_MOVES, np.int64)
    for i in range(pos.shape[0]):
        single_out[i] = -1
        if not active[i]:
            continue
        G.generate(pos[i], params[i], moves)
        k = G.legal_step_list(pos[i], params[i], moves, steps)
        count_out[i] = k
        if k == 1:
            single_out[i] = steps[0]


@njit(cache=True)
def step_all(pos, params, hist, actions, active, played, result):
    """Play step ``actions[i]`` in every active game (:func:`drl.game.kernels.step`).

    Args:
        pos: ``int64[B, POS_SIZE]`` the games' positions.
        params: ``int64[B, PARAMS_SIZE]`` their variant parameters.
        hist: ``int64[B, H]``: ``hist[i]`` is game i's history by ply.
        actions: ``int64[B]`` step actions.
        active: ``bool[B]``.
        played: ``int64[B, MOVE_WIDTH]``, row i receives the move game i completed.
        result: ``int64[B]``, receives ``STEP_ILLEGAL`` (nothing changed),
            ``STEP_IN_PROGRESS`` or ``STEP_MOVE_DONE`` per game.
    """
    moves = np.empty((MAX_MOVES, MOVE_WIDTH), np.int64)
    for i in range(pos.shape[0]):
        if not active[i]:
            continue
        G.generate(pos[i], params[i], moves)
        result[i] = G.step(pos[i], params[i], moves, hist[i], actions[i], played[i])


@njit(cache=True)
def observe_all(pos, params, active, out):
    """Write the observation planes of every active game, from its player to move.

    ``out`` is ``float32[B, C, n, n]``; the rows of the other games are untouched.
    """
    for i in range(pos.shape[0]):
        if active[i]:
            G.observe(pos[i], params[i], -1, out[i])
