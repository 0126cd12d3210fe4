"""Step actions: one hop of a move as (from square, direction, distance).

A full move is a path of squares ``start, landing_1, ..., landing_k``. Each consecutive pair
is one **step**, written as ``(from, direction, distance)`` and numbered

    index = from * 4 * D + direction * D + (distance - 1),   D = board_size - 1,

so there are ``A = NSQ * 4 * D`` actions (896 on 8x8, 1800 on 10x10).

Coordinates are **mover-relative**: the board is seen by the player to move, turned by
180 degrees when that player is Black (whose men move down), so that the mover's men always
move "up". Turning the board maps square ``s`` to ``NSQ - 1 - s`` and direction ``d`` to
``3 - d`` (directions 0 up-left, 1 up-right, 2 down-left, 3 down-right). White's steps are
therefore numbered in absolute coordinates and Black's in turned ones; the same index means
"the same hop seen from the mover's chair" for both colours, which makes a policy over
these indices colour-symmetric. Converting needs only the colour to move, and the
conversion is its own inverse, so index <-> (from, to) round trips are exact.

The kernels here are ``@njit(cache=True)`` and take the variant parameter array
(``int64[PARAMS_SIZE]``, see docs/internals.md).
"""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
from numba import njit

from drl.rules.board import IllegalMoveError, as_color
from drl.rules.geometry import COL, RAY, RAY_LEN, ROW, size_index

if TYPE_CHECKING:
    from drl.rules.board import Board, Move

BLACK = 0
WHITE = 1

# Parameter slots used here (docs/internals.md, "Variant parameters").
_P_SIZE_IDX = 0
_P_BOARD_SIZE = 1
_P_NSQ = 2


def action_index(action: object) -> int:
    """A step action checked to be an integer, as a Python ``int``.

    Accepted: a Python ``int``, a numpy integer, or a one-element numpy integer array
    (what vectorised code hands over).

    Raises:
        ValueError: anything else -- floats (``595.7`` is not action 595), strings,
            booleans, ``None`` -- naming the value. The range is not checked here.
    """
    if isinstance(action, np.ndarray) and action.size == 1 and action.dtype.kind in "iu":
        return int(action.reshape(()))
    if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
        return int(action)
    raise ValueError(
        f"action must be an integer step index (int or numpy integer), got "
        f"{action!r} of type {type(action).__name__}"
    )


def _turn(turn: object) -> int:
    return int(as_color(turn))


