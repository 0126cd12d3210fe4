"""Bad colours, squares and states given to the encoder's Python entry points (and to
the kernels that take a viewer or squares) raise clear errors instead of reading outside
the kernels' tables."""

from __future__ import annotations

import numpy as np
import pytest

from drl.encode import N_CHANNELS, actions_to_move, encode_planes_as, move_to_actions, step_index
from drl.encode.mask import MAX_STEPS
from drl.game import StepState
from drl.rules import Board, Color, IllegalMoveError, Move, core


@pytest.mark.parametrize("bad", [2, -1, 7, 10**6, "red", 0.5])
def test_observation_refuses_a_viewer_that_is_not_a_colour(bad):
    with pytest.raises(ValueError, match="colour"):
        StepState.from_board(Board("english")).observation(viewer=bad)


def test_observation_accepts_every_spelling_of_a_colour():
    state = StepState.from_board(Board("english"))
    white = state.observation(viewer=1)
    for same in (Color.WHITE, np.int64(1), "white"):
        assert np.array_equal(state.observation(viewer=same), white)
    assert not np.array_equal(state.observation(viewer=0), white)


@pytest.mark.parametrize("bad", [2, -1, 10**6])
def test_encode_planes_as_kernel_refuses_a_bad_viewer(bad):
    board = Board("english")
    out = np.zeros((N_CHANNELS, 8, 8), dtype=np.float32)
    with pytest.raises(ValueError, match="viewer"):
        encode_planes_as(
            board.state, board.variant.params, np.zeros(MAX_STEPS, np.int64), 0, 0, bad, out
        )


def test_step_state_checks_its_state_and_counters():
    board = Board("english")
    params = board.variant.params
    bad_turn = board.state.copy()
    bad_turn[core.ST_TURN] = 7
    with pytest.raises(ValueError, match="ST_TURN"):
        StepState(bad_turn, params)
    with pytest.raises(ValueError, match="shapes"):
        StepState(board.state[:5], params)
    with pytest.raises(ValueError, match="repetitions"):
        StepState.from_board(board, repetitions=-5)


@pytest.mark.parametrize("path", [(0, 32), (45, 40)])
def test_move_to_actions_refuses_squares_off_the_params_board(path):
    # A 10x10 move read against 8x8 rules: the squares are off that board.
    move = Move(path=path, board_size=10)
    with pytest.raises(IllegalMoveError, match="off the board"):
        move_to_actions(move, 0, Board("english").variant.params)


def test_move_to_actions_refuses_a_bad_turn_and_keeps_working_on_good_input():
    board = Board("english")
    move = board.legal_moves[0]
    with pytest.raises(ValueError, match="colour"):
        move_to_actions(move, 3, board.variant.params)
    actions = move_to_actions(move, board.turn, board.variant.params)
    assert actions_to_move(actions, board) == move


@pytest.mark.parametrize("a, b", [(0, 10**9), (-(10**9), 3), (-1, 4), (31, 32), (49, 50)])
def test_step_index_kernel_gives_minus_one_for_squares_off_the_board(a, b):
    params = Board("english" if max(a, b) < 40 else "international").variant.params
    assert step_index(a, b, 0, params) == -1
    assert step_index(b, a, 1, params) == -1


@pytest.mark.parametrize(
    "index, value, why",
    [
        (core.ST_BM, 1 << 40, "off the board"),  # square 41 of an 8x8 board
        (core.ST_WK, -1, "off the board"),
        (core.ST_WM, 1, "shares squares"),  # square 1 already holds a black man
        (core.ST_NOPROG, -3, "counter"),
    ],
)
def test_raw_states_with_squares_off_the_board_are_refused(index, value, why):
    from drl.rules import perft

    board = Board("english")
    state = board.state.copy()
    state[index] = value if index != core.ST_WM else state[index] | value
    with pytest.raises(ValueError, match=why):
        StepState(state, board.variant.params)
    with pytest.raises(ValueError, match=why):
        perft(state, 2, "english")
    with pytest.raises(ValueError, match=why):
        core.check_state(state, board.variant.params)


@pytest.mark.parametrize("bad", [595.7, 3.0, "3", True, None])
def test_step_actions_must_be_integers(bad):
    board = Board("english")
    state = StepState.from_board(board)
    with pytest.raises(ValueError, match="integer step index"):
        state.push(bad)
    with pytest.raises(ValueError, match="integer step index"):
        state.squares(bad)
    with pytest.raises(ValueError, match="integer step index"):
        actions_to_move([bad], board)
    with pytest.raises(ValueError, match="integer step index"):
        StepState.from_board(board, prefix=(bad,))
    from drl.encode import decode_action

    with pytest.raises(ValueError, match="integer step index"):
        decode_action(bad, 0, 8)


def test_decode_and_encode_action_check_the_colour():
    from drl.encode import Step, decode_action, encode_action

    with pytest.raises(ValueError, match="colour"):
        decode_action(100, 7, 8)
    with pytest.raises(ValueError, match="colour"):
        encode_action(Step(21, 0, 1), -1, 8)
    step = decode_action(np.int64(100), Color.WHITE, 8)
    assert encode_action(step, "white", 8) == 100
