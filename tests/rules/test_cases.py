"""Every rule case in tests/golden/cases/*.json, one test each (id = file stem).

Each expectation key of a case is checked at the Board level; a key this file does not
know fails the test, so that a new kind of case is never skipped silently. Step-level
expectations (``legal_steps``, ``first_steps``, ``side_to_move_after_each_step``) are
checked here from the full moves; the encoder's own check of the same cases belongs to
its tests, through :func:`legal_steps_after` below (ENCODER HOOK).
"""

from __future__ import annotations

import dataclasses
import json
from itertools import pairwise
from pathlib import Path

import pytest

from drl.rules import AmbiguousMoveError, Board, Color, FENError, IllegalMoveError, Variant
from tests.shared_paths import GOLDEN_CASES

CASE_FILES = sorted(GOLDEN_CASES.glob("*.json"))
FLAGS = sorted(
    (f.name for f in dataclasses.fields(Variant) if f.name != "name"), key=len, reverse=True
)


def variant_string(spec: dict) -> str:
    """``name:flag=value,...`` from a case's ``variant`` object."""
    flags = []
    for key, value in spec.items():
        if key == "name":
            continue
        if isinstance(value, bool):
            value = "true" if value else "false"
        flags.append(f"{key}={value}")
    return spec["name"] + (":" + ",".join(flags) if flags else "")


def result_of(board: Board) -> str:
    outcome = board.outcome()
    return "*" if outcome is None else outcome.result


def step_text(board: Board, a: int, b: int, capture: bool) -> str:
    """Text of one step, in the board's notation (``28x19``, ``c3:e5``, ``9-13``)."""
    from drl.rules.notation import format_move

    return format_move(
        (a, b), capture, board.variant.board_size, board.variant.notation == "algebraic"
    )


def legal_steps_after(board: Board, played: list[str]) -> set[str]:
    """ENCODER HOOK: the legal next steps once ``played`` steps of a move are on the board.

    Derived from the full legal moves (DESIGN §3: the legal steps in mid-move are the next
    steps of the full moves that extend the steps played so far). The encoder's masks must
    agree with this on every case that has step expectations.
    """
    out = set()
    for move in board.legal_moves:
        steps = [step_text(board, a, b, move.is_capture) for a, b in pairwise(move.path)]
        if steps[: len(played)] == played and len(steps) > len(played):
            out.add(steps[len(played)])
    return out


def board_perft(board: Board, depth: int) -> int:
    """Leaf count through the Board API (push/pop), independent of the perft kernel."""
    if depth == 0:
        return 1
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += board_perft(board, depth - 1)
        board.pop()
    return total


