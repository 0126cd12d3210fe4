"""Search settings: the one source of the search's defaults (configs derive from it)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ROOT_SELECTIONS", "SearchConfig"]

ROOT_SELECTIONS = ("puct", "gumbel")


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
    """

    num_simulations: int = 48
    root_selection: str = "gumbel"
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
        if self.num_simulations < 1:
            raise ValueError(f"num_simulations must be >= 1, got {self.num_simulations}")
        if self.root_selection not in ROOT_SELECTIONS:
            raise ValueError(
                f"root_selection must be one of {ROOT_SELECTIONS}, got {self.root_selection!r}"
            )
        if self.gumbel_max_considered < 1:
            raise ValueError("gumbel_max_considered must be >= 1")
        if not 0.0 <= self.dirichlet_epsilon <= 1.0:
            raise ValueError("dirichlet_epsilon must lie in [0, 1]")
        if self.dirichlet_alpha <= 0.0:
            raise ValueError("dirichlet_alpha must be > 0")
        if self.temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {self.temperature}")
