"""The vector env's compiled step (B games against random replies in one call), built on
the game core (:mod:`drl.game.kernels`): it only resets games, sequences the core's
kernels and turns results into rewards."""

from __future__ import annotations

from numba import njit

from drl.game import kernels as G
from drl.game.kernels import (
    G_CODE,
    STEP_ILLEGAL,
    STEP_MOVE_DONE,
    W_AGENT,
    W_PLY0,
    W_PLY_LIMIT,
    W_SIZE,
)
from drl.rules.core import ST_PLY, code_value

__all__ = ["W_AGENT", "W_PLY_LIMIT", "W_PLY0", "W_SIZE", "vector_step"]


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
            G.random_replies(w, p, params, moves[i], hists[i], logs[i], rng)
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
                G.random_replies(w, p, params, moves[i], hists[i], logs[i], rng)
                if G.is_over(p):
                    terminated[i] = True
                    rewards[i] = code_value(p[G_CODE], agent)
                elif not G.below_limit(w, p):
                    truncated[i] = True
        G.observe_into(p, params2[w[W_AGENT]], moves[i], -1, masks[i], planes[i])
