"""The compiled step game: a game played one step (one hop of a move) at a time.

Every consumer that plays a game step by step (the envs, the vector env, the PettingZoo
env, the search's in-tree game, self-play, the network agent, the arena) goes through
these kernels; nothing else applies a step, builds a legal-step mask, counts repetitions
or decides the end of a game.

A game position in step space is one ``int64[POS_SIZE]`` array, ``pos``:

==========================================  ===============================================
``pos[:STATE_SIZE]``                        the game state after the completed moves
                                            (``drl.rules.core`` layout, ``ST_*``)
``pos[G_PREFIX:G_PREFIX + MAX_STEPS]``      step actions of the move in progress
``pos[G_PLEN]``                             steps played in the move in progress
``pos[G_REPS]``                             earlier occurrences of the position
                                            (``drl.rules.core.count_repetitions``)
``pos[G_NMOVES]``                           legal moves of the state
``pos[G_CODE]``                             result code: ``ONGOING`` (-1) or
                                            ``termination * 4 + winner`` (2 = draw)
==========================================  ===============================================

Beside it the caller keeps two buffers:

- ``moves`` ``int64[MAX_MOVES, MOVE_WIDTH]``: the legal move rows of the state; the
  kernels below keep it in step with ``pos`` (refill it with :func:`generate` when the
  buffer was used for another position);
- ``hist`` ``int64[cap]``: the game's position hashes by ply, the one history
  representation of drl (``hist[p]`` = Zobrist hash of the position at ply ``p``,
  ``ST_PLY``); :func:`start` and every completed move write the entry of the new position.
  A search writes the positions of its current path into the same array.

The end of the game is ``drl.rules.core.end_code`` (the win/loss rules of
``docs/rules.md`` "Win, loss and draw", the variant's no-progress and endgame rules,
then the repetition draw); decode it with ``drl.rules.Outcome.from_code`` or
:func:`value`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from drl.encode.mask import (
    ILLEGAL,
    IN_PROGRESS,
    MAX_STEPS,
    legal_steps,
    mask_from_moves,
    step_outcome,
)
from drl.encode.planes import encode_planes_as
from drl.rules.core import (
    MAX_MOVES,
    MOVE_WIDTH,
    ONGOING,
    ST_HASH,
    ST_PLY,
    ST_TURN,
    STATE_SIZE,
    apply_move_into,
    code_value,
    count_repetitions,
    end_code,
    generate_moves,
)

__all__ = [
    "G_PREFIX",
    "G_PLEN",
    "G_REPS",
    "G_NMOVES",
    "G_CODE",
    "POS_SIZE",
    "MAX_STEPS",
    "STEP_ILLEGAL",
    "STEP_IN_PROGRESS",
    "STEP_MOVE_DONE",
    "new_pos",
    "move_buffer",
    "start",
    "generate",
    "step",
    "play_row",
    "legal_mask",
    "legal_step_list",
    "observe",
    "value",
    "is_over",
    "truncated",
    "record",
    "random_index",
    "play_random",
    "set_repetitions",
    "legal_mask_of",
    "legal_masks_batch",
]

G_PREFIX = STATE_SIZE
G_PLEN = G_PREFIX + MAX_STEPS
G_REPS = G_PLEN + 1
G_NMOVES = G_REPS + 1
G_CODE = G_NMOVES + 1
POS_SIZE = G_CODE + 1

STEP_ILLEGAL = -1
"""Return code of :func:`step`: the step is not legal; nothing changed."""
STEP_IN_PROGRESS = 0
"""Return code of :func:`step`: the move goes on (same player to move)."""
STEP_MOVE_DONE = 1
"""Return code of :func:`step`: the step completed a move."""


def new_pos() -> np.ndarray:
    """A zeroed position array ``int64[POS_SIZE]`` (fill it with :func:`start`)."""
    return np.zeros(POS_SIZE, dtype=np.int64)


def move_buffer() -> np.ndarray:
    """A move buffer ``int64[MAX_MOVES, MOVE_WIDTH]``."""
    return np.zeros((MAX_MOVES, MOVE_WIDTH), dtype=np.int64)


@njit(cache=True, inline="always")
def record(pos, hist):
    """Write the position's hash into ``hist`` at its ply (``hist[ST_PLY] = ST_HASH``).

    Only positions at a move boundary belong in the history; a search calls this for
    every move-boundary node on its path so that :func:`step` counts repetitions along
    the path.
    """
    ply = pos[ST_PLY]
    if ply < hist.shape[0]:
        hist[ply] = pos[ST_HASH]


@njit(cache=True)
def _enter(pos, params, moves, hist):
    """A move boundary was reached: legal moves, repetitions, history entry, result."""
    state = pos[:STATE_SIZE]
    n = generate_moves(state, params, moves)
    reps = count_repetitions(hist, state)
    record(pos, hist)
    pos[G_PLEN] = 0
    pos[G_NMOVES] = n
    pos[G_REPS] = reps
    pos[G_CODE] = end_code(state, params, n, reps)


@njit(cache=True)
def start(pos, state, params, moves, hist):
    """Set ``pos`` to ``state`` at the start of a move and enter it into the game.

    Args:
        pos: ``int64[POS_SIZE]``, overwritten.
        state: ``int64[STATE_SIZE]`` game state (its ``ST_PLY`` indexes ``hist``).
        params: ``int64[PARAMS_SIZE]`` (``Variant.params``).
        moves: ``int64[MAX_MOVES, MOVE_WIDTH]``, overwritten with the legal moves.
        hist: ``int64[> ply]`` position hashes by ply; entries of the plies before
            ``state`` that can still repeat must be filled by the caller (0 = unknown);
            ``hist[ply]`` is written.
    """
    for j in range(STATE_SIZE):
        pos[j] = state[j]
    for j in range(MAX_STEPS):
        pos[G_PREFIX + j] = 0
    _enter(pos, params, moves, hist)


@njit(cache=True)
def set_repetitions(pos, params, earlier):
    """Set the earlier occurrences of a move-boundary position and recompute its result code.

    For a position known from elsewhere, given without its history.
    """
    pos[G_REPS] = earlier
    pos[G_CODE] = end_code(pos[:STATE_SIZE], params, pos[G_NMOVES], earlier)


@njit(cache=True)
def generate(pos, params, moves):
    """Refill ``moves`` with the legal moves of ``pos``'s state; returns their number."""
    n = generate_moves(pos[:STATE_SIZE], params, moves)
    pos[G_NMOVES] = n
    return n


