"""Board, Move and Outcome (drl.rules.board), including the Give and Take outcome rules.

Square names used below (8x8, docs/internals.md): row 8 holds 1-4 (b8 d8 f8 h8), row 7
5-8 (a7 c7 e7 g7), row 6 9-12, row 5 13-16 (a5 c5 e5 g5), row 4 17-20 (b4 d4 f4 h4),
row 3 21-24 (a3 c3 e3 g3), row 2 25-28 (b2 d2 f2 h2), row 1 29-32 (a1 c1 e1 g1).
Black men move towards row 1, white men towards row 8.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drl.rules import (
    AmbiguousMoveError,
    Board,
    Color,
    IllegalMoveError,
    Move,
    Outcome,
    Termination,
    Variant,
    core,
)
from tests.shared_paths import GOLDEN_POSITIONS

# -- basics ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "variant, turn, n_moves",
    [
        ("english", Color.BLACK, 7),
        ("russian", Color.WHITE, 7),
        ("brazilian", Color.WHITE, 7),
        ("international", Color.WHITE, 9),
        ("giveaway", Color.WHITE, 7),
        ("losing", Color.BLACK, 7),
        ("give_and_take", Color.BLACK, 7),
    ],
)
def test_start_positions(variant, turn, n_moves):
    board = Board(variant)
    assert board.turn == turn
    assert len(board.legal_moves) == n_moves
    assert board.ply == 0 and board.move_stack == []
    assert board.outcome() is None and not board.is_game_over()


def test_push_pop_and_move_stack():
    board = Board()
    start = board.fen()
    board.push("11-15")
    board.push("23-19")
    assert board.ply == 2
    assert [str(m) for m in board.move_stack] == ["11-15", "23-19"]
    assert board.turn == Color.BLACK
    assert str(board.pop()) == "23-19"
    assert str(board.pop()) == "11-15"
    assert board.fen() == start
    with pytest.raises(IndexError):
        board.pop()


def test_illegal_push_leaves_the_board_unchanged():
    board = Board("english", fen="B:W18,21,23-32:B1-10,12,15")  # rule case 013: 15x22 forced
    before = (board.fen(), board.state.copy(), board.ply)
    for bad in ["11-16", "9-13", "15-19", "15x24", Move(path=(8, 12))]:
        with pytest.raises(IllegalMoveError) as info:
            board.push(bad)
        assert "15x22" in str(info.value)  # the legal moves are listed
        assert (board.fen(), board.ply) == before[::2]
        assert np.array_equal(board.state, before[1])


def test_illegal_move_error_names_the_move():
    board = Board()
    with pytest.raises(IllegalMoveError, match=r"'21-17' is not a legal move in B:"):
        board.push("21-17")
    with pytest.raises(IllegalMoveError, match="cannot read move 'hello'"):
        board.push("hello")
    with pytest.raises(IllegalMoveError, match="'33'"):
        board.parse_move("29-33")


def test_parse_move_forms():
    board = Board("international", fen="W:WK46:B37,22,21,31")  # rule case 025
    full = board.parse_move("46x28x17x26")
    assert board.parse_move("46x26") is full
    assert board.parse_move("46x17x26") is full  # any subsequence of landing squares
    assert board.parse_move("46-26") is full  # the separator does not choose
    with pytest.raises(IllegalMoveError):
        board.parse_move("46x28x26x17")  # squares out of order


def test_parse_move_algebraic_and_russian_short_form():
    board = Board("russian", fen="W:Wc3,e3:Bd4,f4")  # rule case 005
    assert str(board.parse_move("c3:g3")) == "c3:e5:g3"
    assert str(board.parse_move("c3xe5xg3")) == "c3:e5:g3"
    assert str(board.parse_move("cg3")) == "c3:e5:g3"  # man on file c to g3
    with pytest.raises(IllegalMoveError, match="cannot read move 'e5'"):
        board.parse_move("e5")  # a square, not a move


def test_ambiguous_short_form_lists_candidates():
    board = Board("russian", fen="W:Wh6,Kh8:Bb6,c3,d4,f8")  # World Championship 1998, game 2
    with pytest.raises(AmbiguousMoveError) as info:
        board.push("hg7")
    assert {str(m) for m in info.value.candidates} == {"h6-g7", "h8-g7"}
    assert "h6-g7" in str(info.value) and "h8-g7" in str(info.value)
    assert isinstance(info.value, IllegalMoveError) and isinstance(info.value, ValueError)
    assert board.ply == 0
    board.push("h8-g7")
    assert board.move_stack[-1].start == 3  # h8 = square 4


DCTL_POSITIONS = json.loads(GOLDEN_POSITIONS.read_text())["positions"]


@pytest.mark.parametrize("position", DCTL_POSITIONS, ids=[p["name"] for p in DCTL_POSITIONS])
def test_dctl_international_legal_moves(position):
    """Complete legal-move lists (start and end only, zero-padded) from the DCTL suite."""
    board = Board(position["variant"], fen=position["fen"])
    got = sorted(
        f"{m.start + 1:02d}{'x' if m.is_capture else '-'}{m.end + 1:02d}" for m in board.legal_moves
    )
    assert got == sorted(position["legal"])
    for text in position["legal"]:  # zero-padded squares read as numbers
        move = board.parse_move(text)
        assert (move.start + 1, move.end + 1) == (int(text[:2]), int(text[3:]))


# -- Move --------------------------------------------------------------------------------------


def test_move_text_and_captures_in_jump_order():
    board = Board("international", fen="W:WK46:B37,22,21,31")
    (move,) = board.legal_moves
    assert move.path == (45, 27, 16, 25)
    assert move.captures == (36, 21, 20)  # 37, then 22, then 21
    assert move.start == 45 and move.end == 25 and move.is_capture
    assert str(move) == "46x28x17x26"
    assert move.row is not None and move.row[core.M_CAPTURED] == (1 << 36) | (1 << 21) | (1 << 20)
    quiet = Board("russian").legal_moves[0]
    assert not quiet.is_capture and "-" in str(quiet) and str(quiet)[0].isalpha()


def test_move_equality_is_start_end_and_captured_set():
    a = Move(path=(45, 27, 16, 25), captures=(36, 21, 20), board_size=10)
    b = Move(path=(45, 31, 16, 25), captures=(20, 21, 36), board_size=10, notation="algebraic")
    c = Move(path=(45, 25), captures=(36,), board_size=10)
    assert a == b and hash(a) == hash(b)
    assert a != c
    assert len({a, b, c}) == 2


def test_push_accepts_a_hand_made_move():
    board = Board("international", fen="W:WK46:B37,22,21,31")
    board.push(Move(path=(45, 25), captures=(36, 21, 20), board_size=10))
    assert board.fen() == "B:WK26:B31"


def test_crowning_flag():
    board = Board("english", fen="W:W5:B20")
    (move,) = board.legal_moves  # a7-b8: the man on a7 has only one square to go to
    assert str(move) == "5-1" and move.crowns
    board.push(move)
    assert board.fen() == "B:WK1:B20"
    assert not board.legal_moves[0].crowns


# -- state, copies, display ------------------------------------------------------------------


def test_state_is_read_only_and_hash_matches_kernel():
    board = Board("international")
    with pytest.raises(ValueError):
        board.state[0] = 0
    board.push("32-28")
    assert board.state[core.ST_HASH] == core.zobrist_hash(board.state, board.variant.params)


def test_copy_is_independent_and_root():
    board = Board()
    board.push("11-15")
    twin = board.copy()
    twin.push("23-19")
    assert board.ply == 1 and twin.ply == 2
    assert board.fen() != twin.fen()
    assert twin.root().fen() == Board().fen() and twin.root().ply == 0
    assert twin.ply == 2


def test_text_diagram():
    board = Board("english", fen="W:W29,K32:B1,K5")
    assert str(board).splitlines() == [
        "  b   .   .   .",
        "B   .   .   .  ",
        "  .   .   .   .",
        ".   .   .   .  ",
        "  .   .   .   .",
        ".   .   .   .  ",
        "  .   .   .   .",
        "w   .   .   W  ",
    ]
    assert repr(board) == "Board('english', fen='W:W29,K32:B1,K5')"


def test_svg_picture():
    board = Board("english", fen="W:W29,K32:B1,K5")
    svg = board._repr_svg_()
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    assert svg.count("<circle") == 4 + 2  # four pieces, a ring on each king
    assert svg.count('class="king"') == 2
    assert ">32</text>" in svg and ">1</text>" in svg
    russian = Board("russian")._repr_svg_()
    assert ">a1</text>" in russian and ">h8</text>" in russian


# -- push / pop round trips (property) ---------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(
        [
            "english",
            "russian",
            "brazilian",
            "international",
            "giveaway",
            "losing",
            "give_and_take:role_swap_after_captures=2",
        ]
    ),
    st.lists(st.integers(0, 10**6), min_size=1, max_size=40),
)
def test_push_pop_restores_fen_state_and_hash(variant, choices):
    board = Board(variant)
    seen = [(board.fen(), board.state.copy())]
    for choice in choices:
        moves = board.legal_moves
        if not moves or board.outcome(claim_draw=False) is not None:
            break
        board.push(moves[choice % len(moves)])
        state = board.state
        assert state[core.ST_HASH] == core.zobrist_hash(state, board.variant.params)
        # FEN round trip: same pieces, side and hash.
        again = Board(variant, fen=board.fen())
        assert again.fen() == board.fen()
        assert again.state[core.ST_HASH] == state[core.ST_HASH]
        seen.append((board.fen(), state.copy()))
    while board.move_stack:
        board.pop()
        seen.pop()
        fen, state = seen[-1]
        assert board.fen() == fen
        assert np.array_equal(board.state, state)


# -- outcomes ----------------------------------------------------------------------------------


def test_outcome_value_and_result():
    white = Outcome(Termination.NO_PIECES, Color.WHITE)
    assert white.result == "1-0" and white.value(Color.WHITE) == 1 and white.value(0) == -1
    draw = Outcome(Termination.THREEFOLD_REPETITION, None)
    assert draw.result == "1/2-1/2" and draw.value(Color.BLACK) == 0


def test_standard_win_and_loss():
    board = Board("english", fen="B:W9,14:B5")  # Black's only man (a7) is blocked
    assert board.outcome() == Outcome(Termination.BLOCKED, Color.WHITE)
    board = Board("english", fen="W:W22:B18")
    board.push("22x15")
    assert board.outcome() == Outcome(Termination.NO_PIECES, Color.WHITE)


def test_threefold_repetition_counts_same_side_to_move():
    board = Board("english", fen="W:WK29:BK4")
    shuffle = ["29-25", "4-8", "25-29", "8-4"]
    for text in shuffle:
        board.push(text)
    assert board.repetitions() == 2 and board.outcome() is None
    for text in shuffle[:3]:
        board.push(text)
        assert board.outcome() is None
    board.push(shuffle[3])
    assert board.repetitions() == 3
    assert board.outcome() == Outcome(Termination.THREEFOLD_REPETITION, None)
    assert board.outcome(claim_draw=False) is None
    board.pop()
    assert board.outcome() is None


def test_repetition_off():
    board = Board("english:repetition_draw=none", fen="W:WK29:BK4")
    for text in ["29-25", "4-8", "25-29", "8-4"] * 3:
        board.push(text)
    assert board.outcome() is None


# -- Give and Take (DESIGN §2 "Win/loss resolution", seed 000 rules 9-11) ----------------------
# Default: Black is the Taker, White the Giver; English movement (seed 000 rules 1-8).


def outcome_after(variant: str, fen: str, moves: list[str]) -> Outcome | None:
    board = Board(variant, fen=fen)
    for text in moves:
        board.push(text)
    return board.outcome()


ELIMINATION = ("B:W18:B14", ["14x23"])  # Black (c5) takes White's last piece (d4)


def test_taker_wins_when_the_givers_last_piece_is_taken():
    assert outcome_after("give_and_take", *ELIMINATION) == Outcome(
        Termination.GIVER_ELIMINATED, Color.BLACK
    )


def test_elimination_winner_giver_flips_it():
    assert outcome_after("give_and_take:elimination_winner=giver", *ELIMINATION) == Outcome(
        Termination.GIVER_ELIMINATED, Color.WHITE
    )


def test_taker_flag_swaps_the_roles():
    # Now Black is the Giver and has taken the Taker's last piece: the Taker, to move with
    # nothing left, loses (a take player with no legal move loses).
    board = Board("give_and_take:taker=white", fen=ELIMINATION[0])
    assert (board.role(Color.WHITE), board.role(Color.BLACK)) == ("taker", "giver")
    board.push(ELIMINATION[1][0])
    assert board.outcome() == Outcome(Termination.NO_PIECES, Color.BLACK)


BLOCKED_GIVER = "W:W29:B25,22"  # White's man on a1 cannot move: b2 and c3 are occupied


def test_blocked_giver_with_pieces_wins():
    assert outcome_after("give_and_take", BLOCKED_GIVER, []) == Outcome(
        Termination.BLOCKED, Color.WHITE
    )


def test_blocked_giver_loses_flag():
    assert outcome_after("give_and_take:blocked_giver=loses", BLOCKED_GIVER, []) == Outcome(
        Termination.BLOCKED, Color.BLACK
    )


def test_same_blocked_position_in_english_is_a_loss():
    assert outcome_after("english", BLOCKED_GIVER, []) == Outcome(Termination.BLOCKED, Color.BLACK)


BLOCKED_TAKER = "B:W9,14:B5"  # Black's man on a7 cannot move: b6 and c5 are occupied


def test_blocked_taker_loses():
    assert outcome_after("give_and_take", BLOCKED_TAKER, []) == Outcome(
        Termination.BLOCKED, Color.WHITE
    )


def test_taker_blocked_draw_flag():
    assert outcome_after("give_and_take:taker_blocked=draw", BLOCKED_TAKER, []) == Outcome(
        Termination.BLOCKED, None
    )


def test_both_givers_first_without_pieces_wins():
    # objectives=give/give: White takes Black's last man; Black, with nothing left, wins.
    assert outcome_after("give_and_take:objectives=give/give", "W:W22:B18", ["22x15"]) == Outcome(
        Termination.NO_PIECES, Color.BLACK
    )
    board = Board("give_and_take:objectives=give/give")
    assert board.role(Color.BLACK) == board.role(Color.WHITE) == "giver"


def test_both_givers_blocked_player_wins_unless_flagged():
    both = "give_and_take:objectives=give/give"
    assert outcome_after(both, BLOCKED_GIVER, []) == Outcome(Termination.BLOCKED, Color.WHITE)
    assert outcome_after(both + ",blocked_giver=loses", BLOCKED_GIVER, []) == Outcome(
        Termination.BLOCKED, Color.BLACK
    )


# Black (Taker) must take d4 with c5 (14x23); then White's man on a1 is blocked.
ROLE_SWAP = ("B:W18,29:B14,22,25", ["14x23"])


def test_role_swap_after_captures_flips_the_blocked_result():
    plain = outcome_after("give_and_take", *ROLE_SWAP)
    assert plain == Outcome(Termination.BLOCKED, Color.WHITE)  # the blocked Giver wins
    board = Board("give_and_take:role_swap_after_captures=1", fen=ROLE_SWAP[0])
    assert board.role(Color.BLACK) == "taker" and board.objective(Color.BLACK) == "take"
    board.push(ROLE_SWAP[1][0])
    assert board.role(Color.BLACK) == "giver" and board.objective(Color.WHITE) == "take"
    # White is now the Taker and is blocked: it loses.
    assert board.outcome() == Outcome(Termination.BLOCKED, Color.BLACK)
    board.pop()
    assert board.role(Color.BLACK) == "taker"


def test_roles_outside_give_and_take():
    board = Board("english")
    assert board.role(Color.BLACK) is None and board.objective(Color.BLACK) == "take"
    assert Board("giveaway").objective(Color.WHITE) == "give"
    assert Board("give_and_take").role(Color.WHITE) == "giver"
    assert Variant.parse("give_and_take").taker == "black"


@pytest.mark.parametrize(
    "variant, fen, move, winner",
    [
        # White (the Giver) runs its last man from 5 to 1: it is taken off, nothing captured.
        ("give_and_take:promotion=remove", "W:W5:B28", "5-1", Color.BLACK),
        ("give_and_take:promotion=remove,elimination_winner=giver", "W:W5:B28", "5-1", Color.WHITE),
        # Roles the other way round: Black gives, its man on 28 leaves the board at 32.
        ("give_and_take:promotion=remove,taker=white", "B:W5:B28", "28-32", Color.WHITE),
    ],
)
def test_giver_removing_its_own_last_man_counts_as_no_pieces(variant, fen, move, winner):
    # docs/rules.md: the Giver is left without pieces, so elimination_winner decides, but
    # the termination does not claim a capture.
    board = Board(variant, fen=fen)
    board.push(move)
    assert board.legal_moves  # the Taker could still move: the game ends by the rule
    assert board.outcome() == Outcome(Termination.NO_PIECES, winner)
    # A capture of the last piece is still GIVER_ELIMINATED under promotion=remove.
    assert outcome_after("give_and_take:promotion=remove", *ELIMINATION) == Outcome(
        Termination.GIVER_ELIMINATED, Color.BLACK
    )
