"""Legal-step masks: continuations of full legal moves, checked against a Python reference."""

from __future__ import annotations

import json

import numpy as np
import pytest

from drl.encode import (
    ILLEGAL,
    IN_PROGRESS,
    MAX_STEPS,
    actions_to_move,
    move_to_actions,
    num_actions,
    step_outcome,
)
from drl.game import StepState
from drl.game import kernels as G
from drl.rules import Board
from drl.rules.core import apply_move
from tests.encode.encode_reference import ref_legal_steps, ref_move_actions

VARIANTS = [
    "english",
    "russian",
    "brazilian",
    "international",
    "giveaway",
    "losing",
    "give_and_take",
    "give_and_take:max_capture=true,board_size=10",
    "give_and_take:promotion_mid_capture=continue_as_king,objectives=give/give",
]


def _random_positions(variant: str, seed: int, plies: int = 60):
    """Boards along one random game (captures preferred, to reach multi-jumps)."""
    rng = np.random.default_rng(seed)
    board = Board(variant)
    out = []
    for _ in range(plies):
        moves = board.legal_moves
        if not moves or board.is_game_over():
            break
        out.append(board.copy())
        board.push(moves[int(rng.integers(len(moves)))])
    return out


def _prefix(steps) -> np.ndarray:
    arr = np.zeros(MAX_STEPS, dtype=np.int64)
    arr[: len(steps)] = steps
    return arr


@pytest.mark.parametrize("variant", VARIANTS)
def test_masks_match_the_reference_at_every_prefix(variant):
    multi = 0
    for board in _random_positions(variant, seed=7):
        n = board.variant.board_size
        turn = int(board.turn)
        params = board.variant.params
        state = StepState.from_board(board)
        seqs = {}
        for move in board.legal_moves:
            seq = ref_move_actions(move, turn, n)
            assert move_to_actions(move, turn, params) == seq
            seqs[seq] = move
        # Distinct legal moves get distinct step sequences (no two moves share one).
        assert len(seqs) == len(board.legal_moves)
        prefixes = {seq[:k] for seq in seqs for k in range(len(seq))}
        for prefix in prefixes:
            expected = ref_legal_steps(board, prefix)
            mask = np.zeros(num_actions(n), dtype=np.bool_)
            count = G.legal_mask_of(board.state, params, _prefix(prefix), len(prefix), mask)
            assert set(np.flatnonzero(mask)) == expected
            assert count == len(expected)
            if prefix:
                multi += 1
                assert (
                    step_outcome(
                        state.moves, len(state.moves), turn, params, _prefix(prefix), len(prefix)
                    )
                    == IN_PROGRESS
                )
        for seq, move in seqs.items():
            k = step_outcome(state.moves, len(state.moves), turn, params, _prefix(seq), len(seq))
            assert k >= 0 and tuple(state.moves[k][:2]) == (move.start, move.end)
            assert actions_to_move(seq, board) == move
    if variant in ("giveaway", "losing"):
        assert multi > 0, "the playout should have reached a multi-jump"


def test_case_031_only_the_continuation_is_legal_mid_capture(cases_dir):
    case = json.loads(next(cases_dir.glob("031-*.json")).read_text())
    board = Board(case["variant"]["name"], fen=case["fen"])
    exp = case["expected"]
    state = StepState.from_board(board)

    def texts(s: StepState) -> set[str]:
        return {s.step_text(a) for a in s.legal_actions()}

    assert texts(state) == set(exp["legal_first_steps"])
    first = _action_for(state, "28x19")
    mid, row = state.push(first)
    assert row is None
    assert "WB"[1 - mid.turn] == exp["after_step_28x19"]["side_to_move"]
    assert texts(mid) == set(exp["after_step_28x19"]["legal_steps"])
    for text in exp["masked_out_examples"]:
        a, b = (int(t) - 1 for t in text.replace("x", "-").split("-"))
        from drl.encode import step_index

        idx = int(step_index(a, b, mid.turn, board.variant.params))
        assert not mid.action_mask()[idx]
        assert not state.action_mask()[idx]
    end, row = mid.push(_action_for(mid, "19x10"))
    assert row is not None
    assert "WB"[1 - end.turn] == exp["after_step_19x10"]["side_to_move"]
    assert end.prefix == ()


