"""Alpha-beta with the endgame database: exact values end its lines."""

from __future__ import annotations

import pytest

from drl.agents import make
from drl.agents._alphabeta import WIN, WIN_BOUND
from drl.rules.board import Board


@pytest.fixture
def english3(built, egtb_folder, monkeypatch):
    built("english", 3)
    monkeypatch.setenv("DRL_EGTB_DIR", str(egtb_folder))


def test_alphabeta_scores_database_positions_exactly(built, english3):
    board = Board("english", fen="B:WK30,K31:BK10")
    exact = built("english", 3).probe(board)
    assert exact is not None and exact.value == "loss" and exact.plies > 2
    agent = make("alphabeta:depth=2")
    agent.select_move(board)
    assert agent.last_score == -(WIN - exact.plies)
    plain = make("alphabeta:depth=2,egtb=false")
    plain.select_move(board)
    assert abs(plain.last_score) < WIN_BOUND  # two plies see no end without it


def test_a_counter_that_could_draw_first_keeps_the_search_going(english3):
    board = Board("english", fen="B:WK30,K31:BK10:H60")  # 40-move rule: 20 plies left
    agent = make("alphabeta:depth=2")
    agent.select_move(board)
    assert abs(agent.last_score) < WIN_BOUND


def test_database_draws_end_the_line(english3):
    board = Board("english", fen="W:WK1:BK32,K28")
    agent = make("alphabeta:depth=3")
    move = agent.select_move(board)
    assert move in board.legal_moves


def test_no_database_for_the_variant_is_no_error(english3):
    agent = make("alphabeta:depth=2")
    board = Board("give_and_take:role_swap_after_captures=2", fen="B:WK30,K31:BK4")
    assert agent.select_move(board) in board.legal_moves
