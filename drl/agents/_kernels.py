"""The level-indexed move generator the searches call on their hot path.

``drl.rules.core.generate_moves`` (the documented kernel) allocates its scratch space
on every call; the searches here keep one scratch array (``CTX_SIZE`` int64) and one
move buffer per ply instead, and call the rules engine's level-indexed generator
directly: ``generate(states, ply, params, moves, ctx)`` writes the legal moves of
``states[ply]`` into ``moves[ply]`` (same rows and order as ``generate_moves``; path
entries past ``M_PATH + nsteps`` are left as they were) and returns their number;
``generate_into`` takes separate state and move-buffer indices.
This module is the one place that depends on that internal entry point.
"""

from __future__ import annotations

from numba import njit

from drl.rules._movegen import CTX_SIZE, generate_at

__all__ = ["CTX_SIZE", "generate", "generate_into"]


@njit(cache=True, inline="always")
def generate(states, ply, params, moves, ctx):
    """Legal moves of ``states[ply]`` into ``moves[ply]``; returns how many."""
    return generate_at(states, ply, params, moves, ply, ctx)


@njit(cache=True, inline="always")
def generate_into(states, i, params, moves, level, ctx):
    """Legal moves of ``states[i]`` into ``moves[level]``; returns how many."""
    return generate_at(states, i, params, moves, level, ctx)
