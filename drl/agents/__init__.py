"""Players behind one interface: ``random``, ``greedy``, ``alphabeta``, ``mcts``.

>>> from drl.agents import make
>>> from drl.rules import Board
>>> agent = make("alphabeta:depth=2")
>>> agent.reset(seed=0)
>>> board = Board("give_and_take")
>>> board.push(agent.select_move(board))
>>> board.ply
1

Agents are built from spec strings ``kind[:param=value,...]`` by :func:`make`; new kinds
(e.g. the network player ``az``) plug in with :func:`register_agent`. All agents read the
objective of each side from the rules (``Board.objective``, kernel ``objective()``), so
they play every preset, flag and Give and Take role.
"""

from __future__ import annotations

from drl.agents.base import (Agent, Param, describe_agents, make, parse_spec, register_agent,
                             registered_agents, spec_name)

__all__ = ["Agent", "Param", "make", "parse_spec", "spec_name", "register_agent",
           "registered_agents", "describe_agents"]


def _make_random(seed: int | None = None) -> Agent:
    from drl.agents.simple import RandomAgent

    return RandomAgent(seed)


def _make_greedy(seed: int | None = None) -> Agent:
    from drl.agents.simple import GreedyAgent

    return GreedyAgent(seed)


def _make_alphabeta(depth: int | None = None, time: float | None = None, tt: int = 19,
               seed: int | None = None) -> Agent:
    from drl.agents.alphabeta import AlphaBetaAgent

    return AlphaBetaAgent(depth=depth, time=time, tt_bits=tt, seed=seed)


def _make_mcts(sims: int = 400, c: float = 1.4, rollout_limit: int = 200,
          seed: int | None = None) -> Agent:
    from drl.agents.mcts import MCTSAgent

    return MCTSAgent(sims=sims, c=c, rollout_limit=rollout_limit, seed=seed)


_SEED = Param(int, None, "seed of tie-breaks / playouts (the arena reseeds every game)")

register_agent("random", _make_random, {"seed": _SEED}, "uniformly random legal move")
register_agent("greedy", _make_greedy, {"seed": _SEED},
               "one ply, objective-aware (takes a win by rule, else the best evaluation)")
register_agent("alphabeta", _make_alphabeta, {
    "depth": Param(int, None, "search depth in plies (default 4; the cap with time=)", 1, 63),
    "time": Param(float, None, "seconds per move (iterative deepening)", 1e-3, None),
    "tt": Param(int, 19, "log2 of transposition-table entries", 10, 26),
    "seed": _SEED,
}, "negamax alpha-beta, iterative deepening, TT, quiescence on forced captures")
register_agent("mcts", _make_mcts, {
    "sims": Param(int, 400, "simulations per move", 1, 10_000_000),
    "c": Param(float, 1.4, "UCB1 exploration constant", 0.0, None),
    "rollout_limit": Param(int, 200, "plies per random playout before it counts as a draw",
                           1, None),
    "seed": _SEED,
}, "UCT with uniformly random playouts")
