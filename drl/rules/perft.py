"""Perft: the number of leaf nodes of the legal-move tree, to check move generation.

A multi-jump counts as one move and capture sequences with the same start, end and set of
captured pieces count once (the ``drop_duplicates`` convention of the published tables,
copies of which are in ``tests/golden/perft``). Draw rules are ignored; finished
positions add 0 leaves.

>>> from drl.rules.perft import perft
>>> perft("english", 4)
1469
"""

from __future__ import annotations

from typing import Any

import numpy as np

from drl.rules import core
from drl.rules._quote import excerpt
from drl.rules.geometry import square_name
from drl.rules.variant import Variant

__all__ = ["MAX_DEPTH", "perft", "divide", "move_text"]

#: Deepest perft (plies). The move lists of every ply are allocated up front, 512 KiB
#: each; deeper trees cannot be counted in any time (see ``core.MAX_PERFT_DEPTH``).
MAX_DEPTH = core.MAX_PERFT_DEPTH


def _resolve(position: Any, variant: Variant | str | None) -> tuple[np.ndarray, Variant]:
    """(state, variant) from a Board, a variant (start position) or a state array."""
    if hasattr(position, "state") and hasattr(position, "variant"):
        # A writable copy: read-only arrays would compile separate kernel versions.
        return np.array(position.state, dtype=np.int64), Variant.parse(position.variant)
    if isinstance(position, (str, Variant)):
        v = Variant.parse(position)
        return core.initial_state(v.params), v
    if variant is None:
        raise TypeError("a state array needs its variant: perft(state, depth, variant)")
    state = np.array(position, dtype=np.int64)
    v = Variant.parse(variant)
    core.check_state(state, v.params)  # the kernels index tables with its squares
    return state, v


def _check_depth(depth: int) -> int:
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 0:
        raise ValueError(f"depth must be an integer >= 0, got {excerpt(depth)}")
    if depth > MAX_DEPTH:
        per_ply = core.MAX_MOVES * core.MOVE_WIDTH * 8
        raise ValueError(
            f"depth {excerpt(int(depth))} is over the limit {MAX_DEPTH} plies (perft keeps a "
            f"{per_ply // 1024} KiB move list per ply; no tree that still branches at "
            f"{MAX_DEPTH} plies can be counted)"
        )
    return int(depth)


def perft(position: Any, depth: int, variant: Variant | str | None = None) -> int:
    """Leaf count of the legal-move tree ``depth`` plies deep.

    Args:
        position: a ``Board`` (anything with ``.state`` and ``.variant``), a variant or
            variant string (its start position), or a state ``int64[STATE_SIZE]``.
        depth: plies, 0..:data:`MAX_DEPTH` (depth 0 gives 1).
        variant: the variant of a bare state array.

    Returns:
        The number of leaves (the last ply is counted in bulk, not played).

    Raises:
        ValueError: on a depth below 0 or over :data:`MAX_DEPTH` (the message gives the
            limit), or a malformed state.
        TypeError: a state array without its variant.
    """
    depth = _check_depth(depth)
    state, v = _resolve(position, variant)
    return int(core.perft(state, v.params, depth))


def move_text(row: np.ndarray, variant: Variant) -> str:
    """PDN text of a kernel move row with every landing square.

    For example ``15x24x31``, ``c3:e5:g3``; quiet moves ``11-15`` / ``c3-d4``.
    """
    squares = [int(row[core.M_FROM])] + [
        int(row[core.M_PATH + i]) for i in range(int(row[core.M_NSTEPS]))
    ]
    if row[core.M_CAPTURED]:
        sep = ":" if variant.notation == "algebraic" else "x"
    else:
        sep = "-"
    return sep.join(square_name(s, variant.board_size, variant.notation) for s in squares)


def divide(position: Any, depth: int, variant: Variant | str | None = None) -> dict[str, int]:
    """Perft split by first move: ``{move text: leaves below it}``.

    The values sum to ``perft(position, depth)``. Arguments as for :func:`perft`;
    ``depth`` must be >= 1.

    Raises:
        ValueError: on a depth below 1 or over :data:`MAX_DEPTH`, or a malformed state.
    """
    depth = _check_depth(depth)
    if depth < 1:
        raise ValueError("divide needs depth >= 1")
    state, v = _resolve(position, variant)
    params = v.params
    moves = core.move_buffer()
    k = int(core.generate_moves(state, params, moves))
    result: dict[str, int] = {}
    for i in range(k):
        child = core.apply_move(state, params, moves[i])
        result[move_text(moves[i], v)] = int(core.perft(child, params, depth - 1))
    return result
