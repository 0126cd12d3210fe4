"""The envs' compiled game loop against the Board API, and doctests of the public modules."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import drl.encode
import drl.envs.pettingzoo
import drl.envs.vector
from drl.envs import StepGame
from drl.game import kernels as G
from drl.rules import Board, Variant
from drl.rules.pdn import read_games, replay


@pytest.mark.parametrize(
    "variant", ["english", "giveaway", "international", "give_and_take:role_swap_after_captures=3"]
)
def test_compiled_loop_agrees_with_the_board(variant):
    rng = np.random.default_rng(4)
    var = Variant.parse(variant)
    game = StepGame(var, ply_limit=1)  # tiny log: it must grow as the game goes on
    game.refresh()
    board = Board(var)
    while game.outcome is None and game.plies < 300:
        assert board.outcome() is None
        assert np.array_equal(game.state, board.state)
        legal = np.flatnonzero(game.mask)
        code = game.step(int(legal[rng.integers(len(legal))]))
        assert code in (G.STEP_IN_PROGRESS, G.STEP_MOVE_DONE)
        if code == G.STEP_MOVE_DONE:
            board.push(game.board.move_stack[-1])
            assert game.board.fen() == board.fen()
    assert game.outcome == board.outcome()
    # The PDN written from the move log replays to the same position.
    text = game.pdn({"Event": "test"}, "*" if game.outcome is None else game.outcome.result)
    assert replay(next(read_games(text))).fen() == board.fen()
    if game.outcome is not None:
        assert (
            game.step(int(np.flatnonzero(game.mask)[0]) if game.mask.any() else 0) == G.STEP_ILLEGAL
        )


def test_repetition_draw_is_detected_like_the_board():
    var = Variant.parse("english")
    fen = "B:WK32:BK1"
    game = StepGame(var, fen=fen)
    board = Board(var, fen=fen)
    for text in ["1-6", "32-27", "6-1", "27-32"] * 2:
        game.play_move(board.parse_move(text))
        board.push(text)
        assert game.outcome == board.outcome()
    assert game.outcome is not None and game.outcome.winner is None
    assert "FEN" in game.pdn()


@pytest.mark.parametrize("module", [drl.encode, drl.envs.pettingzoo, drl.envs.vector])
def test_docstring_examples(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
