"""Search settings: the one source of the search's defaults (configs derive from it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from drl._checks import INT32_MAX, check_choice, check_range

__all__ = ["ROOT_SELECTIONS", "RootSelection", "SearchConfig"]

RootSelection = Literal["puct", "gumbel"]
ROOT_SELECTIONS: tuple[str, ...] = get_args(RootSelection)


@dataclass(frozen=True)
class SearchConfig:
    """Search settings.

    Attributes:
        num_simulations: simulations per root (the full budget).
        root_selection: ``"puct"`` (AlphaZero: PUCT everywhere, Dirichlet noise at the
            root when exploring, visit-count policy target) or ``"gumbel"`` (Gumbel
            top-m sampling and sequential halving at the root, PUCT below it, improved
            policy target; suited to small budgets).
        c_puct: exploration constant of PUCT (values are in [-1, 1]).
        fpu_reduction: unvisited children are valued at the parent's mean minus this.
        dirichlet_alpha: root noise concentration (PUCT, exploring only).
        dirichlet_epsilon: root noise weight (PUCT, exploring only).
        gumbel_max_considered: m, actions sampled at the root (Gumbel).
        gumbel_c_visit: ``c_visit`` of the sigma transform (Gumbel).
        gumbel_c_scale: ``c_scale`` of the sigma transform (Gumbel).
        temperature: PUCT, exploring only: the action played is sampled from
            ``visits ** (1 / temperature)`` while the root's ply is below
            ``temperature_plies``, then it is the most visited step; 0 = always the most
            visited. Gumbel samples its action through its Gumbel noise instead.
        temperature_plies: see ``temperature`` (plies of the game, ``ST_PLY``).

    Raises:
        ValueError: ``name=value: must ...`` for a value out of its range: the counts
            ``num_simulations``, ``gumbel_max_considered`` in [1, 2**31 - 1] and
            ``temperature_plies`` in [0, 2**31 - 1]; ``c_puct``, ``gumbel_c_scale``,
            ``temperature`` >= 0; ``dirichlet_alpha``, ``gumbel_c_visit`` > 0;
            ``dirichlet_epsilon`` in [0, 1]; every float finite; ``root_selection`` one of
            :data:`ROOT_SELECTIONS`.
    """

    num_simulations: int = 48
    root_selection: RootSelection = "gumbel"
    c_puct: float = 1.5
    fpu_reduction: float = 0.2
    dirichlet_alpha: float = 0.5
    dirichlet_epsilon: float = 0.25
    gumbel_max_considered: int = 16
    gumbel_c_visit: float = 50.0
    gumbel_c_scale: float = 0.1
    temperature: float = 1.0
    temperature_plies: int = 16

    def __post_init__(self) -> None:
        check_range("num_simulations", self.num_simulations, 1, INT32_MAX)
        check_choice("root_selection", self.root_selection, ROOT_SELECTIONS)
        check_range("c_puct", self.c_puct, 0)
        check_range("fpu_reduction", self.fpu_reduction)
        check_range("dirichlet_alpha", self.dirichlet_alpha, 0, open_low=True)
        check_range("dirichlet_epsilon", self.dirichlet_epsilon, 0, 1)
        check_range("gumbel_max_considered", self.gumbel_max_considered, 1, INT32_MAX)
        check_range("gumbel_c_visit", self.gumbel_c_visit, 0, open_low=True)
        check_range("gumbel_c_scale", self.gumbel_c_scale, 0)
        check_range("temperature", self.temperature, 0)
        check_range("temperature_plies", self.temperature_plies, 0, INT32_MAX)
