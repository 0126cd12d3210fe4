"""Real games (../shared/data/games): every recorded move round-trips through step actions.

For each move: move -> steps -> indices (checked against the Python reference numbering),
each index legal in the mask at its step, and indices -> move gives the recorded move back.
"""

from __future__ import annotations

from itertools import islice

import numpy as np
import pytest

from drl.encode import actions_to_move, move_to_actions
from drl.game import StepState
from drl.rules import Board, IllegalMoveError
from drl.rules.pdn import read_games, variant_for_game
from tests.encode.encode_reference import ref_move_actions

# (folder, file, default variant for files without a GameType tag, games to sample)
SAMPLES = [
    ("english", "tinsley.pdn", "english", 6),
    ("english", "Tricks_traps_and_shots.pdn", "english", 6),
    ("russian", "World_Championship_1998.pdn", "russian", 6),
    ("brazilian", "pydraughts_test_variants_brazilian.pdn", "brazilian", 1),
    ("international", "dutch96h.pdn", "international", 4),
    ("international", "Cat.B1.pdn", "international", 6),
]


@pytest.mark.parametrize(
    "folder,name,default,count", SAMPLES, ids=[f"{f}/{n}" for f, n, _, _ in SAMPLES]
)
def test_recorded_moves_round_trip_through_step_actions(games_dir, folder, name, default, count):
    path = games_dir / folder / name
    if not path.exists():
        pytest.skip(f"{path} not available")
    checked = multi = 0
    for game in islice(read_games(path, strict=False), count):
        board = Board(variant_for_game(game, default), fen=game.fen)
        n = board.variant.board_size
        params = board.variant.params
        for text in game.moves:
            try:
                move = board.parse_move(text)
            except IllegalMoveError:
                break  # a record the rules do not accept is the rules tests' business
            turn = int(board.turn)
            actions = move_to_actions(move, turn, params)
            assert actions == ref_move_actions(move, turn, n)
            state = StepState.from_board(board)
            for k, a in enumerate(actions):
                assert state.action_mask()[a], f"{game.name}: step {k} of {text} not in mask"
                state, row = state.push(a)
                assert (row is None) == (k < len(actions) - 1)
            again = actions_to_move(actions, board)
            assert again == move and again.path == move.path
            board.push(move)
            assert np.array_equal(state.state, board.state)
            checked += 1
            multi += len(actions) > 1
    assert checked > 0
    if folder in ("international", "russian"):
        assert multi > 0, "the sample should contain multi-jumps"
