"""Search speed in English checkers, side by side with peers in the same run.

- Alpha-beta: drl ``alphabeta`` against py-draughts' ``SimpleEngine`` (negamax with
  alpha-beta, iterative deepening, TT, quiescence; ``import draughts``), both counting
  every node they enter (their ``engine.nodes``, our ``last_nodes``). Each engine
  searches the start position and a few seeded middle-game positions (where both
  libraries list the same legal moves) to a fixed depth, and searches the start
  position for one second (the depth completed is printed; py-draughts reports it in
  its debug log, read through loguru).
- Rollout MCTS: drl ``mcts`` (UCT, uniformly random playouts to the end of the game)
  against OpenSpiel's ``MCTSBot`` with ``RandomRolloutEvaluator`` (one rollout per
  leaf) on OpenSpiel's ``checkers``, in simulations per second from the start position.

- Learned alpha-beta: drl ``alphabeta:...,ckpt=PATH`` (the sparse network's value at
  the quiet leaves) against drl's material alpha-beta in nodes per second over the same
  positions and depth, with the network's first layer recomputed at every leaf (before)
  and updated along the search path (after: ``drl/agents/_nnue.py``; the agent
  recomputes by default, having measured it faster).
  Needs only drl (``--learned-only`` skips the peers).

Both peers play English/American checkers (py-draughts ``boards.american``, OpenSpiel
``checkers``); their side names differ from ours but the game is the same.

Run: ``python benchmarks/search_speed.py [--depth 8] [--sims 2000] [--learned-only]``. Not a test; prints
a table and the ratios (target: >= 20x each peer).
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def drl_positions(count: int, plies: int, seed: int, peers: bool = True) -> list[str]:
    """FENs of the start position and ``count`` seeded random middle-game positions
    (with ``peers``, only those where py-draughts lists the same moves)."""
    from drl.eval.arena import make_openings

    fens = make_openings("english", 4 * count, plies, seed)
    keep = [f for f in fens if same_moves(f)] if peers else fens
    return [None] + keep[:count]  # type: ignore[list-item]


def pydraughts_board(fen: str | None):
    """py-draughts' American board for one of our English FENs (same square numbers and
    colours; its FEN reader takes ours as is)."""
    from draughts.boards.american import Board

    return Board() if fen is None else Board.from_fen(fen)


def same_moves(fen: str | None) -> bool:
    """True if both libraries list the same legal moves in the position (py-draughts'
    American board lists quiet moves next to available captures, so positions with a
    capture pending are left out of the comparison)."""
    from drl.rules import Board

    ours = sorted(str(m) for m in Board("english", fen=fen).legal_moves)
    theirs = sorted(str(m) for m in pydraughts_board(fen).legal_moves)
    return ours == theirs


def drl_alphabeta(
    fens: list[str | None], depth: int, ckpt: str | None = None, incremental: bool = True
) -> tuple[int, float]:
    """(nodes, seconds) of drl alpha-beta to ``depth`` over the positions (with ``ckpt``,
    the learned evaluation, its first layer updated along the path or recomputed)."""
    from drl.agents.alphabeta import AlphaBetaAgent
    from drl.rules import Board

    agent = AlphaBetaAgent(depth=depth, ckpt=ckpt)
    agent.set_incremental(incremental)
    agent.search(Board("english"))  # load the compiled code, touch the buffers
    nodes, seconds = 0, 0.0
    for fen in fens:
        agent.reset()  # empty transposition table, as a new engine has
        agent.search(Board("english", fen=fen))
        nodes += agent.last_nodes
        seconds += agent.last_seconds
    return nodes, seconds


def pydraughts_alphabeta(fens: list[str | None], depth: int) -> tuple[int, float]:
    """(nodes, seconds) of py-draughts' SimpleEngine to ``depth`` over the positions."""
    from draughts import SimpleEngine

    nodes, seconds = 0, 0.0
    for fen in fens:
        board = pydraughts_board(fen)
        engine = SimpleEngine(depth_limit=depth)
        t0 = time.perf_counter()
        engine.get_best_move(board)
        seconds += time.perf_counter() - t0
        nodes += engine.nodes
    return nodes, seconds


def drl_depth_in(seconds: float) -> tuple[int, int, float]:
    """(depth completed, nodes, seconds used) of drl alpha-beta given ``seconds`` from the
    start position."""
    from drl.agents.alphabeta import AlphaBetaAgent
    from drl.rules import Board

    agent = AlphaBetaAgent(time=seconds)
    agent.search(Board("english"))
    return agent.last_depth, agent.last_nodes, agent.last_seconds


def pydraughts_depth_in(seconds: float) -> tuple[int, int, float]:
    """(depth completed, nodes, seconds used) of py-draughts' SimpleEngine given
    ``seconds`` (it checks the clock between iterations, so it may run over)."""
    from draughts import SimpleEngine
    from draughts.boards.american import Board
    from loguru import logger

    messages: list[str] = []
    logger.remove()
    sink = logger.add(lambda m: messages.append(m.record["message"]), level="DEBUG")
    engine = SimpleEngine(depth_limit=60, time_limit=seconds)
    t0 = time.perf_counter()
    engine.get_best_move(Board())
    used = time.perf_counter() - t0
    logger.remove(sink)
    depths = [int(m.split()[1].rstrip(":")) for m in messages if m.startswith("Depth ")]
    return (max(depths) if depths else 0), engine.nodes, used


