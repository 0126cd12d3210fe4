"""Batched MCTS (PUCT and Gumbel root) over step-level legal masks.

The search works on B games at once with trees in one preallocated structure
(:class:`~drl.search.tree.Tree`); the compiled kernels live in :mod:`drl.search.kernels`
and play the game through the game core (``drl.game``). The root selection (PUCT or
Gumbel, :mod:`drl.search.root`) is chosen by :class:`SearchConfig`. Its contract with
the network is :class:`Evaluator` -> :class:`Evaluation`; it returns a
:class:`SearchResult` whose ``action`` is the step to play.
"""

from drl.search.config import SearchConfig
from drl.search.gumbel import halving_schedule
from drl.search.mcts import BatchedMCTS, Roots
from drl.search.types import Evaluation, Evaluator, SearchResult

__all__ = [
    "BatchedMCTS",
    "Evaluation",
    "Evaluator",
    "Roots",
    "SearchConfig",
    "SearchResult",
    "halving_schedule",
]
