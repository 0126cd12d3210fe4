"""Sequential-halving schedule for Gumbel root selection (Danihelka et al., ICLR 2022).

With m actions considered at the root and n simulations, the simulations are split into
about ``log2(m)`` phases. In each phase every action still considered gets the same
number of extra visits, then the better half (by ``g + log p + sigma(Q)``) stays. The
search follows the schedule by visiting, at simulation i, the best action whose visit
count equals ``schedule[i]``.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

__all__ = ["halving_schedule"]


@lru_cache(maxsize=1024)
def _schedule(num_considered: int, num_simulations: int) -> tuple[int, ...]:
    if num_considered <= 1:
        return tuple(range(num_simulations))
    phases = math.ceil(math.log2(num_considered))
    visits = [0] * num_considered
    out: list[int] = []
    width = num_considered
    while len(out) < num_simulations:
        extra = max(1, num_simulations // (phases * width))
        for _ in range(extra):
            out.extend(visits[:width])
            for i in range(width):
                visits[i] += 1
        width = max(2, width // 2)
    return tuple(out[:num_simulations])


def halving_schedule(num_considered: int, num_simulations: int) -> np.ndarray:
    """Visit count that the action chosen at each simulation must have beforehand.

    Args:
        num_considered: m >= 1, actions sampled for consideration at the root.
        num_simulations: n >= 0.

    Returns:
        ``int64[n]``.

    Raises:
        ValueError: if m < 1 or n < 0.
    """
    if num_considered < 1 or num_simulations < 0:
        raise ValueError(f"need num_considered >= 1 and num_simulations >= 0, got "
                         f"{num_considered}, {num_simulations}")
    return np.asarray(_schedule(int(num_considered), int(num_simulations)), dtype=np.int64)
