"""Material probes against value functions whose material values are known by construction."""

from __future__ import annotations

import numpy as np
import pytest

from drl.analysis import PlayedGame, as_games, material_values, phase_of
from drl.rules import Board
from tests.analysis.material_evaluators import material_evaluator


def random_games(variant: str, n: int, plies: int, seed: int) -> list[PlayedGame]:
    """Seeded random games (a source of varied positions, kings included)."""
    rng = np.random.default_rng(seed)
    games = []
    for _ in range(n):
        board = Board(variant)
        moves = []
        while len(moves) < plies and not board.is_game_over():
            legal = board.legal_moves
            move = legal[int(rng.integers(len(legal)))]
            moves.append(str(move))
            board.push(move)
        games.append({"moves": moves, "variant": variant})
    return as_games(games)


@pytest.fixture(scope="module")
def english_games():
    return random_games("english", 6, 160, 1)


def test_a_king_worth_three_men_is_measured_as_three(english_games):
    res = material_values(english_games, material_evaluator(0.1, 0.3), n_boot=200)
    counts = res["counts"]
    assert counts["king_removed"] > 0 and counts["man_crowned"] > 0
    assert counts["probes"] == counts["king_removed"] + counts["man_crowned"] > 20
    block = res["groups"]["all"]
    assert block["objective"] == "take"
    for phase in ("all", "opening", "middlegame", "endgame"):
        b = block[phase]
        if b["probes"] == 0:
            continue
        assert b["man_value"]["value"] == pytest.approx(0.1, abs=1e-6)
        assert b["king_value"]["value"] == pytest.approx(0.3, abs=1e-6)
        assert b["king_in_men"]["value"] == pytest.approx(3.0, abs=1e-4)
        lo, hi = b["king_in_men"]["ci95"]
        assert lo == pytest.approx(3.0, abs=1e-4) and hi == pytest.approx(3.0, abs=1e-4)
    assert (
        sum(block[p]["probes"] for p in ("opening", "middlegame", "endgame"))
        == block["all"]["probes"]
    )


def test_a_giving_value_function_keeps_its_negative_sign(english_games):
    res = material_values(english_games, material_evaluator(-0.05, -0.1), n_boot=200)
    b = res["groups"]["all"]["all"]
    assert b["man_value"]["value"] == pytest.approx(-0.05, abs=1e-6)
    assert b["king_value"]["value"] == pytest.approx(-0.1, abs=1e-6)
    assert b["king_in_men"]["value"] == pytest.approx(2.0, abs=1e-4)


def test_give_and_take_reports_each_role_with_its_sign():
    games = random_games("give_and_take", 4, 120, 2)

    def sign(board):
        return 1.0 if board.objective(board.turn) == "take" else -1.0

    res = material_values(games, material_evaluator(0.1, 0.3, sign_of=sign), n_boot=200)
    groups = res["groups"]
    assert set(groups) == {"all", "taker", "giver"}
    assert groups["taker"]["objective"] == "take" and groups["giver"]["objective"] == "give"
    assert groups["taker"]["all"]["man_value"]["value"] == pytest.approx(0.1, abs=1e-6)
    assert groups["giver"]["all"]["man_value"]["value"] == pytest.approx(-0.1, abs=1e-6)
    for role in ("taker", "giver"):
        assert groups[role]["all"]["king_in_men"]["value"] == pytest.approx(3.0, abs=1e-4)
    assert groups["all"]["objective"] == "mixed"


def test_positions_with_a_capture_pending_are_not_probed():
    # Black to move must take 14x23x32: the only position is skipped
    games = as_games([{"opening": "B:W18,27,29:B1,14", "moves": ["14x23x32"]}], "english")
    res = material_values(games, material_evaluator(), n_boot=50)
    assert res["counts"]["capture_pending"] == 1 and res["counts"]["probes"] == 0
    assert res["groups"]["all"]["all"]["king_in_men"]["value"] is None


def test_phases_follow_the_stated_thresholds():
    assert phase_of(24, 24) == phase_of(18, 24) == "opening"
    assert phase_of(17, 24) == phase_of(9, 24) == "middlegame"
    assert phase_of(8, 24) == phase_of(2, 24) == "endgame"
    assert phase_of(30, 40) == "opening" and phase_of(13, 40) == "endgame"


def test_a_value_function_returning_the_wrong_shape_is_an_error(english_games):
    with pytest.raises(ValueError, match="values for"):
        material_values(english_games[:1], lambda boards: np.zeros(2))
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):
        material_values(english_games[:1], lambda boards: np.full(len(boards), 2.0))
