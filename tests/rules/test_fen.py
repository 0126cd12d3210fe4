"""FEN parsing and writing (drl.rules.fen) and Board.fen()."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drl.rules import Board, FENError
from drl.rules.fen import FenPosition, format_fen, parse_fen


def test_numeric_fen_with_kings():
    pos = parse_fen("W:W21,22,K5:B1,2", 8)
    assert pos.turn == 1
    assert pos.white_men == {20, 21}
    assert pos.white_kings == {4}
    assert pos.black_men == {0, 1}
    assert pos.black_kings == frozenset()


def test_lists_in_either_order_and_king_ranges():
    a = parse_fen("B:BK17,K24:W6,9", 10)
    b = parse_fen("B:W6,9:BK17,K24", 10)
    assert a == b
    assert a.turn == 0 and a.black_kings == {16, 23} and a.white_men == {5, 8}


def test_ranges_expand():
    pos = parse_fen("W:W31-50:B1-20", 10)
    assert pos.white_men == frozenset(range(30, 50))
    assert pos.black_men == frozenset(range(0, 20))


def test_empty_side_trailing_dot_whitespace_and_quotes():
    assert parse_fen("B:W50:B", 10).black_men == frozenset()
    assert parse_fen("W:W28", 10) == parse_fen("W:W28:B", 10)  # DCTL leaves empty lists out
    pos = parse_fen('  "W:W29,25,21,18,15:B13,8,6,5,4."  ', 8)
    assert pos.white_men == {28, 24, 20, 17, 14}
    assert pos.black_men == {12, 7, 5, 4, 3}


def test_algebraic_squares():
    pos = parse_fen("W:Wc3,e3:Bd4,f4", 8)
    # c3 = PDN 22, e3 = 23, d4 = 18, f4 = 19 (docs/internals.md numbering)
    assert pos.white_men == {21, 22}
    assert pos.black_men == {17, 18}


def test_unknown_side_and_lidraughts_counters():
    assert parse_fen("?:W29,13,11:B22,4,2", 10).turn is None
    pos = parse_fen("W:W31:B1:H7:F20", 8)
    assert pos.no_progress == 7 and pos.move_number == 20


@pytest.mark.parametrize(
    "fen, size, words",
    [
        ("X:W1:B2", 8, ["side to move", "'X'"]),
        ("W:W33:B1", 8, ["'33'", "out of range"]),
        ("W:W51:B1", 10, ["'51'", "out of range"]),
        ("W:W5,5:B1", 8, ["5", "twice"]),
        ("W:W5:B5", 8, ["5", "both colours"]),
        ("W:W4:B49", 10, ["white man on 4", "crowning row"]),  # rule case 020
        ("W:W40:B49", 10, ["black man on 49", "crowning row"]),
        ("W:W5x:B3", 8, ["'5x'"]),
        ("W:Wa2:B3", 8, ["'a2'", "light square"]),
        ("W:W20-10:B3", 8, ["'20-10'", "backwards"]),
        ("W", 8, ["no piece list"]),
        ("W:W5:B3:W6", 8, ["W piece list appears twice"]),
        ("W:Q5:B3", 8, ["'Q5'", "must start with W or B"]),
        ("", 8, ["empty"]),
        ("W:W21:B1:H99999999999999999999999", 8, ["counter", "10**9"]),
        ("W:W21:B1:H\u00b2", 8, ["counter", "ASCII"]),  # superscript two
        ("W:W\u00b2:B1", 8, ["ASCII"]),
        ("W:W\uff15:B1", 8, ["ASCII"]),  # full-width five
    ],
)
def test_bad_fen_names_the_token(fen, size, words):
    with pytest.raises(FENError) as info:
        parse_fen(fen, size)
    for word in words:
        assert word in str(info.value)


def test_format_orders_squares_and_marks_kings():
    pos = FenPosition(
        turn=1,
        black_men=frozenset({1, 2, 5, 9}),
        black_kings=frozenset({31}),
        white_men=frozenset({11, 12, 21, 27, 29}),
        white_kings=frozenset(),
    )
    assert format_fen(pos, 8) == "W:W12,13,22,28,30:B2,3,6,10,K32"


def test_format_algebraic_and_empty_side():
    pos = FenPosition(
        turn=0,
        black_men=frozenset(),
        black_kings=frozenset(),
        white_men=frozenset(),
        white_kings=frozenset({30}),
    )  # e1 = PDN 31
    assert format_fen(pos, 8, algebraic=True) == "B:WKe1:B"


@st.composite
def positions(draw):
    size = draw(st.sampled_from([8, 10]))
    nsq = size * size // 2
    half = size // 2
    kinds = draw(
        st.lists(st.sampled_from(["bm", "bk", "wm", "wk", None]), min_size=nsq, max_size=nsq)
    )
    sets = {k: set() for k in ("bm", "bk", "wm", "wk")}
    for sq, kind in enumerate(kinds):
        if kind == "wm" and sq < half or kind == "bm" and sq >= nsq - half:
            kind = kind[0] + "k"  # a man cannot stand on its crowning row
        if kind:
            sets[kind].add(sq)
    turn = draw(st.sampled_from([0, 1]))
    pos = FenPosition(
        turn,
        frozenset(sets["bm"]),
        frozenset(sets["bk"]),
        frozenset(sets["wm"]),
        frozenset(sets["wk"]),
    )
    return size, pos


@settings(max_examples=60, deadline=None)
@given(positions(), st.booleans())
def test_format_then_parse_round_trips(sized, algebraic):
    size, pos = sized
    assert parse_fen(format_fen(pos, size, algebraic), size) == pos


def test_board_fen_round_trip_and_notation():
    fen = "B:W18,21,23-32:B1-10,12,15"  # rule case 013, with ranges
    board = Board("english", fen=fen)
    assert board.fen() == "B:W18,21,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,15"
    assert Board("english", fen=board.fen()).fen() == board.fen()
    russian = Board("russian", fen="W:Wc3,e3:Bd4,f4")
    assert russian.fen() == "W:Wc3,e3:Bd4,f4"


def test_board_rejects_bad_fen_without_building():
    with pytest.raises(FENError, match="'x9'"):
        Board("english", fen="W:W1,x9:B3")


def test_start_position_fen_of_each_preset():
    assert Board("english").fen() == (
        "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
    )
    assert Board("international").fen() == format_fen(parse_fen("W:W31-50:B1-20", 10), 10)
    assert Board("russian").fen() == (
        "W:Wa1,a3,b2,c1,c3,d2,e1,e3,f2,g1,g3,h2:Ba7,b6,b8,c7,d6,d8,e7,f6,f8,g7,h6,h8"
    )


def test_a_fen_that_is_not_a_string_is_a_fen_error():
    from drl.rules import Board

    for bad in (123, b"W:W21:B1", None):
        with pytest.raises(FENError, match="string"):
            parse_fen(bad, 8)
    with pytest.raises(FENError, match="string"):
        Board("english", fen=b"W:W21:B1")


# -- hostile FEN: only FENError, with a bounded message ------------------------------------------

FEN_INSERTS = st.one_of(
    st.sampled_from(list('WBK?:,-. "xHFacehj0123456789\x00\n\u00b2\uff15')),
    st.sampled_from(["9" * 5000, "1-" * 3000, ",,", "::", "K", "H" + "9" * 20, "F-1"]),
    st.text(max_size=3),
)


@st.composite
def mutated_fens(draw):
    size, pos = draw(positions())
    chars = list(format_fen(pos, size, draw(st.booleans())))
    for op, where, what in draw(
        st.lists(
            st.tuples(
                st.sampled_from(["insert", "delete", "replace"]), st.integers(0, 999), FEN_INSERTS
            ),
            min_size=1,
            max_size=5,
        )
    ):
        at = where % (len(chars) + 1)
        if op == "insert":
            chars[at:at] = [what]
        elif op == "delete":
            del chars[at : at + 1 + len(what) % 7]
        else:
            chars[at : at + 1] = [what]
    return size, "".join(chars)


def _check_mutated_fen(size: int, fen: str) -> None:
    try:
        pos = parse_fen(fen, size)
    except FENError as err:
        assert len(str(err)) < 600
    else:  # what is read writes back and reads the same (counters are not written)
        plain = dataclasses.replace(pos, no_progress=None, move_number=None)
        assert parse_fen(format_fen(pos, size), size) == plain
    variant = "international" if size == 10 else "english"
    try:
        Board(variant, fen=fen)
    except FENError as err:
        assert len(str(err)) < 600


@settings(max_examples=300, deadline=None)
@given(mutated_fens())
def test_a_mutated_fen_is_read_or_refused_with_a_fen_error(sized):
    _check_mutated_fen(*sized)


@pytest.mark.slow
@settings(max_examples=10_000, deadline=None)
@given(mutated_fens())
def test_a_mutated_fen_is_read_or_refused_many_examples(sized):
    _check_mutated_fen(*sized)


def test_a_huge_fen_is_quoted_once_and_briefly():
    fen = "W:W" + "1," * 5_000_000 + "x"  # 10 MB
    with pytest.raises(FENError) as info:
        parse_fen(fen, 8)
    message = str(info.value)
    assert len(message) < 300 and "(10000004 characters)" in message and "twice" in message
