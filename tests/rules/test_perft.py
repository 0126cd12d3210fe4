"""Perft against the published tables, and legal-move lists of the rule cases.

Expected figures come from the repository's golden data (``tests/golden``, sources in its
README): ``perft/published_perft.json`` (DCTL and forum sources named in that file),
``positions/`` (DCTL legal-move lists) and ``cases/``. They always run.
"""

from __future__ import annotations

import json
import types

import numpy as np
import pytest

from drl.cli.perft import main as perft_main
from drl.rules import Board, core
from drl.rules.geometry import parse_square
from drl.rules.perft import divide, perft
from drl.rules.variant import Variant
from tests.shared_paths import GOLDEN_CASES, GOLDEN_PERFT, GOLDEN_POSITIONS

# Table name in the JSON file for each preset.
TABLES = {
    "english": "english_checkers",
    "russian": "russian",
    "brazilian": "brazilian",
    "international": "international",
}
FAST_DEPTH = {"english": 10, "russian": 9, "brazilian": 9, "international": 8}
SLOW_DEPTH = {"english": 12, "russian": 11, "brazilian": 11, "international": 10}
FAST_LEAVES = 3_000_000  # test positions: depths up to this many leaves run by default
SLOW_LEAVES = 300_000_000


def _load(path):
    return json.loads(path.read_text())


def state_from_fen(fen: str, variant: Variant) -> np.ndarray:
    """Minimal FEN piece-list reader for these tests (ranges, kings, algebraic squares)."""
    turn, *fields = fen.strip().rstrip(".").split(":")
    bits = {"B": [0, 0], "W": [0, 0]}
    for field in fields:
        if not field:
            continue
        for token in filter(None, field[1:].split(",")):
            king = token.startswith("K")
            token = token.lstrip("K")
            if "-" in token:
                lo, hi = token.split("-")
                squares = range(
                    parse_square(lo, variant.board_size), parse_square(hi, variant.board_size) + 1
                )
            else:
                squares = [parse_square(token, variant.board_size)]
            for s in squares:
                bits[field[0]][king] |= 1 << s
    return core.make_state(
        bits["B"][0],
        bits["B"][1],
        bits["W"][0],
        bits["W"][1],
        0 if turn == "B" else 1,
        variant.params,
    )


def _case_variant(spec: dict) -> Variant:
    spec = dict(spec)
    name = spec.pop("name")
    flags = ",".join(f"{k}={str(v).lower()}" for k, v in spec.items())
    return Variant.parse(f"{name}:{flags}" if flags else name)


def _start_params():
    table = _load(GOLDEN_PERFT)["start_positions"]
    fast, slow = [], []
    for name, key in TABLES.items():
        counts = table[key]["drop_duplicates"]
        for depth, count in enumerate(counts, start=1):
            if depth <= FAST_DEPTH[name]:
                fast.append((name, depth, count))
            elif depth <= SLOW_DEPTH[name]:
                slow.append(pytest.param(name, depth, count, marks=pytest.mark.slow))
    return fast + slow


@pytest.mark.parametrize("name, depth, expected", _start_params())
def test_start_position_perft_matches_published(name, depth, expected):
    assert perft(name, depth) == expected


def _position_params():
    params = []
    for pos in _load(GOLDEN_PERFT)["test_positions"]:
        if pos["variant"] != "international" or "drop_duplicates" not in pos:
            continue  # other rule sets, or counts that keep duplicate captures
        for depth, count in enumerate(pos["drop_duplicates"], start=1):
            case = (pos["name"], pos["fen"], depth, count)
            if count <= FAST_LEAVES:
                params.append(case)
            elif count <= SLOW_LEAVES:
                params.append(pytest.param(*case, marks=pytest.mark.slow))
    return params


@pytest.mark.parametrize("name, fen, depth, expected", _position_params())
def test_international_test_positions(name, fen, depth, expected):
    v = Variant.preset("international")
    assert perft(state_from_fen(fen, v), depth, v) == expected


def _cases_with_moves():
    cases = []
    for path in sorted(GOLDEN_CASES.glob("*.json")):
        case = json.loads(path.read_text())
        if "legal_moves" in case.get("expected", {}):
            cases.append(pytest.param(case, id=case["id"]))
    return cases


