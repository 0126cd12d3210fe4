"""The game core's batch of games, :class:`~drl.game.batch.GameStates`: its checks, its
construction from boards, and its kernels against the single-game kernels."""

from __future__ import annotations

import numpy as np
import pytest

from drl.encode.actions import num_actions
from drl.encode.planes import N_CHANNELS
from drl.game import kernels as G
from drl.game.batch import GameStates
from drl.rules import Board
from drl.rules.core import MOVE_WIDTH, STATE_SIZE
from drl.rules.variant import PARAMS_SIZE


def _boards(seed: int = 0) -> list[Board]:
    """Boards of three variants a few random moves into their games."""
    rng = np.random.default_rng(seed)
    boards = []
    for spec, plies in [("english", 6), ("give_and_take", 9), ("english", 0)]:
        b = Board(spec)
        for _ in range(plies):
            moves = b.legal_moves
            b.push(moves[int(rng.integers(len(moves)))])
        boards.append(b)
    return boards


def test_zeros_has_the_documented_shapes_and_dtypes():
    g = GameStates.zeros(3, 7)
    assert len(g) == 3
    assert g.pos.shape == (3, G.POS_SIZE) and g.pos.dtype == np.int64
    assert g.params.shape == (3, PARAMS_SIZE) and g.params.dtype == np.int64
    assert g.hist.shape == (3, 7) and g.hist.dtype == np.int64
    assert not g.pos.any() and not g.params.any() and not g.hist.any()


@pytest.mark.parametrize(
    "field, bad, message",
    [
        ("pos", np.zeros((2, G.POS_SIZE), np.int32), "pos must be an int64 numpy array, got int32"),
        ("pos", [[0] * G.POS_SIZE] * 2, "pos must be an int64 numpy array, got list"),
        ("pos", np.zeros((2, G.POS_SIZE - 1), np.int64), r"pos must have shape \[\*, "),
        ("params", np.zeros((3, PARAMS_SIZE), np.int64), r"params must have shape \[2, 24\]"),
        (
            "params",
            np.zeros(PARAMS_SIZE, np.int64),
            r"params must have shape \[2, 24\], got \[24\]",
        ),
        ("hist", np.zeros((2,), np.int64), r"hist must have shape \[2, \*\]"),
        ("hist", np.zeros((2, 0), np.int64), "hist must have at least one entry"),
    ],
)
def test_mis_shaped_or_mis_typed_arrays_are_refused_naming_them(field, bad, message):
    good = GameStates.zeros(2, 5)
    arrays = {"pos": good.pos, "params": good.params, "hist": good.hist, field: bad}
    with pytest.raises(ValueError, match=message):
        GameStates(**arrays)


def test_zeros_refuses_bad_counts():
    with pytest.raises(ValueError, match="history >= 1"):
        GameStates.zeros(2, 0)
    with pytest.raises(ValueError, match="games >= 0"):
        GameStates.zeros(-1, 4)


def test_from_boards_starts_each_game_as_the_single_game_kernel_does():
    boards = _boards()
    games = GameStates.from_boards(boards)
    longest = max(len(b.history()) for b in boards)
    assert games.hist.shape == (3, longest + 1)  # room for the next move's position
    moves = G.move_buffer()
    for i, b in enumerate(boards):
        hist = np.zeros(longest + 1, np.int64)
        hist[: len(b.history())] = b.history()
        pos = G.new_pos()
        G.start(pos, np.asarray(b.state, np.int64), b.variant.params, moves, hist)
        np.testing.assert_array_equal(games.pos[i], pos)
        np.testing.assert_array_equal(games.params[i], b.variant.params)
        np.testing.assert_array_equal(games.hist[i], hist)
        assert games.pos[i, G.G_PLEN] == 0


def test_from_boards_refuses_a_finished_game_and_no_boards():
    over = Board("english", fen="W:W32:B")  # Black has no piece left
    assert over.outcome() is not None
    with pytest.raises(ValueError, match=r"the game is over in W:W32:B"):
        GameStates.from_boards([Board("english"), over])
    with pytest.raises(ValueError, match="no boards"):
        GameStates.from_boards([])


def test_the_batch_kernels_step_every_active_game_as_the_single_game_kernels():
    rng = np.random.default_rng(1)
    games = GameStates.from_boards(_boards(2))
    b, n = len(games), 8
    single = [(games.pos[i].copy(), games.hist[i].copy()) for i in range(b)]
    moves = G.move_buffer()
    count, one = np.zeros(b, np.int64), np.zeros(b, np.int64)
    played, result = np.zeros((b, MOVE_WIDTH), np.int64), np.zeros(b, np.int64)
    planes = np.zeros((b, N_CHANNELS, n, n), np.float32)
    active = np.array([True, True, False])
    frozen = games.pos[2].copy()
    for _ in range(12):
        games.legal_counts(active, count, one)
        games.observe(active, planes)
        actions = np.full(b, -1, np.int64)
        for i in np.flatnonzero(active):
            pos, hist = single[i]
            G.generate(pos, games.params[i], moves)
            mask = np.zeros(num_actions(n), np.int8)
            assert G.legal_mask(pos, games.params[i], moves, mask) == count[i]
            legal = np.flatnonzero(mask)
            assert one[i] == (legal[0] if len(legal) == 1 else -1)
            alone = np.zeros((N_CHANNELS, n, n), np.float32)
            G.observe(pos, games.params[i], -1, alone)
            np.testing.assert_array_equal(planes[i], alone)
            actions[i] = legal[int(rng.integers(len(legal)))]
            row = np.zeros(MOVE_WIDTH, np.int64)
            assert G.step(pos, games.params[i], moves, hist, actions[i], row) != G.STEP_ILLEGAL
        games.step(actions, active, played, result)
        for i in np.flatnonzero(active):
            np.testing.assert_array_equal(games.pos[i], single[i][0])
            np.testing.assert_array_equal(games.hist[i], single[i][1])
            assert result[i] in (G.STEP_IN_PROGRESS, G.STEP_MOVE_DONE)
        np.testing.assert_array_equal(games.pos[2], frozen)  # inactive: untouched
        active &= games.pos[:, G.G_CODE] == -1
    assert (games.pos[:2, STATE_SIZE:] != 0).any()  # the games moved on