def drl_mcts(sims: int, repeats: int) -> float:
    """Simulations/s of drl rollout MCTS from the start position."""
    from drl.agents.mcts import MCTSAgent
    from drl.rules import Board

    board = Board("english")
    agent = MCTSAgent(sims=sims, rollout_limit=10_000, seed=0)
    agent.search(board, sims=10)  # load compiled code
    t0 = time.perf_counter()
    for _ in range(repeats):
        agent.search(board)
    return sims * repeats / (time.perf_counter() - t0)


def openspiel_mcts(sims: int, repeats: int) -> float:
    """Simulations/s of OpenSpiel's MCTSBot with one random rollout per leaf."""
    import pyspiel
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game("checkers")
    rng = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bot = mcts.MCTSBot(game, uct_c=1.4, max_simulations=sims, evaluator=evaluator,
                       random_state=rng, solve=False)
    state = game.new_initial_state()
    t0 = time.perf_counter()
    for _ in range(repeats):
        bot.mcts_search(state)
    return sims * repeats / (time.perf_counter() - t0)


def learned_rates(fens: list[str | None], depth: int, ckpt: str, rounds: int) -> None:
    """Print nodes/s of material and learned alpha-beta (recomputed and updated first
    layer), each the best of ``rounds`` interleaved rounds, and the ratios."""
    best = {"material": 0.0, "learned, recomputed": 0.0, "learned, updated": 0.0}
    nodes = {}
    for _ in range(rounds):
        for name, args in (
            ("material", (None, True)),
            ("learned, recomputed", (ckpt, False)),
            ("learned, updated", (ckpt, True)),
        ):
            n, t = drl_alphabeta(fens, depth, *args)
            best[name] = max(best[name], n / t)
            nodes[name] = n
    mat = best["material"]
    print(f"Learned alpha-beta ({ckpt}), English, {len(fens)} positions, depth {depth}, "
          f"best of {rounds}")
    print(f"{'evaluation':24s} {'nodes':>10s} {'nodes/s':>12s} {'/ material':>11s}")
    for name, rate in best.items():
        print(f"{name:24s} {nodes[name]:10,d} {rate:12,.0f} {rate / mat:10.3f}x")
    up, full = best["learned, updated"], best["learned, recomputed"]
    print(f"updated / recomputed: {up / full:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=8, help="fixed alpha-beta depth")
    parser.add_argument("--positions", type=int, default=4, help="middle-game positions")
    parser.add_argument("--sims", type=int, default=1000, help="MCTS simulations per search")
    parser.add_argument("--repeats", type=int, default=3, help="MCTS searches timed")
    parser.add_argument("--seconds", type=float, default=1.0, help="time for the depth test")
    parser.add_argument("--ckpt", default="experiments/default-english/agent.pt",
                        help="sparse checkpoint of the learned alpha-beta")
    parser.add_argument("--learned-depth", type=int, default=6, help="its fixed depth")
    parser.add_argument("--rounds", type=int, default=3, help="its timed rounds")
    parser.add_argument("--learned-only", action="store_true", help="skip the peers")
    args = parser.parse_args()

    learned_fens = drl_positions(args.positions, 12, seed=1, peers=False)
    learned_rates(learned_fens, args.learned_depth, args.ckpt, args.rounds)
    if args.learned_only:
        return
    fens = drl_positions(args.positions, 12, seed=1)
    n_drl, t_drl = drl_alphabeta(fens, args.depth)
    n_pd, t_pd = pydraughts_alphabeta(fens, args.depth)
    d_drl, nodes_drl, used_drl = drl_depth_in(args.seconds)
    d_pd, nodes_pd, used_pd = pydraughts_depth_in(args.seconds)
    s_drl = drl_mcts(args.sims, args.repeats)
    s_os = openspiel_mcts(args.sims, args.repeats)

    rate_drl, rate_pd = n_drl / t_drl, n_pd / t_pd
    rate_1s_drl, rate_1s_pd = nodes_drl / used_drl, nodes_pd / used_pd
    print(f"English checkers, {len(fens)} positions (start + {args.positions} after 12 "
          f"random plies), depth {args.depth}")
    print(f"{'measure':44s} {'drl':>12s} {'peer':>12s} {'ratio':>8s}")
    print(f"{'alpha-beta nodes/s, fixed depth (py-draughts)':44s} {rate_drl:12,.0f} "
          f"{rate_pd:12,.0f} {rate_drl / rate_pd:7.1f}x")
    print(f"{'alpha-beta nodes/s, 1 s from start':44s} {rate_1s_drl:12,.0f} "
          f"{rate_1s_pd:12,.0f} {rate_1s_drl / rate_1s_pd:7.1f}x")
    print(f"{'alpha-beta depth completed in 1 s, start':44s} {d_drl:12d} {d_pd:12d}")
    print(f"{'  (seconds actually used)':44s} {used_drl:12.2f} {used_pd:12.2f}")
    print(f"{'rollout MCTS simulations/s (OpenSpiel)':44s} {s_drl:12,.0f} {s_os:12,.0f} "
          f"{s_drl / s_os:7.1f}x")
    print(f"(alpha-beta nodes at depth {args.depth}: drl {n_drl:,}, py-draughts {n_pd:,})")


if __name__ == "__main__":
    main()
