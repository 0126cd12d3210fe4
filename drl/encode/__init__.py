"""Observation planes and step actions shared by the envs, the search and the networks.

A move is played as a sequence of **steps** (one per hop of a multi-jump), each an index in
``[0, A)`` with ``A = NSQ * 4 * (board_size - 1)`` (896 on 8x8, 1800 on 10x10), numbered
in the mover's frame (:mod:`drl.encode.actions`). Observations are ``float32[C, n, n]``
planes from the mover's view (:mod:`drl.encode.planes`); masks mark the legal steps,
continuations of full legal moves only (:mod:`drl.encode.mask`). The public API is listed
in ``docs/internals.md`` ("Encoder").

>>> from drl.rules import Board
>>> from drl.encode import StepState, move_to_actions
>>> board = Board("english")
>>> s = StepState.from_board(board)
>>> s.observation().shape, s.action_mask().sum()
((22, 8, 8), np.int64(7))
"""

from drl.encode.actions import (
    Step,
    action_index,
    decode_action,
    encode_action,
    num_actions,
    path_step_index,
    step_index,
    step_squares,
)
from drl.encode.mask import (
    ILLEGAL,
    IN_PROGRESS,
    MAX_STEPS,
    apply_step,
    legal_step_mask,
    legal_step_mask_batch,
    mask_from_moves,
    step_outcome,
)
from drl.encode.planes import (
    CHANNEL_NAMES,
    N_CHANNELS,
    encode_batch,
    encode_planes,
    encode_planes_as,
)
from drl.encode.step_state import StepState, actions_to_move, move_to_actions

__all__ = [
    "CHANNEL_NAMES",
    "ILLEGAL",
    "IN_PROGRESS",
    "MAX_STEPS",
    "N_CHANNELS",
    "Step",
    "StepState",
    "action_index",
    "actions_to_move",
    "apply_step",
    "decode_action",
    "encode_action",
    "encode_batch",
    "encode_planes",
    "encode_planes_as",
    "legal_step_mask",
    "legal_step_mask_batch",
    "mask_from_moves",
    "move_to_actions",
    "num_actions",
    "path_step_index",
    "step_index",
    "step_outcome",
    "step_squares",
]
