"""Slow, obviously-correct Python versions of the encoder's step numbering and masks.

They work on (row, column) coordinates from ``drl.rules.geometry.square_to_rowcol`` and on
``Board.legal_moves`` paths, not on the compiled kernels, so tests can compare the two.
"""

from __future__ import annotations

from itertools import pairwise

from drl.rules.geometry import rowcol_to_square, square_to_rowcol


def ref_step_index(a: int, b: int, turn: int, n: int) -> int:
    """Index of the hop a -> b seen from the mover's chair (Black's view turned 180 deg)."""
    ra, ca = square_to_rowcol(a, n)
    rb, cb = square_to_rowcol(b, n)
    if turn == 0:
        ra, ca, rb, cb = n - 1 - ra, n - 1 - ca, n - 1 - rb, n - 1 - cb
    dr, dc = rb - ra, cb - ca
    assert abs(dr) == abs(dc) > 0
    direction = {(-1, -1): 0, (-1, 1): 1, (1, -1): 2, (1, 1): 3}[(dr // abs(dr), dc // abs(dc))]
    return rowcol_to_square(ra, ca, n) * 4 * (n - 1) + direction * (n - 1) + abs(dr) - 1


def ref_move_actions(move, turn: int, n: int) -> tuple[int, ...]:
    """Step indices of a move's path."""
    return tuple(ref_step_index(a, b, turn, n) for a, b in pairwise(move.path))


def ref_legal_steps(board, prefix: tuple[int, ...]) -> set[int]:
    """Next steps of the legal moves of ``board`` whose steps start with ``prefix``."""
    n = board.variant.board_size
    turn = int(board.turn)
    out = set()
    for move in board.legal_moves:
        steps = ref_move_actions(move, turn, n)
        if len(steps) > len(prefix) and steps[: len(prefix)] == tuple(prefix):
            out.add(steps[len(prefix)])
    return out


def swapped_fen(board) -> str:
    """FEN of the position turned 180 degrees with the colours exchanged (and the other
    side to move): the same position seen from the other chair."""
    n = board.variant.board_size
    nsq = n * n // 2
    s = board.state
    pieces = {k: [sq for sq in range(nsq) if int(s[k]) >> sq & 1] for k in range(4)}

    def part(men, kings):
        return ",".join([str(nsq - sq) for sq in men] + [f"K{nsq - sq}" for sq in kings])

    # Black's pieces become White's (turned), and the other way round.
    turn = "W" if int(board.turn) == 0 else "B"
    return f"{turn}:W{part(pieces[0], pieces[1])}:B{part(pieces[2], pieces[3])}"