@pytest.mark.parametrize("case", _cases_with_moves())
def test_rule_case_legal_moves(case):
    v = _case_variant(case["variant"])
    moves = divide(state_from_fen(case["fen"], v), 1, v)
    assert sorted(moves) == sorted(case["expected"]["legal_moves"])
    for bad in case["expected"].get("illegal_examples", []):
        assert bad not in moves
    for depth, count in case["expected"].get("perft", {}).items():
        assert perft(state_from_fen(case["fen"], v), int(depth), v) == count


def _origin_destination(text: str) -> tuple[int, str, int]:
    """(from, "x" or "-", to) of a move text, numeric notation."""
    sep = "x" if "x" in text else "-"
    squares = text.split(sep)
    return int(squares[0]), sep, int(squares[-1])


def test_dctl_tutorial_positions():
    data = _load(GOLDEN_POSITIONS)
    v = Variant.preset("international")
    for pos in data["positions"]:
        moves = divide(state_from_fen(pos["fen"], v), 1, v)
        got = sorted(_origin_destination(m) for m in moves)
        assert got == sorted(_origin_destination(m) for m in pos["legal"]), pos["name"]


def test_perft_accepts_boards_variants_and_states():
    v = Variant.preset("english")
    start = core.initial_state(v.params)
    board = types.SimpleNamespace(state=start.copy(), variant=v)
    assert (
        perft(board, 3) == perft("english", 3) == perft(start, 3, v) == perft(start, 3, "english")
    )
    assert perft(start, 0, v) == 1
    with pytest.raises(ValueError):
        perft(start, -1, v)
    with pytest.raises(TypeError):
        perft(start, 2)
    with pytest.raises(ValueError):
        perft(np.zeros(5, dtype=np.int64), 2, v)


@pytest.mark.parametrize(
    "name", ["english", "russian", "international", "give_and_take", "losing:promotion=remove"]
)
def test_divide_sums_to_perft(name):
    split = divide(name, 4)
    assert sum(split.values()) == perft(name, 4)
    assert len(split) == perft(name, 1)


def test_divide_needs_depth_one():
    with pytest.raises(ValueError):
        divide("english", 0)


def test_cli_prints_nodes(capsys):
    assert perft_main(["english", "4"]) == 0
    out = capsys.readouterr().out
    assert "nodes   1469" in out and "nodes/s" in out


def test_cli_divide_from_fen(capsys):
    assert perft_main(["russian", "1", "--fen", "W:Wc3,e3:Bd4,f4", "--divide"]) == 0
    out = capsys.readouterr().out
    assert "c3:e5:g3" in out and "nodes   3" in out


def test_cli_rejects_bad_input(capsys):
    with pytest.raises(SystemExit):
        perft_main(["chess", "3"])
    assert "unknown variant" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        perft_main(["english", "-2"])
    assert "depth" in capsys.readouterr().err


def test_depth_is_bounded_in_the_api_and_the_cli(capsys):
    # Each ply keeps a 512 KiB move list: 100000 plies asked for 52 GB up front.
    from drl.rules.perft import MAX_DEPTH

    for call in (
        lambda: perft("english", 100_000),
        lambda: divide("english", 100_000),
        lambda: perft(core.initial_state(Variant.preset("english").params), 100_000, "english"),
    ):
        with pytest.raises(ValueError, match=f"over the limit {MAX_DEPTH} plies"):
            call()
    with pytest.raises(SystemExit):
        perft_main(["english", "100000"])
    err = capsys.readouterr().err
    assert "depth 100000 is over the limit" in err and str(MAX_DEPTH) in err
    with pytest.raises(ValueError, match="over the limit"):
        core.perft(
            core.initial_state(Variant.preset("english").params),
            Variant.preset("english").params,
            MAX_DEPTH + 1,
        )
    # The deepest allowed search runs: here the tree ends after one ply (18x25 takes the
    # last white piece).
    assert perft(Board("english", fen="B:W22:B18"), MAX_DEPTH) == 0
    assert perft(Board("english", fen="B:W22:B18"), 1) == 1