def num_actions(board_size: int) -> int:
    """Number of step actions ``A = NSQ * 4 * (board_size - 1)``: 896 (8x8), 1800 (10x10).

    Raises:
        ValueError: if the board size is not 8 or 10.
    """
    size_index(board_size)
    return (board_size * board_size // 2) * 4 * (board_size - 1)


@njit(cache=True)
def orient_square(square: int, turn: int, nsq: int) -> int:
    """Absolute square <-> mover-relative square (the map is its own inverse).

    Black's view is the board turned by 180 degrees: ``s -> nsq - 1 - s``.
    """
    if turn == BLACK:
        return nsq - 1 - square
    return square


@njit(cache=True)
def orient_direction(direction: int, turn: int) -> int:
    """Absolute direction <-> mover-relative direction (its own inverse): Black ``d -> 3 - d``."""
    if turn == BLACK:
        return 3 - direction
    return direction


@njit(cache=True)
def step_index(from_sq: int, to_sq: int, turn: int, params: np.ndarray) -> int:
    """Action index of the hop ``from_sq -> to_sq`` (absolute 0-based squares).

    Args:
        from_sq: square the piece leaves.
        to_sq: square it lands on; must lie on a diagonal through ``from_sq``.
        turn: colour to move (0 black, 1 white); selects the mover-relative frame.
        params: ``int64[PARAMS_SIZE]`` variant parameters.

    Returns:
        The index in ``[0, A)``, or -1 if the two squares are not on one diagonal or
        either is off the board (not in ``0..NSQ-1``).
    """
    z = params[_P_SIZE_IDX]
    n = params[_P_BOARD_SIZE]
    nsq = params[_P_NSQ]
    if from_sq < 0 or from_sq >= nsq or to_sq < 0 or to_sq >= nsq:
        return -1
    dr = ROW[z, to_sq] - ROW[z, from_sq]
    dc = COL[z, to_sq] - COL[z, from_sq]
    dist = abs(dr)
    if dist == 0 or abs(dc) != dist:
        return -1
    direction = (2 if dr > 0 else 0) + (1 if dc > 0 else 0)
    rel_from = orient_square(from_sq, turn, nsq)
    rel_dir = orient_direction(direction, turn)
    d_max = n - 1
    return rel_from * 4 * d_max + rel_dir * d_max + (dist - 1)


@njit(cache=True)
def step_squares(index: int, turn: int, params: np.ndarray) -> tuple[int, int]:
    """Absolute ``(from_sq, to_sq)`` of an action index; ``(-1, -1)`` if it leaves the board.

    Args:
        index: action index in ``[0, A)``.
        turn: colour to move (0 black, 1 white).
        params: ``int64[PARAMS_SIZE]`` variant parameters.
    """
    z = params[_P_SIZE_IDX]
    n = params[_P_BOARD_SIZE]
    nsq = params[_P_NSQ]
    d_max = n - 1
    if index < 0 or index >= nsq * 4 * d_max:
        return -1, -1
    rel_from = index // (4 * d_max)
    rel_dir = (index // d_max) % 4
    dist = index % d_max + 1
    from_sq = orient_square(rel_from, turn, nsq)
    direction = orient_direction(rel_dir, turn)
    if dist > RAY_LEN[z, from_sq, direction]:
        return -1, -1
    return from_sq, RAY[z, from_sq, direction, dist - 1]


@njit(cache=True)
def path_step_index(move_row: np.ndarray, step: int, turn: int, params: np.ndarray) -> int:
    """Action index of step ``step`` (0-based) of a kernel move row (``int64[MOVE_WIDTH]``)."""
    # Move row layout: 0 from, 5.. landing squares (docs/internals.md, "Moves").
    if step == 0:
        a = move_row[0]
    else:
        a = move_row[5 + step - 1]
    return step_index(a, move_row[5 + step], turn, params)


class Step(NamedTuple):
    """One hop in absolute coordinates: the square left, the direction, the distance.

    ``direction`` is 0 up-left, 1 up-right, 2 down-left, 3 down-right (absolute, "up" is
    towards row 0); ``distance`` counts diagonal squares (1 for a man's quiet move, 2 for a
    man's jump, up to ``board_size - 1`` for a flying king).
    """

    from_square: int
    direction: int
    distance: int


def decode_action(index: int, turn: int, board_size: int) -> Step:
    """Absolute :class:`Step` of an action index.

    Args:
        index: action index in ``[0, A)``.
        turn: colour to move (0 black, 1 white).
        board_size: 8 or 10.

    Raises:
        ValueError: if the index is not an integer or out of range, the hop would leave
            the board, or ``turn`` is not a colour.
    """
    z = size_index(board_size)
    nsq = board_size * board_size // 2
    d_max = board_size - 1
    index = action_index(index)
    turn = _turn(turn)
    if not 0 <= index < nsq * 4 * d_max:
        raise ValueError(f"action {index} out of range 0..{nsq * 4 * d_max - 1}")
    rel_from, rest = divmod(index, 4 * d_max)
    rel_dir, dist0 = divmod(rest, d_max)
    from_sq = nsq - 1 - rel_from if turn == BLACK else rel_from
    direction = 3 - rel_dir if turn == BLACK else rel_dir
    if dist0 + 1 > RAY_LEN[z, from_sq, direction]:
        raise ValueError(
            f"action {index} leaves the board (square {from_sq + 1}, "
            f"direction {direction}, distance {dist0 + 1})"
        )
    return Step(from_sq, direction, dist0 + 1)


def encode_action(step: Step, turn: int, board_size: int) -> int:
    """Action index of an absolute :class:`Step`; the inverse of :func:`decode_action`.

    Raises:
        ValueError: if the step leaves the board, its fields are out of range or not
            integers, or ``turn`` is not a colour.
    """
    z = size_index(board_size)
    nsq = board_size * board_size // 2
    d_max = board_size - 1
    turn = _turn(turn)
    from_sq, direction, dist = (action_index(v) for v in step)
    if not (0 <= from_sq < nsq and 0 <= direction < 4 and 1 <= dist <= d_max):
        raise ValueError(f"step {tuple(step)} out of range on {board_size}x{board_size}")
    if dist > RAY_LEN[z, from_sq, direction]:
        raise ValueError(f"step {tuple(step)} leaves the {board_size}x{board_size} board")
    rel_from = nsq - 1 - from_sq if turn == BLACK else from_sq
    rel_dir = 3 - direction if turn == BLACK else direction
    return rel_from * 4 * d_max + rel_dir * d_max + dist - 1


def move_to_actions(move: Move, turn: int, params: np.ndarray) -> tuple[int, ...]:
    """Step action indices of a full move.

    Args:
        move: a :class:`~drl.rules.Move` (its ``path``: start square, then each landing).
        turn: colour making the move (``Color``, 0 black, 1 white).
        params: ``int64[PARAMS_SIZE]`` variant parameters.

    Returns:
        One index per step, in playing order.

    Raises:
        IllegalMoveError: (a ``ValueError``) a square of the path is off the board of
            ``params``, or two consecutive path squares are not on one diagonal.
        ValueError: ``turn`` is not a colour.
    """
    turn = int(as_color(turn))
    nsq = int(params[2])
    path = tuple(int(s) for s in move.path)
    for s in path:
        if not 0 <= s < nsq:
            raise IllegalMoveError(
                f"move {path}: square {s} (0-based) is off the board (0..{nsq - 1})"
            )
    out = []
    for a, b in pairwise(path):
        idx = step_index(a, b, turn, params)
        if idx < 0:
            raise IllegalMoveError(
                f"move {move}: squares {a + 1} and {b + 1} are not on a diagonal"
            )
        out.append(int(idx))
    return tuple(out)


def actions_to_move(actions: tuple[int, ...] | list[int], board: Board) -> Move:
    """The legal move of ``board`` played by a complete sequence of step actions.

    Args:
        actions: step action indices (mover's frame) of one whole move.
        board: the position before the move.

    Returns:
        The matching :class:`~drl.rules.Move` from ``board.legal_moves``.

    Raises:
        ValueError: if the steps are not integers, are illegal or stop before the move
            is complete.
    """
    actions = tuple(action_index(a) for a in actions)
    turn = int(board.turn)
    params = board.variant.params
    for move in board.legal_moves:
        if move_to_actions(move, turn, params) == actions:
            return move
    raise ValueError(f"step actions {list(actions)} are not a complete legal move of {board.fen()}")
