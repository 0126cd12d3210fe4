"""Batched MCTS (PUCT and Gumbel root) over step-level legal masks.

The search works on B games at once with trees in preallocated arrays; the compiled
kernels live in :mod:`drl.search.kernels`. Its contract with the network is
:class:`Evaluator` -> :class:`Evaluation`; it returns a :class:`SearchResult`.
"""

from drl.search.gumbel import halving_schedule
from drl.search.mcts import BatchedMCTS, Roots, SearchConfig
from drl.search.types import Evaluation, Evaluator, SearchResult

__all__ = ["BatchedMCTS", "Evaluation", "Evaluator", "Roots", "SearchConfig", "SearchResult",
           "halving_schedule"]
