"""The envs' compiled driver: a game against uniformly random replies, stepped one step
action at a time (:func:`game_step`, :func:`random_replies`), and the vector env's whole
step of B such games in one call (:func:`vector_step`). Built on the game core
(:mod:`drl.game.kernels`): it only resets games, sequences the core's kernels, plays the
opponent's random moves and turns results into rewards."""

from __future__ import annotations

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


@njit(cache=True, inline="always")
def below_limit(ws, pos):
    """True while the game of ``ws`` is below its ply limit (or has none)."""
    return ws[W_PLY_LIMIT] < 0 or pos[ST_PLY] - ws[W_PLY0] < ws[W_PLY_LIMIT]


@njit(cache=True)
def random_replies(ws, pos, params, moves, hist, log, rng):
    """Uniformly random moves for the opponent of ``ws[W_AGENT]`` until the agent is to
    move, the game is over or the ply limit is reached.

    Move ``j`` of the game is written to ``log[min(j, len(log) - 1)]``: a full move log
    ``int64[cap, MOVE_WIDTH]`` keeps every move, a one-row scratch ``int64[1, MOVE_WIDTH]``
    keeps none."""
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


@njit(cache=True)
def game_step(ws, pos, params, moves, hist, log, rng, action, random_opponent, mask, planes):
    """One step action of the player to move, then (optionally) random replies, then the
    new mask and planes (mover's view).

    Returns:
        ``STEP_ILLEGAL`` (nothing changed), ``STEP_IN_PROGRESS`` or ``STEP_MOVE_DONE``.
    """
    i = pos[ST_PLY] - ws[W_PLY0]
    result = step(pos, params, moves, hist, action, log[i])
    if result == STEP_ILLEGAL:
        return result
    if result == STEP_MOVE_DONE and random_opponent:
        random_replies(ws, pos, params, moves, hist, log, rng)
    observe_into(pos, params, moves, -1, mask, planes)
    return result


@njit(cache=True)
def vector_step(
    ws,
    pos,
    params2,
    init_state,
    moves,
    hists,
    logs,
    rngs,
    actions,
    needs_reset,
    new_agents,
    lose_on_illegal,
    masks,
    planes,
    rewards,
    terminated,
    truncated,
):
    """One step of B games against random opponents (the vector env's whole step).

    Game ``i`` is reset (agent colour ``new_agents[i]``, random opponent moves first if it
    must) when ``needs_reset[i]``, and its action ignored; otherwise ``actions[i]`` is
    played as in :func:`game_step`. An illegal action ends the game with reward -1 when
    ``lose_on_illegal``, else is ignored (the caller checks legality first).

    Args:
        ws: ``int64[B, W_SIZE]``; pos: ``int64[B, POS_SIZE]``; params2:
            ``int64[2, PARAMS_SIZE]`` the rules when the agent plays black / white;
            init_state: ``int64[STATE_SIZE]``; moves: ``int64[B, MAX_MOVES, MOVE_WIDTH]``;
            hists: ``int64[B, ply_limit + 2]``; logs: ``int64[B, ply_limit + 2,
            MOVE_WIDTH]``, the moves of each game; rngs: ``uint64[B]``; actions, new_agents:
            ``int64[B]``; needs_reset: ``bool[B]``.
        masks, planes, rewards, terminated, truncated: outputs ``int8[B, A]``,
            ``float32[B, C, n, n]``, ``float32[B]``, ``bool[B]``, ``bool[B]``.
    """
    for i in range(pos.shape[0]):
        rewards[i] = 0.0
        terminated[i] = False
        truncated[i] = False
        w = ws[i]
        p = pos[i]
        rng = rngs[i : i + 1]
        if needs_reset[i]:
            agent = new_agents[i]
            params = params2[agent]
            w[W_AGENT] = agent
            w[W_PLY0] = init_state[ST_PLY]
            G.start(p, init_state, params, moves[i], hists[i])
            random_replies(w, p, params, moves[i], hists[i], logs[i], rng)
        else:
            agent = w[W_AGENT]
            params = params2[agent]
            result = G.step(
                p,
                params,
                moves[i],
                hists[i],
                actions[i],
                logs[i, min(p[ST_PLY] - w[W_PLY0], logs.shape[1] - 1)],
            )
            if result == STEP_ILLEGAL:
                if lose_on_illegal:
                    rewards[i] = -1.0
                    terminated[i] = True
            elif result == STEP_MOVE_DONE:
                random_replies(w, p, params, moves[i], hists[i], logs[i], rng)
                if G.is_over(p):
                    terminated[i] = True
                    rewards[i] = code_value(p[G_CODE], agent)
                elif not below_limit(w, p):
                    truncated[i] = True
        observe_into(p, params2[w[W_AGENT]], moves[i], -1, masks[i], planes[i])
