"""Errors about bad input quote a bounded excerpt of it, however long the input.

A 10 MB FEN used to come back twice in its error message. Every reader of text (FEN,
PDN, move text, variant strings, square names) quotes at most the first
``EXCERPT_CHARS`` characters and says how long the input was.
"""

from __future__ import annotations

import re

import pytest

from drl.rules import Board, FENError, IllegalMoveError, PDNError, Variant, VariantError
from drl.rules._quote import EXCERPT_CHARS, excerpt
from drl.rules.fen import parse_fen
from drl.rules.geometry import parse_square
from drl.rules.notation import parse_move_text
from drl.rules.pdn import normalize_result, read_games, replay, write_game

BIG = 2_000_000  # characters of each hostile input
LIMIT = 600  # characters of any message about it


def _cases():
    junk = "x" * BIG
    digits = "9" * BIG
    return [
        ("fen: side", lambda: parse_fen(junk, 8), FENError),
        ("fen: square", lambda: parse_fen("W:W" + digits, 8), FENError),
        ("fen: repeated square", lambda: parse_fen("W:W" + "1," * (BIG // 2), 8), FENError),
        ("fen: field", lambda: parse_fen("W:W1:" + junk, 8), FENError),
        ("fen: counter", lambda: parse_fen("W:W1:B2:H" + digits, 8), FENError),
        ("fen: board", lambda: Board("english", fen="W:W" + junk), FENError),
        ("fen: not a string", lambda: parse_fen(junk.encode(), 8), FENError),
        ("square", lambda: parse_square(digits, 8), ValueError),
        ("move text", lambda: parse_move_text("1-" + digits, 8), ValueError),
        ("move", lambda: Board("english").push("11-" + digits), IllegalMoveError),
        (
            "move: strength marks",
            lambda: Board("english").push("11-15" + "!" * BIG + "x"),
            IllegalMoveError,
        ),
        ("variant: name", lambda: Variant.parse(junk), VariantError),
        ("variant: flag", lambda: Variant.parse("english:" + junk + "=1"), VariantError),
        ("variant: value", lambda: Variant.parse("english:taker=" + junk), VariantError),
        ("variant: number", lambda: Variant.parse("english:board_size=" + digits), VariantError),
        (
            "variant: constructor",
            lambda: Variant.preset("english").replace(board_size=10**5000),
            VariantError,
        ),
        (
            "pdn: replay move",
            lambda: replay(next(read_games("1. " + "1-2" * 80 + " *")), "english"),
            PDNError,
        ),
        ("pdn: move number", lambda: list(read_games(digits + ". 11-15 *")), PDNError),
        ("pdn: tag name", lambda: list(read_games("[" + "A" * BIG + ' "x\n')), PDNError),
        ("pdn: cut-off move", lambda: list(read_games("1. " + "1-" * (BIG // 2))), PDNError),
        ("pdn: result", lambda: normalize_result(junk), PDNError),
        ("pdn: tag value", lambda: write_game([], {"Event": junk + "\n"}), PDNError),
        (
            "pdn: replay fen",
            lambda: replay(next(read_games(f'[FEN "{junk}"]\n*')), "english"),
            PDNError,
        ),
        ("pdn: word", lambda: list(read_games("1. " + junk + " *")), PDNError),
    ]


@pytest.mark.parametrize("name, call, error", _cases(), ids=[c[0] for c in _cases()])
def test_a_huge_input_is_quoted_as_a_bounded_excerpt(name, call, error):
    with pytest.raises(error) as info:
        call()
    message = str(info.value)
    assert len(message) < LIMIT, message[:1000]
    assert re.search(r"\(\d+ (characters|bytes)\)|an integer of about \d+ digits", message), message


def test_excerpt_keeps_short_values_and_cuts_long_ones():
    assert excerpt("11-15") == "'11-15'"
    assert excerpt(b"W:W1") == "b'W:W1'"
    assert excerpt(17) == "17"
    long = "a" * 1000
    assert excerpt(long) == repr("a" * EXCERPT_CHARS) + "... (1000 characters)"
    assert excerpt(long.encode()).endswith("... (1000 bytes)")
    assert excerpt(10**5000) == "an integer of about 5001 digits"  # repr() would raise
    assert len(excerpt(list(range(10**4)))) < EXCERPT_CHARS + 40
