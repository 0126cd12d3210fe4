"""The envs' compiled driver: games against random replies, one step or a vector step per call.

A game against uniformly random replies is stepped one step action at a time
(:func:`game_step`, :func:`random_replies`), and the vector env's whole step of B such games
runs in one call (:func:`vector_step`). Built on the game core (:mod:`drl.game.kernels`): it
only resets games, sequences the core's kernels, plays the opponent's random moves and turns
results into rewards.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from drl.game import kernels as G
from drl.game.kernels import (
    G_CODE,
    STEP_ILLEGAL,
    STEP_MOVE_DONE,
    legal_mask,
    observe,
    play_random,
    step,
)
from drl.rules.core import ONGOING, ST_PLY, ST_TURN, code_value

__all__ = [
    "Driver",
    "Drivers",
    "Game",
    "Games",
    "Observation",
    "Rules",
    "VectorOutputs",
    "W_AGENT",
    "W_PLY_LIMIT",
    "W_PLY0",
    "W_SIZE",
    "below_limit",
    "random_replies",
    "observe_into",
    "game_step",
    "vector_step",
]

# Driver bookkeeping ``ws`` ``int64[W_SIZE]`` of a game with an auto-played opponent:
# ``ws[W_AGENT]`` the agent's colour (the other colour gets uniformly random moves; -1 =
# nobody), ``ws[W_PLY_LIMIT]`` random replies stop at this many plies of the game (-1 = no
# limit), ``ws[W_PLY0]`` the ply (``ST_PLY``) the game started at; move ``i`` of the game is
# logged in ``log[i]``.

W_AGENT = 0
W_PLY_LIMIT = 1
W_PLY0 = 2
W_SIZE = 3


class Game(NamedTuple):
    """One game's arrays in the game core (:mod:`drl.game.kernels`).

    Attributes:
        pos: ``int64[POS_SIZE]`` the position.
        params: ``int64[PARAMS_SIZE]`` its rules.
        moves: ``int64[MAX_MOVES, MOVE_WIDTH]`` the legal moves of ``pos``.
        hist: ``int64[H]`` the hash-by-ply history (H > the last ply of the game).
    """

    pos: np.ndarray
    params: np.ndarray
    moves: np.ndarray
    hist: np.ndarray


class Driver(NamedTuple):
    """The driver's arrays of one game against random replies.

    Attributes:
        ws: ``int64[W_SIZE]`` bookkeeping (the ``W_*`` entries).
        log: ``int64[L, MOVE_WIDTH]`` move ``j`` of the game in row ``min(j, L - 1)``.
        rng: ``uint64[1]`` splitmix64 state of the random replies.
    """

    ws: np.ndarray
    log: np.ndarray
    rng: np.ndarray


class Observation(NamedTuple):
    """What a step returns of one game.

    Attributes:
        mask: ``int8[A]`` legal steps of the player to move.
        planes: ``float32[C, n, n]`` observation planes.
    """

    mask: np.ndarray
    planes: np.ndarray


class Games(NamedTuple):
    """B games in the game core, one row each.

    Each is a :class:`Game` without ``params``, which come from :class:`Rules` by the
    agent's colour.

    Attributes:
        pos: ``int64[B, POS_SIZE]``.
        moves: ``int64[B, MAX_MOVES, MOVE_WIDTH]``.
        hist: ``int64[B, H]``.
    """

    pos: np.ndarray
    moves: np.ndarray
    hist: np.ndarray


class Drivers(NamedTuple):
    """The drivers of B games, one row each (as :class:`Driver`).

    Attributes:
        ws: ``int64[B, W_SIZE]``.
        log: ``int64[B, L, MOVE_WIDTH]``.
        rng: ``uint64[B]``.
    """

    ws: np.ndarray
    log: np.ndarray
    rng: np.ndarray


class Rules(NamedTuple):
    """How the games of a vector env start.

    Attributes:
        params: ``int64[2, PARAMS_SIZE]`` the rules when the agent plays black / white.
        start: ``int64[STATE_SIZE]`` the start position.
    """

    params: np.ndarray
    start: np.ndarray


class VectorOutputs(NamedTuple):
    """What a vector step returns, one row per game.

    Attributes:
        masks: ``int8[B, A]``.
        planes: ``float32[B, C, n, n]``.
        rewards: ``float32[B]``.
        terminated: ``bool[B]``.
        truncated: ``bool[B]``.
    """

    masks: np.ndarray
    planes: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray


@njit(cache=True, inline="always")
def below_limit(ws, pos):
    """True while the game of ``ws`` is below its ply limit (or has none)."""
    return ws[W_PLY_LIMIT] < 0 or pos[ST_PLY] - ws[W_PLY0] < ws[W_PLY_LIMIT]


@njit(cache=True)
def random_replies(ws, pos, params, moves, hist, log, rng):
    """Uniformly random moves for the opponent of ``ws[W_AGENT]`` until the agent is to move.

    They also stop when the game is over or the ply limit is reached.

    Move ``j`` of the game is written to ``log[min(j, len(log) - 1)]``: a full move log
    ``int64[cap, MOVE_WIDTH]`` keeps every move, a one-row scratch ``int64[1, MOVE_WIDTH]``
    keeps none.
    """
    agent = ws[W_AGENT]
    if agent < 0:
        return
    while pos[G_CODE] == ONGOING and pos[ST_TURN] != agent and below_limit(ws, pos):
        i = min(pos[ST_PLY] - ws[W_PLY0], log.shape[0] - 1)
        play_random(pos, params, moves, hist, rng, log[i])


@njit(cache=True)
def observe_into(pos, params, moves, viewer, mask, planes):
    """Legal-step mask and planes (from ``viewer``; -1 = the mover)."""
    legal_mask(pos, params, moves, mask)
    observe(pos, params, viewer, planes)


@njit(cache=True, _nrt=False)  # allocates nothing; no reference counts to keep
def game_step(game, driver, action, random_opponent, out):
    """One step action of the player to move, then random replies, then the new mask and planes.

    The random replies are optional; the mask and planes are from the mover's view.

    Args:
        game: :class:`Game`.
        driver: :class:`Driver`.
        action: step action index (``drl.encode.actions``).
        random_opponent: after a completed move, play the random replies.
        out: :class:`Observation`, overwritten unless the step is illegal.

    ``game``, ``driver`` and ``out`` may be plain tuples of their fields, as
    :class:`~drl.envs.step_game.StepGame` passes them: numba reads the types of a plain
    tuple of arrays in compiled code but those of a NamedTuple in Python, some
    microseconds per structure on every call (a tenth of an env step).

    Returns:
        ``STEP_ILLEGAL`` (nothing changed), ``STEP_IN_PROGRESS`` or ``STEP_MOVE_DONE``.
    """
    pos, params, moves, hist = game
    ws, log, rng = driver
    mask, planes = out
    i = pos[ST_PLY] - ws[W_PLY0]
    result = step(pos, params, moves, hist, action, log[i])
    if result == STEP_ILLEGAL:
        return result
    if result == STEP_MOVE_DONE and random_opponent:
        random_replies(ws, pos, params, moves, hist, log, rng)
    observe_into(pos, params, moves, -1, mask, planes)
    return result


@njit(cache=True)
def vector_step(games, drivers, rules, actions, needs_reset, new_agents, lose_on_illegal, out):
    """One step of B games against random opponents (the vector env's whole step).

    Game ``i`` is reset (agent colour ``new_agents[i]``, random opponent moves first if it
    must) when ``needs_reset[i]``, and its action ignored; otherwise ``actions[i]`` is
    played as in :func:`game_step`. An illegal action ends the game with reward -1 when
    ``lose_on_illegal``, else is ignored (the caller checks legality first).

    Args:
        games: :class:`Games`.
        drivers: :class:`Drivers`.
        rules: :class:`Rules`.
        actions: ``int64[B]``, each game's step action index (``drl.encode.actions``).
        needs_reset: ``bool[B]``, the games to reset instead of stepping.
        new_agents: ``int64[B]``, the agent's colour (0 black, 1 white) in each game reset.
        lose_on_illegal: bool, an illegal action loses the game.
        out: :class:`VectorOutputs`, overwritten.

    ``games``, ``drivers``, ``rules`` and ``out`` may be plain tuples of their fields, as
    :class:`~drl.envs.vector.DraughtsVectorEnv` passes them (see :func:`game_step`); the
    kernel reads them into names once and then works on each game's rows.
    """
    pos, moves, hist = games
    ws, logs, rngs = drivers
    params2, start = rules
    masks, planes, rewards, terminated, truncated = out
    for i in range(pos.shape[0]):
        rewards[i] = 0.0
        terminated[i] = False
        truncated[i] = False
        w, p, log, rng = ws[i], pos[i], logs[i], rngs[i : i + 1]
        if needs_reset[i]:
            agent = new_agents[i]
            params = params2[agent]
            w[W_AGENT] = agent
            w[W_PLY0] = start[ST_PLY]
            G.start(p, start, params, moves[i], hist[i])
            random_replies(w, p, params, moves[i], hist[i], log, rng)
        else:
            agent = w[W_AGENT]
            params = params2[agent]
            row = log[min(p[ST_PLY] - w[W_PLY0], log.shape[0] - 1)]
            result = G.step(p, params, moves[i], hist[i], actions[i], row)
            if result == STEP_ILLEGAL:
                if lose_on_illegal:
                    rewards[i] = -1.0
                    terminated[i] = True
            elif result == STEP_MOVE_DONE:
                random_replies(w, p, params, moves[i], hist[i], log, rng)
                if G.is_over(p):
                    terminated[i] = True
                    rewards[i] = code_value(p[G_CODE], agent)
                elif not below_limit(w, p):
                    truncated[i] = True
        observe_into(p, params2[w[W_AGENT]], moves[i], -1, masks[i], planes[i])
