"""Players behind one interface: ``random``, ``greedy``, ``alphabeta``, ``mcts``, ``az``.

>>> from drl.agents import make
>>> from drl.rules import Board
>>> agent = make("alphabeta:depth=2")
>>> agent.reset(seed=0)
>>> board = Board("give_and_take")
>>> board.push(agent.select_move(board))
>>> board.ply
1

Agents are built from spec strings ``kind[:param=value,...]`` by :func:`make`. All agents
read the objective of each side from the rules (``Board.objective``, kernel
``objective()``), so they play every preset, flag and Give and Take role. The network
player ``az`` (:mod:`drl.agents.az`) is imported, with torch, only when one is built.

Batched agents (:attr:`Agent.batched`, e.g. ``az``) choose moves for many games in one
call, :meth:`Agent.select_moves`; the arena plays their games in flight together.

New kinds plug in with :func:`register_agent`. A package outside drl makes its kinds
available everywhere, the arena's worker processes included, through the entry-point
group ``drl.agents``; in its ``pyproject.toml``::

    [project.entry-points."drl.agents"]
    mykind = "mypackage.agents:register"   # a function that calls register_agent

(the value may also be a module whose import calls :func:`register_agent`). The entry
point is loaded the first time ``mykind`` is asked for, e.g. ``make("mykind:x=1")``.
"""

from __future__ import annotations

from drl.agents.base import Agent
from drl.agents.registry import (
    ENTRY_POINT_GROUP,
    Param,
    describe_agents,
    is_batched,
    is_timed,
    make,
    parse_spec,
    register_agent,
    registered_agents,
    spec_name,
)

__all__ = [
    "Agent",
    "Param",
    "ENTRY_POINT_GROUP",
    "make",
    "parse_spec",
    "spec_name",
    "is_batched",
    "is_timed",
    "register_agent",
    "registered_agents",
    "describe_agents",
]


def _make_random(seed: int | None = None) -> Agent:
    from drl.agents.simple import RandomAgent

    return RandomAgent(seed)


def _make_greedy(seed: int | None = None) -> Agent:
    from drl.agents.simple import GreedyAgent

    return GreedyAgent(seed)


def _make_alphabeta(
    depth: int | None = None,
    time: float | None = None,
    tt: int = 19,
    seed: int | None = None,
    ckpt: str | None = None,
    egtb: bool = True,
) -> Agent:
    from drl.agents.alphabeta import AlphaBetaAgent

    return AlphaBetaAgent(depth=depth, time=time, tt_bits=tt, seed=seed, ckpt=ckpt, egtb=egtb)


def _make_mcts(
    sims: int = 400,
    c: float = 1.4,
    rollout_limit: int = 200,
    seed: int | None = None,
    egtb: bool = True,
) -> Agent:
    from drl.agents.mcts import MCTSAgent

    return MCTSAgent(sims=sims, c=c, rollout_limit=rollout_limit, seed=seed, egtb=egtb)


def _make_az(
    ckpt: str | None = None,
    sims: int | None = None,
    device: str = "auto",
    seed: int | None = None,
    time: float | None = None,
    egtb: bool = True,
) -> Agent:
    if not ckpt:
        raise ValueError("az needs ckpt=PATH (a checkpoint file or a run folder)")
    from drl.agents.az import AZAgent

    return AZAgent(ckpt, sims=sims, device=device, seed=seed, time=time, egtb=egtb)


def _need_cmd(kwargs: dict) -> None:
    if not kwargs.get("cmd"):
        raise ValueError("parameter cmd= (the engine program) is required")


def _make_hub(**kwargs) -> Agent:
    from drl.agents.engines.hub import HubAgent

    _need_cmd(kwargs)
    return HubAgent(**kwargs)


def _make_dxp(**kwargs) -> Agent:
    from drl.agents.engines.dxp import DXPAgent

    _need_cmd(kwargs)
    return DXPAgent(**kwargs)


_SEED = Param(int, None, "seed of tie-breaks / playouts (the arena reseeds every game)")

