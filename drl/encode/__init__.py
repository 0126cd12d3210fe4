"""Observation planes and step actions shared by the envs, the search and the networks.

A move is played as a sequence of **steps** (one per hop of a multi-jump), each an index in
``[0, A)`` with ``A = NSQ * 4 * (board_size - 1)`` (896 on 8x8, 1800 on 10x10), numbered
in the mover's frame (:mod:`drl.encode.actions`). Observations are ``float32[C, n, n]``
planes from the mover's view (:mod:`drl.encode.planes`); masks mark the legal steps,
continuations of full legal moves only (:mod:`drl.encode.mask`). The public API is listed
in ``docs/internals.md`` ("Encoder").

>>> from drl.rules import Board
>>> from drl.encode import move_to_actions
>>> board = Board("english")
>>> move_to_actions(board.legal_moves[0], board.turn, board.variant.params)
(651,)

A position in step space, played step by step, is the game core's (:mod:`drl.game`).
"""

from drl.encode.actions import (
    Step,
    action_index,
    actions_to_move,
    decode_action,
    encode_action,
    move_to_actions,
    num_actions,
    path_step_index,
    step_index,
    step_squares,
)
from drl.encode.dims import Encoding, encoding
from drl.encode.mask import (
    ILLEGAL,
    IN_PROGRESS,
    MAX_STEPS,
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

__all__ = [
    "CHANNEL_NAMES",
    "Encoding",
    "ILLEGAL",
    "IN_PROGRESS",
    "MAX_STEPS",
    "N_CHANNELS",
    "Step",
    "action_index",
    "actions_to_move",
    "decode_action",
    "encode_action",
    "encode_batch",
    "encode_planes",
    "encode_planes_as",
    "encoding",
    "mask_from_moves",
    "move_to_actions",
    "num_actions",
    "path_step_index",
    "step_index",
    "step_outcome",
    "step_squares",
]
