"""Observation planes: orientation, pieces, the move in progress, constants, counters."""

from __future__ import annotations

import numpy as np
import pytest

from drl.encode import MAX_STEPS, N_CHANNELS, encode_batch, step_index
from drl.encode import planes as P
from drl.game import StepState
from drl.rules import Board
from drl.rules.geometry import square_to_rowcol
from tests.encode.encode_reference import swapped_fen


def _cell(square_1based: int, n: int, viewer: int) -> tuple[int, int]:
    r, c = square_to_rowcol(square_1based - 1, n)
    return (n - 1 - r, n - 1 - c) if viewer == 0 else (r, c)


@pytest.mark.parametrize("variant,men", [("english", 12), ("international", 20)])
def test_start_position_mover_sees_own_men_at_the_bottom(variant, men):
    board = Board(variant)
    n = board.variant.board_size
    rows = board.variant.rows_of_men
    for i in range(2):  # first mover, then the other side after one move
        obs = StepState.from_board(board).observation()
        assert obs.shape == (N_CHANNELS, n, n) and obs.dtype == np.float32
        assert obs[P.CH_OWN_MEN].sum() == men and obs[P.CH_OPP_MEN].sum() == men
        assert obs[P.CH_OWN_MEN, n - rows :].sum() == men  # bottom rows
        assert obs[P.CH_OPP_MEN, : rows + i].sum() == men  # top rows (+1 after a move)
        assert obs[P.CH_TO_MOVE].min() == 1.0
        assert obs[[P.CH_OWN_KINGS, P.CH_OPP_KINGS, P.CH_CAPTURED, P.CH_JUMPER]].sum() == 0
        board.push(board.legal_moves[0])


@pytest.mark.parametrize("variant", ["russian", "international", "giveaway"])
def test_planes_do_not_depend_on_the_colour_of_the_mover(variant):
    # The same position seen from the other chair (turned, colours exchanged) must give
    # identical planes and masks: the encoding is colour-symmetric.
    rng = np.random.default_rng(5)
    board = Board(variant)
    checked = 0
    for _ in range(50):
        if board.is_game_over():
            break
        mirror = Board(variant, fen=swapped_fen(board))
        a, b = StepState.from_board(board), StepState.from_board(mirror)
        assert a.turn != b.turn
        assert np.array_equal(
            a.observation()[: P.CH_TO_MOVE + 1], b.observation()[: P.CH_TO_MOVE + 1]
        )
        nsq = board.variant.params[2]
        turned = {tuple(int(nsq - 1 - s) for s in m.path) for m in board.legal_moves}
        if turned == {m.path for m in mirror.legal_moves}:
            assert np.array_equal(a.action_mask(), b.action_mask())
            checked += 1
        else:
            # Two capture paths with the same start, end and captured pieces are one move;
            # the rules keep one path, and which one may depend on the orientation.
            keys = {
                (
                    int(nsq - 1 - m.start),
                    int(nsq - 1 - m.end),
                    frozenset(int(nsq - 1 - c) for c in m.captures),
                )
                for m in board.legal_moves
            }
            assert keys == {(m.start, m.end, frozenset(m.captures)) for m in mirror.legal_moves}
        moves = board.legal_moves
        board.push(moves[int(rng.integers(len(moves)))])
    assert checked > 10


def test_viewer_other_than_the_mover_sees_its_own_pieces():
    board = Board("english", fen="B:W21,K28:B5,K9")
    state = StepState.from_board(board)
    white_view = state.observation(viewer=1)
    assert white_view[P.CH_OWN_MEN][_cell(21, 8, 1)] == 1
    assert white_view[P.CH_OWN_KINGS][_cell(28, 8, 1)] == 1
    assert white_view[P.CH_OPP_KINGS][_cell(9, 8, 1)] == 1
    assert white_view[P.CH_TO_MOVE].max() == 0
    black_view = state.observation()
    assert black_view[P.CH_OWN_MEN][_cell(5, 8, 0)] == 1
    assert black_view[P.CH_OPP_KINGS][_cell(28, 8, 0)] == 1


def test_move_in_progress_shows_the_jumper_and_the_jumped_piece():
    # Rule case 031: White king 28 jumps 24, landing on 19, and must go on over 15.
    board = Board("english", fen="W:W21,K28:B15,17,24")
    state = StepState.from_board(board)
    mid, _ = state.push(int(step_index(27, 18, 1, board.variant.params)))
    obs = mid.observation()
    assert obs[P.CH_JUMPER][_cell(19, 8, 1)] == 1 and obs[P.CH_JUMPER].sum() == 1
    assert obs[P.CH_OWN_KINGS][_cell(19, 8, 1)] == 1
    assert obs[P.CH_OWN_KINGS][_cell(28, 8, 1)] == 0
    assert obs[P.CH_CAPTURED][_cell(24, 8, 1)] == 1 and obs[P.CH_CAPTURED].sum() == 1
    # The jumped piece stays on the board until the move ends (Turkish strike).
    assert obs[P.CH_OPP_MEN][_cell(24, 8, 1)] == 1
    assert obs[P.CH_OWN_MEN][_cell(21, 8, 1)] == 1


