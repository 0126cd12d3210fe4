"""Duplicate capture sequences (same start, end and captured set) are one move: listed
under a canonical path, and the full text of every such path names it.

Positions worked out by hand (8x8 squares: row 8 holds 1-4, row 1 29-32; 10x10: row 10
holds 1-5, row 1 46-50):

- English ``B:W18,19,26,27:BK22``: the black king on 22 takes the four men around it in
  a ring, 22x15x24x31x22 or the other way round, 22x31x24x15x22.
- International ``B:WK7,K8,K9,16,K19,27,K29,K37,K38,K42:BK12,K14``: the king on 14
  takes 23 and 37 landing on 41 either by 32 or by 28 (14x32x41 / 14x28x41).
"""

from __future__ import annotations

import pytest

from drl.encode import move_to_actions
from drl.game import StepState
from drl.rules import Board, IllegalMoveError

ENGLISH = "B:W18,19,26,27:BK22"
INTERNATIONAL = "B:WK7,K8,K9,16,K19,27,K29,K37,K38,K42:BK12,K14"


@pytest.mark.parametrize(
    "variant, fen, paths",
    [
        ("english", ENGLISH, ["22x15x24x31x22", "22x31x24x15x22"]),
        ("international", INTERNATIONAL, ["14x32x41", "14x28x41"]),
    ],
)
def test_every_path_of_a_duplicate_capture_names_the_same_move(variant, fen, paths):
    board = Board(variant, fen=fen)
    moves = [board.parse_move(p) for p in paths]
    assert moves[0] is moves[1]
    after = []
    for p in paths:
        b = Board(variant, fen=fen)
        b.push(p)
        after.append(b.fen())
    assert after[0] == after[1]


@pytest.mark.parametrize(
    "variant, fen, kept",
    [
        # Black sees the board turned: its first path has the larger squares.
        ("english", ENGLISH, "22x31x24x15x22"),
        ("international", INTERNATIONAL, "14x32x41"),
        # The same positions turned (square s -> NSQ + 1 - s) with the colours exchanged:
        # White keeps the path with the smaller squares, the turned image of Black's.
        ("english", "W:WK11:B6,7,14,15", "11x2x9x18x11"),
        ("international", "W:WK37,K39:BK9,K13,K14,K22,24,K32,35,K42,K43,K44", "37x19x10"),
    ],
)
def test_the_kept_path_is_the_first_in_the_movers_frame(variant, fen, kept):
    board = Board(variant, fen=fen)
    assert kept in [str(m) for m in board.legal_moves]


@pytest.mark.parametrize(
    "variant, fen, twin",
    [
        ("english", ENGLISH, "W:WK11:B6,7,14,15"),
        ("international", INTERNATIONAL, "W:WK37,K39:BK9,K13,K14,K22,24,K32,35,K42,K43,K44"),
    ],
)
def test_a_position_and_its_turned_twin_give_the_same_step_actions(variant, fen, twin):
    a, b = Board(variant, fen=fen), Board(variant, fen=twin)
    params = a.variant.params
    steps_a = sorted(move_to_actions(m, a.turn, params) for m in a.legal_moves)
    steps_b = sorted(move_to_actions(m, b.turn, params) for m in b.legal_moves)
    assert steps_a == steps_b
    assert (
        StepState.from_board(a).legal_actions() == StepState.from_board(b).legal_actions()
    ).all()


@pytest.mark.parametrize(
    "text",
    [
        "22x31x24x15",  # stops while it can still take
        "22x18x22",  # 18 is not adjacent behind anything: not a jump
        "22x31x24x15x22x31",  # jumps a piece twice
    ],
)
def test_paths_that_are_not_capture_sequences_stay_illegal(text):
    with pytest.raises(IllegalMoveError):
        Board("english", fen=ENGLISH).parse_move(text)


def test_a_man_jumps_only_forward_and_stops_on_the_crowning_row():
    # English: the black man on 18 jumps 22 and lands on 25 (forward, towards row 1).
    assert str(Board("english", fen="B:W22,26:B18").parse_move("18x25")) == "18x25"
    # The same jump is backwards for a white man on 18 (men capture forward only).
    with pytest.raises(IllegalMoveError):
        Board("english", fen="W:W18:B22,1").parse_move("18x25")
    # promotion_mid_capture=stop: 22x31 crowns and ends the move, though the new king
    # could take 27 next; the kernel and the path check agree.
    crown = Board("english", fen="B:W27,26:B22")
    assert [str(m) for m in crown.legal_moves] == ["22x31"]
    with pytest.raises(IllegalMoveError):
        crown.parse_move("22x31x22")


def _walk(variant: str, fen: str, text: str):
    from drl.rules.board import _walk_capture

    board = Board(variant, fen=fen)
    path = tuple(int(s) - 1 for s in text.split("x"))
    return _walk_capture(board.state, board.variant.params, path)


def test_the_path_walk_follows_the_capture_rules():
    # Forward jump of a black man; the same hop is backwards for White.
    assert _walk("english", "B:W22:B18", "18x25") == (frozenset({21}), False)
    assert _walk("english", "W:W18:B22", "18x25") is None
    # men_capture_backward lets the white man do it.
    assert _walk("english:men_capture_backward=true", "W:W18:B22", "18x25") is not None
    # A short king jumps only the adjacent piece; a flying king may land further on.
    assert _walk("english", "B:W18:BK14", "14x23") == (frozenset({17}), False)
    assert _walk("english", "B:W18:BK14", "14x27") is None
    assert _walk("russian", "B:W18:BK14", "14x27") == (frozenset({17}), False)
    # Not the mover's piece, two pieces in one hop, an occupied landing square.
    assert _walk("english", "W:W22:B18", "18x25") is None
    assert _walk("russian", "B:W18,23:BK9", "9x27") is None
    assert _walk("english", "B:W22,25:B18", "18x25") is None
    # Crowning mid-capture: stop ends the move, continue_as_king goes on as a king.
    assert _walk("english", "B:W27,26:B22", "22x31") == (frozenset({25}), True)
    assert _walk("english", "B:W27,26:B22", "22x31x24") is None
    assert _walk("english:promotion_mid_capture=continue_as_king", "B:W27,26:B22", "22x31x24") == (
        frozenset({25, 26}),
        True,
    )