def _action_for(state: StepState, text: str) -> int:
    for a in state.legal_actions():
        if state.step_text(a) == text:
            return int(a)
    raise AssertionError(f"{text} not among the legal steps")


def test_illegal_steps_are_refused():
    board = Board("english", fen="W:W21,K28:B15,17,24")
    state = StepState.from_board(board)
    quiet = _quiet_index(board)
    assert (
        step_outcome(
            state.moves, len(state.moves), state.turn, board.variant.params, _prefix((quiet,)), 1
        )
        == ILLEGAL
    )
    mask = np.ones(896, dtype=np.int8)
    assert G.legal_mask_of(board.state, board.variant.params, _prefix((quiet,)), 1, mask) == 0
    assert not mask.any()
    with pytest.raises(ValueError, match=r"not legal.*legal steps: .*21x14"):
        state.push(quiet)
    pos, moves = G.new_pos(), G.move_buffer()
    G.start(pos, board.state, board.variant.params, moves, np.zeros(1, np.int64))
    before = pos.copy()
    played = np.zeros(32, np.int64)
    assert (
        G.step(pos, board.variant.params, moves, np.zeros(1, np.int64), quiet, played)
        == G.STEP_ILLEGAL
    )
    assert np.array_equal(pos, before)


def _quiet_index(board: Board) -> int:
    from drl.encode import step_index

    return int(step_index(27, 31, int(board.turn), board.variant.params))  # K28-32


@pytest.mark.parametrize("variant", ["giveaway", "international"])
def test_game_core_plays_moves_hop_by_hop(variant):
    for board in _random_positions(variant, seed=3, plies=40):
        params = board.variant.params
        for move in board.legal_moves[:4]:
            seq = move_to_actions(move, int(board.turn), params)
            pos, moves = G.new_pos(), G.move_buffer()
            hist = np.zeros(int(board.state[9]) + 2, np.int64)
            G.start(pos, board.state, params, moves, hist)
            played = np.zeros(32, np.int64)
            for i, a in enumerate(seq):
                done = G.step(pos, params, moves, hist, a, played)
                if i < len(seq) - 1:
                    assert done == G.STEP_IN_PROGRESS and pos[G.G_PLEN] == i + 1
                    assert np.array_equal(pos[:12], board.state)
            assert done == G.STEP_MOVE_DONE and pos[G.G_PLEN] == 0
            assert np.array_equal(pos[:12], apply_move(board.state, params, move.row))


def test_batched_masks_equal_single_masks():
    boards = _random_positions("giveaway", seed=11, plies=50)
    items = []
    for board in boards:
        for move in board.legal_moves[:2]:
            seq = move_to_actions(move, int(board.turn), board.variant.params)
            for k in range(len(seq)):
                items.append((board, seq[:k]))
    params = boards[0].variant.params
    states = np.stack([b.state for b, _ in items])
    prefixes = np.stack([_prefix(p) for _, p in items])
    lens = np.array([len(p) for _, p in items], dtype=np.int64)
    masks = np.zeros((len(items), 896), dtype=np.int8)
    counts = G.legal_masks_batch(states, params, prefixes, lens, masks)
    for i, (board, prefix) in enumerate(items):
        single = np.zeros(896, dtype=np.int8)
        assert counts[i] == G.legal_mask_of(
            board.state, params, _prefix(prefix), len(prefix), single
        )
        assert np.array_equal(masks[i], single)
        assert set(np.flatnonzero(single)) == ref_legal_steps(board, prefix)
    assert lens.max() > 0
