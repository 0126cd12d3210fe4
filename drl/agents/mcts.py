"""``mcts:sims=N[,c=C,rollout_limit=L,egtb=B]``: UCT with random rollouts (compiled).

The search itself is :func:`drl.agents._mcts.uct_search`; its tree
(:class:`drl.agents._mcts.UctTree`) is allocated once per agent and reused for every
move. With ``egtb`` (the default) the endgame database of the board's variant, where one
is on disk (``drl-egtb build``; none is built here), solves the tree's nodes whose exact
result it gives.
"""

from __future__ import annotations

import math

import numpy as np

from drl.agents import _mcts
from drl.agents._board import kernel_inputs, require_moves, search_history
from drl.agents.base import Agent
from drl.egtb._search import GameDatabases
from drl.rules import Board, Move

__all__ = ["MCTSAgent"]


class MCTSAgent(Agent):
    """Monte Carlo tree search with UCB1 selection and uniformly random playouts.

    Args:
        sims: simulations per move (>= 1).
        c: UCB1 exploration constant (>= 0); values are in [0, 1] (1 = win).
        rollout_limit: plies of a playout before it is scored as a draw (>= 1).
        seed: seed of playouts, expansion order and tie-breaks.
        egtb: probe the endgame database of the board's variant where one is on disk:
            below the root, a node whose exact result it gives (counters included) is
            solved, valued by that result without playouts.

    Attributes (after each move): ``last_sims``, ``last_nodes`` (tree size),
    ``last_visits`` (visits of the chosen child).

    Raises:
        ValueError: a parameter out of range.
    """

    def __init__(
        self,
        sims: int = 400,
        c: float = 1.4,
        rollout_limit: int = 200,
        seed: int | None = None,
        egtb: bool = True,
    ) -> None:
        if sims < 1:
            raise ValueError(f"sims must be >= 1, got {sims}")
        if not 0 <= c < math.inf:  # also refuses nan
            raise ValueError(f"c must be a finite number >= 0, got {c}")
        if rollout_limit < 1:
            raise ValueError(f"rollout_limit must be >= 1, got {rollout_limit}")
        self.sims, self.c, self.rollout_limit = int(sims), float(c), int(rollout_limit)
        self.name = f"mcts:sims={sims}"
        self._tree, work = _mcts.allocate(self.sims)
        self._args = (tuple(self._tree), tuple(work))  # as uct_search takes them fastest
        self._rng = np.random.default_rng(seed)
        self._databases = GameDatabases(egtb)
        self.last_sims = self.last_nodes = self.last_visits = 0

    def reset(self, seed: int | None = None) -> None:
        """Reseed the search (its rollouts) and the tie-breaking."""
        self._rng = np.random.default_rng(seed)

    def select_move(self, board: Board) -> Move:
        """A most visited move of :meth:`search`, ties broken at random."""
        legal = require_moves(board)
        if len(legal) == 1:
            return legal[0]
        counts = self.search(board)
        best = np.flatnonzero(counts == counts.max())
        return legal[int(self._rng.choice(best))]

    def search(self, board: Board, sims: int | None = None) -> np.ndarray:
        """Run the simulations and return the visit count of each legal move.

        Returns:
            int64 [len(board.legal_moves)], in ``board.legal_moves`` (kernel) order.
        """
        sims = self.sims if sims is None else min(int(sims), self.sims)
        state, params = kernel_inputs(board)
        path = search_history(board, _mcts.MAX_DEPTH + self.rollout_limit + 2)
        seed = int(self._rng.integers(2**31 - 1))
        nodes = _mcts.uct_search(
            *self._args,
            state,
            params,
            path,
            sims,
            self.c,
            self.rollout_limit,
            seed,
            self._databases.kernel_for(board.variant),
        )
        tree = self._tree
        counts = np.zeros(len(board.legal_moves), dtype=np.int64)
        ch = int(tree.first_child[0])
        while ch >= 0:
            counts[tree.move_index[ch]] = tree.visits[ch]
            ch = int(tree.next_sibling[ch])
        self.last_sims, self.last_nodes, self.last_visits = sims, int(nodes), int(counts.max())
        return counts
