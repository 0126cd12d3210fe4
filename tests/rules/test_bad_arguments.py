"""Bad colours, squares and move rows given to the Python API raise clear errors.

The compiled kernels index their tables with colours and squares without checking them
(checks there would slow the search), so out-of-range values used to read or write
outside the arrays: a segfault, or a silently wrong answer. Every Python entry point that
hands such a value to a kernel checks it first.
"""

from __future__ import annotations

import numpy as np
import pytest

from drl.rules import Board, Color, IllegalMoveError, Move, core
from drl.rules.board import as_color

BAD_COLOURS = [2, -1, 7, 10**6, -(10**6), 2**70, 1.0, "red", None, True]


@pytest.mark.parametrize("variant", ["english", "give_and_take", "losing:promotion=remove"])
@pytest.mark.parametrize("bad", BAD_COLOURS)
def test_objective_and_role_reject_a_bad_colour(variant, bad):
    board = Board(variant)
    with pytest.raises(ValueError, match="colour"):
        board.objective(bad)
    with pytest.raises(ValueError, match="colour"):
        board.role(bad)


def test_good_colours_are_accepted_in_every_spelling():
    board = Board("give_and_take")  # Black takes, White gives
    for black in (Color.BLACK, 0, np.int64(0), np.int8(0), "black", "Black"):
        assert board.objective(black) == "take" and board.role(black) == "taker"
    for white in (Color.WHITE, 1, np.int64(1), "white"):
        assert board.objective(white) == "give" and board.role(white) == "giver"
    assert as_color(np.int32(1)) is Color.WHITE


@pytest.mark.parametrize("path", [(0, 10**9), (-(10**9), 3), (0, 32), (-1, 4), (31, 40)])
def test_a_move_with_a_square_off_the_board_is_refused(path):
    with pytest.raises(IllegalMoveError, match="off the 8x8 board"):
        Move(path=path)


def test_move_checks_its_captures_board_size_and_squares_type():
    with pytest.raises(IllegalMoveError, match="off the 10x10 board"):
        Move(path=(45, 25), captures=(50,), board_size=10)
    with pytest.raises(IllegalMoveError, match="board_size"):
        Move(path=(0, 4), board_size=12)
    with pytest.raises(IllegalMoveError, match="integers"):
        Move(path=(0, "4"))
    with pytest.raises(IllegalMoveError, match="landing square"):
        Move(path=(5,))
    # numpy integers are turned into plain ints; 10x10 squares need board_size=10.
    assert Move(path=(np.int64(45), np.int64(40)), board_size=10).path == (45, 40)


def test_push_of_a_hand_made_move_off_the_board_raises_illegal_move():
    board = Board("english")
    with pytest.raises(IllegalMoveError):
        board.push(Move(path=(60, 70)))
    with pytest.raises(IllegalMoveError, match="10x10"):
        board.push_unchecked(Board("international").legal_moves[0])
    assert board.ply == 0


@pytest.mark.parametrize("bad", [np.full(core.MOVE_WIDTH, 10**15), np.full(core.MOVE_WIDTH, -5)])
def test_apply_move_and_push_unchecked_refuse_rows_off_the_board(bad):
    board = Board("english")
    row = bad.astype(np.int64)
    with pytest.raises(ValueError, match="off the board"):
        core.apply_move(board.state, board.variant.params, row)
    before = board.fen()
    with pytest.raises(IllegalMoveError, match="off the board"):
        board.push_unchecked(Move(path=(0, 1), row=row))
    assert board.fen() == before and board.ply == 0


def test_apply_move_refuses_captured_bits_off_the_board_and_a_bad_turn():
    board = Board("english")
    params = board.variant.params
    row = board.legal_moves[0].row.copy()
    row[core.M_CAPTURED] = 1 << 40  # square 41 of an 8x8 board
    with pytest.raises(ValueError, match="off the board"):
        core.apply_move(board.state, params, row)
    state = board.state.copy()
    state[core.ST_TURN] = 5
    with pytest.raises(ValueError, match="ST_TURN"):
        core.apply_move(state, params, board.legal_moves[0].row)
    # A legal row still plays.
    assert core.apply_move(board.state, params, board.legal_moves[0].row)[core.ST_TURN] == 1


@pytest.mark.parametrize(
    "row, why",
    [
        (np.full(core.MOVE_WIDTH, 10**6), "steps"),
        (np.full(core.MOVE_WIDTH, 5), "captured"),
        (np.zeros(core.MOVE_WIDTH), "steps"),
        (np.zeros(7), "int64"),
    ],
)
def test_move_from_row_refuses_garbage(row, why):
    with pytest.raises(ValueError, match=why):
        Move.from_row(row.astype(np.int64), 8)


def test_move_from_row_refuses_squares_off_the_board():
    row = Board("english").legal_moves[0].row.copy()
    row[core.M_FROM] = 40
    with pytest.raises(ValueError, match="8x8"):
        Move.from_row(row, 8)
    assert Move.from_row(row, 10).start == 40  # a square of the 10x10 board


@pytest.mark.parametrize("bad", [None, 5, b"11-15"])
def test_parse_move_of_something_that_is_not_text_is_an_illegal_move(bad):
    with pytest.raises(IllegalMoveError, match="string"):
        Board("english").parse_move(bad)
