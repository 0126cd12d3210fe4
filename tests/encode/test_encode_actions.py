"""Step action numbering: formula, frames, round trips, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from drl.encode import Step, decode_action, encode_action, num_actions, step_index, step_squares
from drl.rules import Board, Variant
from drl.rules.geometry import square_to_rowcol
from tests.encode.encode_reference import ref_step_index

SIZES = (8, 10)


def _params(n: int) -> np.ndarray:
    return Variant.parse("english" if n == 8 else "international").params


def test_action_space_sizes_follow_the_design_formula():
    # DESIGN section 3: NSQ * 4 * D with D = board_size - 1.
    assert num_actions(8) == 32 * 4 * 7 == 896
    assert num_actions(10) == 50 * 4 * 9 == 1800
    with pytest.raises(ValueError, match="8 or 10"):
        num_actions(12)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("turn", (0, 1))
def test_every_diagonal_hop_matches_the_reference_and_round_trips(n, turn):
    params = _params(n)
    nsq = n * n // 2
    seen = set()
    for a in range(nsq):
        ra, ca = square_to_rowcol(a, n)
        for b in range(nsq):
            rb, cb = square_to_rowcol(b, n)
            if a == b or abs(ra - rb) != abs(ca - cb):
                assert step_index(a, b, turn, params) == -1
                continue
            idx = int(step_index(a, b, turn, params))
            assert idx == ref_step_index(a, b, turn, n)
            assert 0 <= idx < num_actions(n)
            assert tuple(step_squares(idx, turn, params)) == (a, b)
            step = decode_action(idx, turn, n)
            assert encode_action(step, turn, n) == idx
            assert step.distance == abs(ra - rb)
            seen.add(idx)
    # Every on-board index is one hop; the others leave the board.
    for idx in set(range(num_actions(n))) - seen:
        assert tuple(step_squares(idx, turn, params)) == (-1, -1)
        with pytest.raises(ValueError, match="leaves the board"):
            decode_action(idx, turn, n)


@pytest.mark.parametrize("n", SIZES)
def test_black_frame_is_white_frame_turned_half_round(n):
    params = _params(n)
    nsq = n * n // 2
    for a in range(nsq):
        for b in range(nsq):
            w = int(step_index(nsq - 1 - a, nsq - 1 - b, 1, params))
            assert int(step_index(a, b, 0, params)) == w


def test_directions_are_absolute_in_decoded_steps():
    # White man on 22 (0-based 21) stepping to 17 is up-left, distance 1.
    assert decode_action(int(step_index(21, 16, 1, _params(8))), 1, 8) == Step(21, 0, 1)
    # The same hop for Black is stored turned, but decodes back to absolute terms.
    assert decode_action(int(step_index(21, 16, 0, _params(8))), 0, 8) == Step(21, 0, 1)


def test_bad_actions_are_rejected_with_clear_errors():
    with pytest.raises(ValueError, match="out of range"):
        decode_action(896, 0, 8)
    with pytest.raises(ValueError, match="out of range"):
        decode_action(-1, 0, 8)
    with pytest.raises(ValueError, match="leaves"):
        encode_action(Step(0, 0, 1), 1, 8)  # square 1 has nothing up-left
    with pytest.raises(ValueError, match="out of range"):
        encode_action(Step(40, 0, 1), 1, 8)


@pytest.mark.parametrize("variant", ["english", "international", "russian"])
def test_start_positions_give_both_colours_the_same_actions(variant):
    # The start position is symmetric under a half turn with colours exchanged, so the
    # mover-relative actions of the two sides must coincide.
    board = Board(variant)
    n = board.variant.board_size
    other = Board(variant, fen=_with_other_side_to_move(board.fen()))
    mine = sorted(ref_step_index(m.start, m.end, int(board.turn), n) for m in board.legal_moves)
    theirs = sorted(ref_step_index(m.start, m.end, int(other.turn), n) for m in other.legal_moves)
    assert mine == theirs and len(mine) > 0
    from drl.game import StepState

    assert np.array_equal(
        StepState.from_board(board).action_mask(), StepState.from_board(other).action_mask()
    )


def _with_other_side_to_move(fen: str) -> str:
    side, rest = fen.split(":", 1)
    return ("B" if side == "W" else "W") + ":" + rest
