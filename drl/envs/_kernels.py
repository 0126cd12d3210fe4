"""Compiled game loop of the envs: one call per env step.

A game lives in a few arrays (the ``StepGame`` object in :mod:`drl.envs.game` owns them):

- ``ws`` ``int64[W_SIZE]``: scalars, indices ``W_*`` below;
- ``state`` ``int64[STATE_SIZE]``: the position after the completed moves;
- ``rows`` ``int64[MAX_MOVES, MOVE_WIDTH]``: its legal moves (``ws[W_NROWS]`` of them);
- ``prefix`` ``int64[MAX_STEPS]``: step actions of the move in progress (``ws[W_PLEN]``);
- ``log`` ``int64[cap, MOVE_WIDTH]``: the move rows played, ``ws[W_PLY]`` of them;
- ``hashes`` ``int64[cap + 1]``: Zobrist hash of each position of the game;
- ``rng`` ``uint64[1]``: state of the random opponent's generator (splitmix64).

Outcomes are those of ``Board.outcome()``: the kernel ``status`` (DESIGN §2 win/loss,
no-progress and endgame rules), then repetition counted over the positions since the last
irreversible move (capture or man move), like ``Board.repetitions``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from drl.encode.mask import ILLEGAL, IN_PROGRESS, mask_from_moves, step_outcome
from drl.encode.planes import encode_planes_as
from drl.rules.core import (
    M_CAPTURED,
    M_FROM,
    ST_BM,
    ST_HASH,
    ST_TURN,
    ST_WM,
    T_THREEFOLD_REPETITION,
    apply_move_into,
    generate_moves,
    status,
)
from drl.rules.variant import P_REPETITION

W_NROWS = 0       # legal moves in rows
W_PLEN = 1        # steps played in the move in progress
W_PLY = 2         # plies played since the game object started
W_RESET = 3       # index in hashes of the position after the last irreversible move
W_CODE = 4        # status: -1 game goes on, else termination * 4 + winner (2 = draw)
W_AGENT = 5       # colour of the agent; the other colour is the auto-played opponent; -1 none
W_PLY_LIMIT = 6   # stop the opponent at this many plies (-1: no limit)
W_REPS = 7        # occurrences of the current position since W_RESET, this one included
W_SIZE = 8

# Return codes of game_step.
STEP_ILLEGAL = -2
STEP_IN_PROGRESS = 0
STEP_MOVE_DONE = 1


@njit(cache=True)
def _enter_position(ws, state, params, rows, hashes):
    n = generate_moves(state, params, rows)
    ws[W_NROWS] = n
    h = state[ST_HASH]
    reps = 0
    for i in range(ws[W_RESET], ws[W_PLY] + 1):
        if hashes[i] == h:
            reps += 1
    ws[W_REPS] = reps
    code = status(state, params, n)
    if code < 0 and params[P_REPETITION] > 0 and reps >= params[P_REPETITION]:
        code = T_THREEFOLD_REPETITION * 4 + 2
    ws[W_CODE] = code


@njit(cache=True)
def game_start(ws, state, params, rows, hashes):
    """Initialise ``ws`` for a game starting at ``state``."""
    ws[W_PLEN] = 0
    ws[W_PLY] = 0
    ws[W_RESET] = 0
    hashes[0] = state[ST_HASH]
    _enter_position(ws, state, params, rows, hashes)


@njit(cache=True)
def apply_row(ws, state, params, rows, k, hashes):
    """Play legal move ``rows[k]`` (whole move; a move in progress is dropped), without
    logging it."""
    ply = ws[W_PLY]
    start_bit = np.int64(1) << rows[k, M_FROM]
    irreversible = rows[k, M_CAPTURED] != 0 or ((state[ST_BM] | state[ST_WM]) & start_bit) != 0
    apply_move_into(state, params, rows[k], state)
    ply += 1
    ws[W_PLY] = ply
    hashes[ply] = state[ST_HASH]
    if irreversible:
        ws[W_RESET] = ply
    ws[W_PLEN] = 0
    _enter_position(ws, state, params, rows, hashes)


@njit(cache=True)
def play_row(ws, state, params, rows, k, log, hashes):
    """Play legal move ``rows[k]`` as a whole move and append it to ``log``."""
    ply = ws[W_PLY]
    for j in range(rows.shape[1]):
        log[ply, j] = rows[k, j]
    apply_row(ws, state, params, rows, k, hashes)


@njit(cache=True)
def _random_index(rng, n):
    # splitmix64
    x = rng[0] + np.uint64(0x9E3779B97F4A7C15)
    rng[0] = x
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    x = x ^ (x >> np.uint64(31))
    return np.int64(x % np.uint64(n))


@njit(cache=True)
def random_replies(ws, state, params, rows, log, hashes, rng):
    """Play uniformly random legal moves for the opponent of ``ws[W_AGENT]`` until the
    agent is to move, the game is over, or the ply limit is reached."""
    agent = ws[W_AGENT]
    if agent < 0:
        return
    while (ws[W_CODE] < 0 and state[ST_TURN] != agent
           and (ws[W_PLY_LIMIT] < 0 or ws[W_PLY] < ws[W_PLY_LIMIT])):
        play_row(ws, state, params, rows, _random_index(rng, ws[W_NROWS]), log, hashes)


@njit(cache=True)
def observe(ws, state, params, rows, prefix, viewer, mask, planes):
    """Fill the legal-step mask and the planes (from ``viewer``; -1 = the mover)."""
    turn = state[ST_TURN]
    mask_from_moves(rows, ws[W_NROWS], turn, params, prefix, ws[W_PLEN], mask)
    encode_planes_as(state, params, prefix, ws[W_PLEN], ws[W_REPS] - 1,
                     turn if viewer < 0 else viewer, planes)


@njit(cache=True)
def game_step(ws, state, params, rows, prefix, log, hashes, rng, action, random_opponent,
              mask, planes):
    """One step action of the player to move, then (optionally) random replies, then the
    new mask and planes (mover's view).

    Returns:
        ``STEP_ILLEGAL`` (nothing changed), ``STEP_IN_PROGRESS`` or ``STEP_MOVE_DONE``.
    """
    plen = ws[W_PLEN]
    if ws[W_CODE] >= 0 or plen >= prefix.shape[0]:
        return STEP_ILLEGAL
    prefix[plen] = action
    k = step_outcome(rows, ws[W_NROWS], state[ST_TURN], params, prefix, plen + 1)
    if k == ILLEGAL:
        return STEP_ILLEGAL
    result = STEP_IN_PROGRESS
    if k == IN_PROGRESS:
        ws[W_PLEN] = plen + 1
    else:
        play_row(ws, state, params, rows, k, log, hashes)
        if random_opponent:
            random_replies(ws, state, params, rows, log, hashes, rng)
        result = STEP_MOVE_DONE
    observe(ws, state, params, rows, prefix, -1, mask, planes)
    return result


# ---------------------------------------------------------------------- many games at once

@njit(cache=True)
def _random_replies_unlogged(ws, state, params, rows, hashes, rng):
    agent = ws[W_AGENT]
    while (ws[W_CODE] < 0 and state[ST_TURN] != agent
           and (ws[W_PLY_LIMIT] < 0 or ws[W_PLY] < ws[W_PLY_LIMIT])):
        apply_row(ws, state, params, rows, _random_index(rng, ws[W_NROWS]), hashes)


@njit(cache=True)
def vector_step(ws, states, params2, init_state, rows, prefixes, hashes, rngs, actions,
                needs_reset, new_agents, lose_on_illegal, masks, planes, rewards, terminated,
                truncated):
    """One step of B games against random opponents (the vector env's whole step).

    Game ``i`` is reset (agent colour ``new_agents[i]``, random opponent moves first if it
    must) when ``needs_reset[i]``, and its action ignored; otherwise ``actions[i]`` is
    played as in :func:`game_step`. An illegal action ends the game with reward -1 when
    ``lose_on_illegal``, else is ignored (the caller checks legality first).

    Args:
        ws: ``int64[B, W_SIZE]``; states: ``int64[B, STATE_SIZE]``; params2:
            ``int64[2, PARAMS_SIZE]`` the rules when the agent plays black / white;
            init_state: ``int64[STATE_SIZE]``; rows: ``int64[B, MAX_MOVES, MOVE_WIDTH]``;
            prefixes: ``int64[B, MAX_STEPS]``; hashes: ``int64[B, ply_limit + 2]``;
            rngs: ``uint64[B]``; actions, new_agents: ``int64[B]``; needs_reset: ``bool[B]``.
        masks, planes, rewards, terminated, truncated: outputs ``int8[B, A]``,
            ``float32[B, C, n, n]``, ``float32[B]``, ``bool[B]``, ``bool[B]``.
    """
    for i in range(states.shape[0]):
        rewards[i] = 0.0
        terminated[i] = False
        truncated[i] = False
        w = ws[i]
        state = states[i]
        if needs_reset[i]:
            agent = new_agents[i]
            params = params2[agent]
            for j in range(state.shape[0]):
                state[j] = init_state[j]
            w[W_AGENT] = agent
            game_start(w, state, params, rows[i], hashes[i])
            _random_replies_unlogged(w, state, params, rows[i], hashes[i], rngs[i:i + 1])
        else:
            agent = w[W_AGENT]
            params = params2[agent]
            prefix = prefixes[i]
            plen = w[W_PLEN]
            prefix[plen] = actions[i]
            k = step_outcome(rows[i], w[W_NROWS], state[ST_TURN], params, prefix, plen + 1)
            if k == ILLEGAL:
                if lose_on_illegal:
                    rewards[i] = -1.0
                    terminated[i] = True
            elif k == IN_PROGRESS:
                w[W_PLEN] = plen + 1
            else:
                apply_row(w, state, params, rows[i], k, hashes[i])
                _random_replies_unlogged(w, state, params, rows[i], hashes[i], rngs[i:i + 1])
                code = w[W_CODE]
                if code >= 0:
                    terminated[i] = True
                    winner = code % 4
                    if winner != 2:
                        rewards[i] = 1.0 if winner == agent else -1.0
                elif w[W_PLY_LIMIT] >= 0 and w[W_PLY] >= w[W_PLY_LIMIT]:
                    truncated[i] = True
        observe(w, state, params, rows[i], prefixes[i], -1, masks[i], planes[i])