def test_man_crowned_mid_capture_is_shown_as_king_only_when_it_goes_on_as_king():
    # White man 11 jumps 7, lands on 2 (its crowning row) and can go on over 6: in Russian
    # as a king, in Brazilian as a man (men capture backwards there).
    fen = "W:W11:B7,6,K20"
    for variant, king in (("russian", True), ("brazilian", False)):
        board = Board(variant, fen=fen)
        state = StepState.from_board(board)
        first = int(step_index(10, 1, 1, board.variant.params))
        assert state.action_mask()[first]
        mid, row = state.push(first)
        assert row is None, "the capture must go on after reaching the crowning row"
        obs = mid.observation()
        cell = _cell(2, 8, 1)
        assert obs[P.CH_OWN_KINGS][cell] == float(king)
        assert obs[P.CH_OWN_MEN][cell] == float(not king)


def test_objective_planes_follow_the_roles_in_give_and_take():
    board = Board("give_and_take")  # Black takes, White gives
    obs = StepState.from_board(board).observation()
    assert obs[P.CH_OWN_GIVE].max() == 0 and obs[P.CH_OPP_GIVE].min() == 1
    board.push(board.legal_moves[0])
    obs = StepState.from_board(board).observation()
    assert obs[P.CH_OWN_GIVE].min() == 1 and obs[P.CH_OPP_GIVE].max() == 0


def test_rule_flag_planes():
    flags = (
        P.CH_MEN_BACK,
        P.CH_FLYING,
        P.CH_MAX_CAPTURE,
        P.CH_PROMO_AS_MAN,
        P.CH_PROMO_AS_KING,
        P.CH_PROMO_REMOVE,
        P.CH_BLOCKED_GIVER,
        P.CH_TAKER_BLOCKED,
        P.CH_ELIM_GIVER,
    )

    def values(variant):
        obs = StepState.from_board(Board(variant)).observation()
        return tuple(int(obs[ch].mean()) for ch in flags)

    assert values("english") == (0, 0, 0, 0, 0, 0, 0, 0, 0)
    assert values("international") == (1, 1, 1, 1, 0, 0, 0, 0, 0)
    assert values("russian") == (1, 1, 0, 0, 1, 0, 0, 0, 0)
    assert values(
        "give_and_take:promotion=remove,blocked_giver=loses,taker_blocked=draw,"
        "elimination_winner=giver"
    ) == (0, 0, 0, 0, 0, 1, 1, 1, 1)


def test_no_progress_and_repetition_counters():
    # English: 80 plies without capture or man move draw (seed 003, 40 moves each).
    board = Board("english", fen="B:WK32:BK1")
    shuttle = ["1-6", "32-27", "6-1", "27-32"]
    seen = []
    for text in shuttle * 2:
        obs = StepState.from_board(board, repetitions=board.repetitions() - 1).observation()
        seen.append((obs[P.CH_NO_PROGRESS].mean(), obs[P.CH_REPETITION].mean()))
        board.push(text)
    noprog = [round(float(v) * 80) for v, _ in seen]
    assert noprog == list(range(8))
    reps = [float(r) for _, r in seen]
    assert reps == [0.0] * 4 + [0.5] * 4  # second occurrence: 1 / (3 - 1)


def test_batched_planes_equal_single_planes():
    rng = np.random.default_rng(2)
    board = Board("brazilian")
    items = []
    for _ in range(30):
        if board.is_game_over():
            break
        s = StepState.from_board(board)
        move = board.legal_moves[0]
        from drl.encode import move_to_actions

        seq = move_to_actions(move, s.turn, board.variant.params)
        items.append((s, seq[: len(seq) - 1]))
        moves = board.legal_moves
        board.push(moves[int(rng.integers(len(moves)))])
    params = board.variant.params
    states = np.stack([s.state for s, _ in items])
    prefixes = np.zeros((len(items), MAX_STEPS), dtype=np.int64)
    lens = np.zeros(len(items), dtype=np.int64)
    for i, (_, p) in enumerate(items):
        prefixes[i, : len(p)] = p
        lens[i] = len(p)
    reps = np.arange(len(items), dtype=np.int64) % 3
    out = np.zeros((len(items), N_CHANNELS, 8, 8), dtype=np.float32)
    encode_batch(states, params, prefixes, lens, reps, out)
    for i, (s, p) in enumerate(items):
        single = StepState(s.state, params, tuple(p), int(reps[i])).observation()
        assert np.array_equal(out[i], single)
