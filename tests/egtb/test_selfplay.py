"""Self-play with the endgame database: a game that enters it ends with its exact result."""

from __future__ import annotations

import numpy as np
import pytest

from drl.egtb._search import history_allows
from drl.nn import UniformEvaluator
from drl.rules import Variant
from drl.rules.board import Board
from drl.search import SearchConfig
from drl.train import selfplay
from drl.train.buffer import GameBatch
from drl.train.selfplay import SelfPlayActor, SelfPlayConfig

START = "W:W23,K31:B19,K10"  # White's only move, 23x16, leaves three pieces


def _play(egtb: bool, games: int = 4, max_plies: int = 30, seed: int = 3):
    actor = SelfPlayActor(
        [Variant.parse("english")],
        SearchConfig(num_simulations=8),
        SelfPlayConfig(games_in_flight=2, max_plies=max_plies, adjudicate_depth=0, egtb=egtb),
        seed=seed,
    )
    chunks: list = []
    actor.play(UniformEvaluator(), games, on_games=lambda b, p: chunks.append((b, p)))
    return GameBatch.concat([c[0] for c in chunks]), [p for c in chunks for p in c[1]]


@pytest.fixture
def from_start(monkeypatch):
    """Self-play games start from ``START`` instead of the variant's start position."""
    state = np.array(Board("english", fen=START).state, np.int64)
    monkeypatch.setattr(selfplay, "initial_state", lambda params: state.copy())


def test_a_game_that_enters_the_database_ends_with_its_exact_result(
    built, egtb_folder, monkeypatch, from_start
):
    monkeypatch.setenv("DRL_EGTB_DIR", str(egtb_folder))
    db = built("english", 3)
    board = Board("english", fen=START)
    board.push(board.legal_moves[0])
    exact = db.exact(board.state)  # Black to move, three pieces
    assert exact is not None
    mover = {"win": 0, "loss": 1}.get(exact.value, 2)  # Black = 0, White = 1, draw = 2
    tag = ("black", "white", "draw")[mover]
    batch, pdns = _play(egtb=True)
    assert np.all(batch.game_plies == 1)
    assert np.all(batch.game_result == mover)
    for pdn in pdns:
        assert f'[Database "{tag}"]' in pdn and '[Termination "database"]' in pdn
        assert "Adjudicated" not in pdn
    # the one recorded position (White to move, before 23x16) is taught the exact value
    white_value = {0: -1.0, 1: 1.0, 2: 0.0}[mover]
    assert np.all(batch.player == 1)
    assert np.all(batch.value == white_value)


def test_with_egtb_off_the_game_plays_on(built, egtb_folder, monkeypatch, from_start):
    monkeypatch.setenv("DRL_EGTB_DIR", str(egtb_folder))
    built("english", 3)
    batch, pdns = _play(egtb=False, games=2, max_plies=6)
    assert np.all(batch.game_plies > 1)
    assert not any("Database" in pdn for pdn in pdns)


def test_without_a_database_on_disk_self_play_is_unchanged(tmp_path, monkeypatch):
    monkeypatch.setenv("DRL_EGTB_DIR", str(tmp_path))  # an empty folder
    on, on_pdns = _play(egtb=True, games=3, max_plies=16)
    off, off_pdns = _play(egtb=False, games=3, max_plies=16)
    assert on_pdns == off_pdns
    np.testing.assert_array_equal(on.value, off.value)
    np.testing.assert_array_equal(on.policy, off.policy)
    np.testing.assert_array_equal(on.search_value, off.search_value)


def test_a_decided_win_waits_while_the_history_could_draw_it_by_repetition():
    hist = np.array([0, 5, 7, 5, 9, 11], np.int64)  # position 5 twice since ply 1
    assert not history_allows(hist, 5, 5, 3)  # threefold: the line could meet it again
    assert history_allows(hist, 5, 2, 3)  # a capture at ply 3 made them unreachable
    assert history_allows(hist, 5, 5, 0)  # no repetition draw
    assert history_allows(hist, 5, 5, 4)  # four occurrences needed: none three times
    assert not history_allows(hist, 5, 2, 2)  # twofold: any earlier position could
