"""``random`` and ``greedy``: the baseline players without search."""

from __future__ import annotations

import numpy as np

from drl.agents._board import require_moves
from drl.agents._evaluate import MAN, evaluate, keeps_pieces
from drl.agents.base import Agent
from drl.rules import Board, Move
from drl.rules.core import M_CAPTURED, MAX_MOVES, MOVE_WIDTH, generate_moves

__all__ = ["RandomAgent", "GreedyAgent"]


class RandomAgent(Agent):
    """Plays a uniformly random legal move.

    Args:
        seed: seed of the choices.
    """

    def __init__(self, seed: int | None = None) -> None:
        self.name = "random"
        self._rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed the choices."""
        self._rng = np.random.default_rng(seed)

    def select_move(self, board: Board) -> Move:
        """A uniformly random legal move."""
        legal = require_moves(board)
        return legal[int(self._rng.integers(len(legal)))]


class GreedyAgent(Agent):
    """One ply of look-ahead, aware of the mover's objective.

    Every legal move is played on a copy of the board and scored for the mover:

    - a move that ends the game scores by its result (win > draw > loss), so a win by
      rule is always taken and a loss by rule avoided when possible;
    - otherwise the static evaluation of :mod:`drl.agents._evaluate` after the move
      (a Taker likes the captures it makes, a Giver likes being blocked and, where
      losing every piece wins, losing pieces), plus the pieces the opponent is then
      forced to capture: a plus for a mover that wants to be rid of its pieces, a minus
      for one that needs them.

    Equal scores are broken at random.

    Args:
        seed: seed of the tie-breaks.
    """

    _WIN = 10**9

    def __init__(self, seed: int | None = None) -> None:
        self.name = "greedy"
        self._rng = np.random.default_rng(seed)
        self._moves = np.zeros((MAX_MOVES, MOVE_WIDTH), dtype=np.int64)

    def reset(self, seed: int | None = None) -> None:
        """Reseed the choice among equally scored moves."""
        self._rng = np.random.default_rng(seed)

    def score_moves(self, board: Board) -> np.ndarray:
        """The mover's score of each legal move (int64 [n], ``board.legal_moves`` order)."""
        legal = require_moves(board)
        me = board.turn
        params = np.array(board.variant.params)
        obj = 0 if board.objective(me) == "take" else 1
        sheds = keeps_pieces(params, obj) < 0
        work = board.copy()
        scores = np.zeros(len(legal), dtype=np.int64)
        for i, move in enumerate(legal):
            work.push_unchecked(move)
            outcome = work.outcome()
            if outcome is not None:
                v = outcome.value(me)
                scores[i] = v * self._WIN
            else:
                state = np.array(work.state)
                s = -int(evaluate(state, params))
                n = int(generate_moves(state, params, self._moves))
                if n and self._moves[0, M_CAPTURED]:
                    forced = min(bin(int(self._moves[k, M_CAPTURED])).count("1") for k in range(n))
                    s += (MAN if sheds else -MAN) * forced
                scores[i] = s
            work.pop()
        return scores

    def select_move(self, board: Board) -> Move:
        """A best-scored move (:meth:`score_moves`), ties broken at random."""
        legal = require_moves(board)
        scores = self.score_moves(board)
        best = np.flatnonzero(scores == scores.max())
        return legal[int(self._rng.choice(best))]