register_agent("random", _make_random, {"seed": _SEED}, "uniformly random legal move")
register_agent(
    "greedy",
    _make_greedy,
    {"seed": _SEED},
    "one ply, objective-aware (takes a win by rule, else the best evaluation)",
)
register_agent(
    "alphabeta",
    _make_alphabeta,
    {
        "depth": Param(int, None, "search depth in plies (default 4; the cap with time=)", 1, 63),
        "time": Param(float, None, "seconds per move (iterative deepening)", 1e-3, 3600.0),
        "tt": Param(int, 19, "log2 of transposition-table entries", 10, 26),
        "seed": _SEED,
        "ckpt": Param(
            str,
            None,
            "checkpoint (file or run folder) of a sparse network: its value "
            "scores the leaves instead of the static evaluation",
        ),
        "egtb": Param(
            bool,
            True,
            "probe the variant's endgame database where one is on disk (drl-egtb build): "
            "exact results end the search there",
        ),
    },
    "negamax alpha-beta, iterative deepening, TT, quiescence on forced captures",
)
register_agent(
    "mcts",
    _make_mcts,
    {
        "sims": Param(int, 400, "simulations per move (tree of sims + 1 nodes)", 1, 1_000_000),
        "c": Param(float, 1.4, "UCB1 exploration constant", 0.0, None),
        "rollout_limit": Param(
            int, 200, "plies per random playout before it counts as a draw", 1, 100_000
        ),
        "seed": _SEED,
        "egtb": Param(
            bool,
            True,
            "probe the variant's endgame database where one is on disk (drl-egtb build; "
            "off where there is none): nodes it solves exactly take its result",
        ),
    },
    "UCT with uniformly random playouts",
)
register_agent(
    "az",
    _make_az,
    {
        "ckpt": Param(str, None, "checkpoint file, or a run folder (newest good checkpoint)"),
        "sims": Param(
            int,
            None,
            "simulations per step (default: as trained; about 750 bytes per simulation "
            "and game in flight)",
            1,
            100_000,
        ),
        "device": Param(str, "auto", "cpu, cuda or auto"),
        "seed": Param(int, None, "tie-break seed"),
        "time": Param(
            float,
            None,
            "seconds per move: search until it is spent (sims= is then the most per "
            "search); one game at a time",
            1e-3,
            3600.0,
        ),
        "egtb": Param(
            bool,
            True,
            "probe the variant's endgame database where one is on disk (drl-egtb build; "
            "off where there is none): leaves it solves exactly take its result, not the "
            "network's value",
        ),
    },
    "trained policy-value network with batched MCTS (drl-train checkpoints)",
    batched=True,
)

_ENGINE = {
    "cmd": Param(str, None, "engine program, or a command line (shell-style words)"),
    "args": Param(str, None, "engine arguments (default: see the kind)"),
    "cwd": Param(str, None, "engine working folder (default: the current one)"),
}
_GRACE = Param(float, 5.0, "seconds past the move time before the engine counts as hung", 0.0)
register_agent(
    "hub",
    _make_hub,
    {
        **_ENGINE,
        "depth": Param(int, None, "search depth in plies", 1, 99),
        "time": Param(float, None, "seconds per move (default 1 without depth)", 1e-3, 3600.0),
        "tt": Param(int, None, "log2 of the engine's hash-table entries (Scan tt-size)", 10, 30),
        "book": Param(bool, None, "engine opening book on/off (default: the engine's)"),
        "proto": Param(str, "auto", "Hub protocol: auto, 1 (Scan 2.0) or 2 (Scan 3.x)"),
        "grace": _GRACE,
        "timeout": Param(float, 120.0, "seconds for start-up and depth-only searches", 0.1),
    },
    "external engine over the Hub protocol on stdin/stdout (Scan; drl-hub); "
    "args default to 'hub' for a program named scan*",
)
register_agent(
    "dxp",
    _make_dxp,
    {
        **_ENGINE,
        "time": Param(float, 1.0, "seconds per move (the DXP game clock)", 1e-2, 3600.0),
        "engine": Param(str, "auto", "auto (from the program name), scan, mobydam or generic"),
        "tt": Param(int, None, "log2 of the engine's hash-table entries", 10, 30),
        "book": Param(bool, None, "Scan's opening book on/off"),
        "grace": _GRACE,
        "timeout": Param(float, 30.0, "seconds to connect and to accept a game", 0.1),
    },
    "external International engine over DXP on 127.0.0.1 (Moby Dam, Scan; "
    "{host}/{port} in cmd or args for others)",
)