@pytest.mark.parametrize("path", CASE_FILES, ids=[p.stem for p in CASE_FILES])
def test_case(path: Path) -> None:  # noqa: C901, PLR0915 (one branch per kind of case)
    case = json.loads(path.read_text())
    variant = variant_string(case["variant"])
    expected = dict(case["expected"])
    checked = set()

    if expected.get("parse") == "error":
        with pytest.raises(FENError):
            Board(variant, fen=case["fen"])
        return

    board = Board(variant, fen=case["fen"])
    start_fen = board.fen()
    mover = board.turn
    letter = {Color.BLACK: "B", Color.WHITE: "W"}

    def check(key: str) -> bool:
        checked.add(key)
        return key in expected

    if check("parse"):
        assert expected["parse"] == "ok"
    if check("legal_moves"):
        texts = [str(m) for m in board.legal_moves]
        assert sorted(texts) == sorted(expected["legal_moves"])
        assert len(set(board.legal_moves)) == len(texts), "duplicate legal moves"
        for text in expected["legal_moves"]:
            assert str(board.parse_move(text)) == text
    if check("illegal_examples"):
        for text in expected["illegal_examples"]:
            with pytest.raises(IllegalMoveError):
                board.push(text)
            assert board.fen() == start_fen and board.ply == 0
    if check("parse_move"):
        for text, answer in expected["parse_move"].items():
            assert answer == "error: ambiguous", f"unknown parse_move answer {answer!r}"
            with pytest.raises(AmbiguousMoveError) as info:
                board.parse_move(text)
            for move in board.legal_moves:
                assert str(move) in str(info.value)
    if check("equals_start_position"):
        assert (board.fen() == Board(variant).fen()) == expected["equals_start_position"]
    if check("side_to_move"):
        assert letter[board.turn] == expected["side_to_move"]
    for key, colour in (("white_men", "W"), ("black_men", "B")):
        if check(key):
            lo, hi = map(int, expected[key].split(".."))
            listed = board.fen().split(":" + colour)[1].split(":")[0]
            assert listed == ",".join(str(n) for n in range(lo, hi + 1))
    if check("first_steps"):
        assert legal_steps_after(board, []) == set(expected["first_steps"])
    if check("legal_first_steps"):
        assert legal_steps_after(board, []) == set(expected["legal_first_steps"])
    if check("masked_out_examples"):
        assert not legal_steps_after(board, []) & set(expected["masked_out_examples"])
    played: list[str] = []
    for key in [k for k in expected if k.startswith("after_step_")]:  # in playing order
        checked.add(key)
        played.append(key[len("after_step_") :])
        nxt = legal_steps_after(board, played)
        want = expected[key]
        if "legal_steps" in want:
            assert nxt == set(want["legal_steps"])
        # Mid-move the same player keeps the turn; when no step follows the move is over.
        side = letter[mover] if nxt else letter[mover.other]
        assert side == want["side_to_move"]
    if check("side_to_move_after_each_step"):
        (move,) = board.legal_moves
        sides = expected["side_to_move_after_each_step"]
        assert len(sides) == len(move.path) - 1
        assert all(s == letter[mover] for s in sides[:-1])
        board.push(move)
        assert sides[-1] == letter[board.turn]
        board.pop()
    if check("fen_after"):
        (move,) = board.legal_moves
        board.push(move)
        assert board.fen() == expected["fen_after"]
        board.pop()
        assert board.fen() == start_fen
    if check("perft"):
        for depth, count in expected["perft"].items():
            assert board_perft(board, int(depth)) == count

    # Outcomes: before, during and after the case's moves.
    moves = case.get("moves", [])
    at_ply = {
        int(k.rsplit("_", 1)[1]): v
        for k, v in expected.items()
        if k.startswith("result_after_ply_")
    }
    checked.update(f"result_after_ply_{n}" for n in at_ply)
    for ply, text in enumerate(moves, start=1):
        assert board.outcome() is None, f"the game ended before ply {ply}"
        board.push(text)
        if ply in at_ply:
            assert result_of(board) == at_ply[ply], f"after ply {ply}"
    assert all(n <= len(moves) for n in at_ply)
    final = result_of(board)
    if check("result"):
        assert final == expected["result"]
    if check("result_after_capture"):
        assert board.move_stack[-1].is_capture
        assert final == expected["result_after_capture"]
    if check("terminal"):
        assert board.is_game_over() == expected["terminal"]
    for key, colour in (("value_for_white", Color.WHITE), ("value_for_black", Color.BLACK)):
        if check(key):
            assert board.outcome().value(colour) == expected[key]
    for key in [k for k in expected if k.startswith("with_flag_")]:
        checked.add(key)
        rest = key[len("with_flag_") :]
        flag = next(f for f in FLAGS if rest.startswith(f + "_"))
        other = Variant.parse(variant).replace(**{flag: rest[len(flag) + 1 :]})
        replayed = Board(other, fen=case["fen"])
        for text in moves:
            replayed.push(text)
        assert result_of(replayed) == expected[key], key
    for key in [k for k in expected if k.startswith("same_fen_in_")]:
        checked.add(key)
        assert result_of(Board(key[len("same_fen_in_") :], fen=case["fen"])) == expected[key]
    for key in ("reason",):  # prose
        checked.add(key)

    unknown = set(expected) - checked
    assert not unknown, f"expectation keys this test does not check: {sorted(unknown)}"