@njit(cache=True)
def play_row(pos, params, moves, hist, k, played):
    """Play the legal move ``moves[k]`` as a whole move (a move in progress is dropped).

    Args:
        pos: ``int64[POS_SIZE]`` at a move boundary, updated.
        params: ``int64[PARAMS_SIZE]`` (``Variant.params``).
        moves: ``int64[MAX_MOVES, MOVE_WIDTH]``, the legal moves of ``pos``; refilled with
            those of the new position.
        hist: ``int64[> ply]`` position hashes by ply (see :func:`start`); the new
            position's entry is written.
        k: row index, ``0 <= k < pos[G_NMOVES]`` (not checked).
        played: ``int64[MOVE_WIDTH]``, receives the row played.
    """
    for j in range(MOVE_WIDTH):
        played[j] = moves[k, j]
    state = pos[:STATE_SIZE]
    apply_move_into(state, params, played, state)
    for j in range(MAX_STEPS):
        pos[G_PREFIX + j] = 0
    _enter(pos, params, moves, hist)


@njit(cache=True)
def step(pos, params, moves, hist, action, played):
    """Play one step action of the player to move.

    Args:
        pos: ``int64[POS_SIZE]``, updated.
        params: ``int64[PARAMS_SIZE]`` (``Variant.params``).
        moves: ``int64[MAX_MOVES, MOVE_WIDTH]``, the legal moves of ``pos``; refilled when
            the move completes.
        hist: ``int64[> ply]`` position hashes by ply, as in :func:`play_row`.
        action: step action index (``drl.encode.actions``).
        played: ``int64[MOVE_WIDTH]``, receives the completed move's row.

    Returns:
        ``STEP_ILLEGAL`` (the game is over, or no legal move goes on with this step;
        nothing changed), ``STEP_IN_PROGRESS`` or ``STEP_MOVE_DONE``.
    """
    plen = pos[G_PLEN]
    if pos[G_CODE] != ONGOING or plen >= MAX_STEPS:
        return STEP_ILLEGAL
    prefix = pos[G_PREFIX : G_PREFIX + MAX_STEPS]
    old = prefix[plen]
    prefix[plen] = action
    k = step_outcome(moves, pos[G_NMOVES], pos[ST_TURN], params, prefix, plen + 1)
    if k == ILLEGAL:
        prefix[plen] = old
        return STEP_ILLEGAL
    if k == IN_PROGRESS:
        pos[G_PLEN] = plen + 1
        return STEP_IN_PROGRESS
    play_row(pos, params, moves, hist, k, played)
    return STEP_MOVE_DONE


@njit(cache=True)
def legal_mask(pos, params, moves, out):
    """Write the legal-step mask of ``pos`` into ``out`` (``bool[A]`` or ``int8[A]``).

    Returns the number of legal steps (0, and an all-zero mask, once the game is over).
    """
    if pos[G_CODE] != ONGOING:
        out[:] = 0
        return 0
    return mask_from_moves(
        moves,
        pos[G_NMOVES],
        pos[ST_TURN],
        params,
        pos[G_PREFIX : G_PREFIX + MAX_STEPS],
        pos[G_PLEN],
        out,
    )


