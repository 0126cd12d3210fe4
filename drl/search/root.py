"""Root selection behind one interface: PUCT or Gumbel.

PUCT is :mod:`drl.search.puct`, Gumbel :mod:`drl.search.gumbel`; the choice is
``SearchConfig.root_selection``.

A root selection has a compiled half, dispatched on ``SearchParams.root_selection``:

- :func:`init_root_edges`, once the root's edges exist: PUCT mixes Dirichlet noise into
  the priors, Gumbel draws the root scores;
- :func:`select_root_edge`, at every descent: the root edge to follow.

and a Python half, a :class:`RootSelection`: ``start`` sets its per-search state in the
tree before the root is expanded (noise weights, Gumbel scales, halving schedules) and
``finish`` turns the searched tree into the action to play and the policy target.
Interior nodes use PUCT under both.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
from numba import njit

from drl.search.config import SearchConfig
from drl.search.gumbel import GumbelRoot, draw_root_scores, gumbel_root_edge
from drl.search.puct import PuctRoot, add_dirichlet_noise, puct_edge
from drl.search.tree import GUMBEL, Tree

__all__ = ["RootSelection", "init_root_edges", "make_root_selection", "select_root_edge"]


class RootSelection(Protocol):
    """The Python half of a root selection."""

    code: int
    """``PUCT`` or ``GUMBEL``: selects the compiled half."""

    def start(
        self, tree: Tree, explore: np.ndarray, root_legal: np.ndarray, past_budget: bool = False
    ) -> None:
        """Set the per-search root state in ``tree`` (its ``budget`` already set).

        Args:
            tree: the trees about to be searched.
            explore: ``bool[B]``: add root noise (PUCT: Dirichlet; Gumbel: Gumbel samples).
            root_legal: ``int64[B]`` legal steps of each root.
            past_budget: the search may run past ``budget`` (up to the width of
                ``tree.schedule``), e.g. on a clock.
        """
        ...

    def finish(
        self, tree: Tree, visits: np.ndarray, explore: np.ndarray, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray]:
        """The action to play and the policy target of the first B' roots.

        From their root visits ``float32[B', A]``: the action ``int64[B']`` (-1 where not
        searched) and the policy target ``float32[B', A]`` (rows sum to 1, 0 off the legal
        steps).
        """
        ...


def make_root_selection(config: SearchConfig) -> RootSelection:
    """The root selection named by ``config.root_selection``."""
    if config.root_selection == "gumbel":
        return GumbelRoot(config)
    return PuctRoot(config)


@njit(cache=True)
def init_root_edges(tree, b, params):
    """Root-selection set-up of tree ``b``'s freshly created root edges."""
    if params.root_selection == GUMBEL:
        draw_root_scores(tree, b)
    else:
        add_dirichlet_noise(tree, b, params.dirichlet_alpha)


@njit(cache=True)
def select_root_edge(tree, b, sim, params):
    """The root edge of tree ``b`` to descend at simulation ``sim``.

    Gumbel's halving schedule (PUCT once no edge fits it), else PUCT.
    """
    if params.root_selection == GUMBEL:
        e = gumbel_root_edge(tree, b, sim, params.c_visit, params.c_scale)
        if e >= 0:
            return e
    return puct_edge(tree, b, 0, params.c_puct, params.fpu_reduction)