@njit(cache=True)
def legal_step_list(pos, params, moves, out):
    """Write the legal steps of ``pos`` in increasing order into ``out``.

    ``out`` is ``int64[>= G_NMOVES]``. Returns the number of steps written (0 once the game
    is over). The list form of :func:`legal_mask`.
    """
    if pos[G_CODE] != ONGOING:
        return 0
    return legal_steps(
        moves,
        pos[G_NMOVES],
        pos[ST_TURN],
        params,
        pos[G_PREFIX : G_PREFIX + MAX_STEPS],
        pos[G_PLEN],
        out,
    )


@njit(cache=True)
def observe(pos, params, viewer, out):
    """Write the observation planes ``float32[N_CHANNELS, n, n]`` of ``pos`` to ``out``.

    Seen from ``viewer``: 0 black, 1 white, -1 the player to move.
    """
    who = pos[ST_TURN] if viewer < 0 else viewer
    encode_planes_as(
        pos[:STATE_SIZE],
        params,
        pos[G_PREFIX : G_PREFIX + MAX_STEPS],
        pos[G_PLEN],
        pos[G_REPS],
        who,
        out,
    )


@njit(cache=True, inline="always")
def value(pos, player):
    """Result from ``player``'s view (0 black, 1 white): +1 win, -1 loss, 0 draw or going on."""
    return code_value(pos[G_CODE], player)


@njit(cache=True, inline="always")
def is_over(pos):
    """True once the game is over by rule."""
    return pos[G_CODE] != ONGOING


@njit(cache=True, inline="always")
def truncated(pos, max_plies):
    """True when a training cap of ``max_plies`` (> 0) ends a game not over by rule.

    The cap applies at a move boundary; such a game is reported as truncated, never as a
    draw.
    """
    return (
        max_plies > 0 and pos[G_CODE] == ONGOING and pos[G_PLEN] == 0 and pos[ST_PLY] >= max_plies
    )


@njit(cache=True)
def random_index(rng, n):
    """Uniform integer in ``0..n-1`` from a splitmix64 generator.

    ``rng`` is the generator's state, ``uint64[1]``, advanced in place.
    """
    x = rng[0] + np.uint64(0x9E3779B97F4A7C15)
    rng[0] = x
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    x = x ^ (x >> np.uint64(31))
    return np.int64(x % np.uint64(n))


@njit(cache=True)
def play_random(pos, params, moves, hist, rng, played):
    """Play one uniformly random legal move as a whole move; returns its row index.

    ``played`` receives the row. The game must not be over.
    """
    k = random_index(rng, pos[G_NMOVES])
    play_row(pos, params, moves, hist, k, played)
    return k


# ------------------------------------------------------------ masks of bare positions


@njit(cache=True)
def legal_mask_of(state, params, prefix, prefix_len, out):
    """Legal-step mask of a position given as ``(state, prefix[:prefix_len])``.

    The position has no game around it and no history: a position that is over only by
    repetition still shows its steps.

    Args:
        state: ``int64[STATE_SIZE]``.
        params: ``int64[PARAMS_SIZE]`` (``Variant.params``).
        prefix: ``int64[>= prefix_len]`` steps of the move in progress.
        prefix_len: the number of those steps.
        out: ``bool[A]`` or ``int8[A]``, overwritten.

    Returns:
        The number of legal steps.
    """
    moves = np.empty((MAX_MOVES, MOVE_WIDTH), dtype=np.int64)
    n = generate_moves(state, params, moves)
    return mask_from_moves(moves, n, state[ST_TURN], params, prefix, prefix_len, out)


@njit(cache=True)
def legal_masks_batch(states, params, prefixes, prefix_lens, out):
    """:func:`legal_mask_of` for B positions of one variant.

    Args:
        states: ``int64[B, STATE_SIZE]``.
        params: ``int64[PARAMS_SIZE]`` (``Variant.params``).
        prefixes: ``int64[B, L]`` steps of each move in progress.
        prefix_lens: ``int64[B]`` the number of those steps.
        out: ``bool[B, A]`` or ``int8[B, A]``, overwritten.

    Returns:
        ``int64[B]`` legal steps per position.
    """
    b = states.shape[0]
    counts = np.zeros(b, dtype=np.int64)
    moves = np.empty((MAX_MOVES, MOVE_WIDTH), dtype=np.int64)
    for i in range(b):
        n = generate_moves(states[i], params, moves)
        counts[i] = mask_from_moves(
            moves, n, states[i, ST_TURN], params, prefixes[i], prefix_lens[i], out[i]
        )
    return counts
