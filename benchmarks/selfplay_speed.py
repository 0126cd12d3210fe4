"""Self-play throughput of the residual and the sparse network, and where the time goes.

Plays self-play games (Give and Take by default) with an untrained network of each kind
at the same search settings and prints simulations/s, positions/s, games per CPU-minute,
network positions per call and the share of wall time spent in the network. The
residual networks are called with batches of planes (the share is the time inside the
forward pass); the sparse network runs inside the compiled search, so its share is its
measured cost per evaluation (features, both layers and the legal steps' logits, timed
alone on the positions of the games) times the evaluations made. The last lines give
each row's ratio to the first one and what one simulation costs outside the network,
split into move generation and the rest.

    python benchmarks/selfplay_speed.py                  # small (residual) and sparse
    python benchmarks/selfplay_speed.py --nets small,medium,sparse --threads 2

With ``--cores 1,2,...`` it measures instead how the sparse network's self-play scales
over cores, as the training loop plays it (``drl.train.runtime.LocalRuntime``): at each
core count, one worker process per core (``processes``, the default of training) and
one process whose compiled search shares its trees over that many threads
(``threads``), each printing simulations/s, games per wall-minute and the ratio to one
core. ``--peer PATH`` adds the one-core figure of another checkout of drl (e.g. the
code before a change), measured in a child process on the same games, so that a
simulation's cost before and after is read off one run:

    python benchmarks/selfplay_speed.py --cores 1,2
    python benchmarks/selfplay_speed.py --cores 1 --peer /tmp/drl-before
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import torch
from numba import njit

from drl import nn as drl_nn
from drl.encode.actions import num_actions
from drl.encode.planes import N_CHANNELS
from drl.encode.sparse_net import evaluate_position, logit, make_scratch
from drl.eval.arena import role_variant
from drl.game import kernels as G
from drl.nn import NetworkEvaluator
from drl.rules import Variant
from drl.rules.core import STATE_SIZE
from drl.search import SearchConfig
from drl.train.selfplay import SelfPlayActor, SelfPlayConfig

NETS = {
    "tiny": (
        "resnet",
        dict(channels=8, blocks=1, policy_channels=2, value_channels=1, value_hidden=16),
    ),
    "small": (
        "resnet",
        dict(channels=32, blocks=3, policy_channels=4, value_channels=2, value_hidden=64),
    ),
    "medium": (
        "resnet",
        dict(channels=64, blocks=6, policy_channels=8, value_channels=4, value_hidden=128),
    ),
    "sparse": ("sparse", dict(hidden=256, hidden2=32)),
}


@njit(cache=True)
def _eval_loop(pos, params, net, scratch, steps, reps):
    """Evaluate every position ``reps`` times as the search does (value and the logits of
    its legal steps); returns a checksum so nothing is optimised away."""
    moves = np.empty((2048, 32), np.int64)
    total = 0.0
    for _ in range(reps):
        for i in range(pos.shape[0]):
            p = pos[i]
            G.generate(p, params, moves)
            k = G.legal_step_list(p, params, moves, steps)
            prefix = p[G.G_PREFIX : G.G_PREFIX + G.MAX_STEPS]
            total += evaluate_position(
                p[:STATE_SIZE], params, prefix, p[G.G_PLEN], p[G.G_REPS], net, scratch
            )
            for j in range(k):
                total += logit(net, scratch, steps[j])
    return total


@njit(cache=True)
def _movegen_loop(pos, params, steps, reps):
    moves = np.empty((2048, 32), np.int64)
    total = 0
    for _ in range(reps):
        for i in range(pos.shape[0]):
            p = pos[i]
            G.generate(p, params, moves)
            total += G.legal_step_list(p, params, moves, steps)
    return total


def sparse_eval_seconds(net, variant: Variant, games: int = 8) -> tuple[float, float]:
    """Seconds per compiled evaluation of ``net`` and per move generation (the moves and
    legal steps of a position, which the search needs anyway and which are timed apart and
    taken off the evaluation), on positions of random games."""
    params = np.ascontiguousarray(variant.params)
    rng = np.random.default_rng(0)
    positions = []
    moves, played = G.move_buffer(), np.zeros(32, np.int64)
    for _ in range(games):
        pos, hist = G.new_pos(), np.zeros(400, np.int64)
        from drl.rules.core import initial_state

        G.start(pos, initial_state(params), params, moves, hist)
        mask = np.zeros(num_actions(variant.board_size), np.bool_)
        while not G.is_over(pos) and pos[9] < 150:
            positions.append(pos.copy())
            G.generate(pos, params, moves)
            G.legal_mask(pos, params, moves, mask)
            G.step(pos, params, moves, hist, int(rng.choice(np.flatnonzero(mask))), played)
    pos = np.stack(positions)
    weights = net.compiled_weights()
    scratch = make_scratch(weights)
    steps = np.zeros(2048, np.int64)
    _eval_loop(pos[:2], params, weights, scratch, steps, 1)
    _movegen_loop(pos[:2], params, steps, 1)
    reps = max(1, 200_000 // len(pos))
    t0 = time.perf_counter()
    _eval_loop(pos, params, weights, scratch, steps, reps)
    t_all = time.perf_counter() - t0
    t0 = time.perf_counter()
    _movegen_loop(pos, params, steps, reps)
    t_gen = time.perf_counter() - t0
    n = reps * len(pos)
    return max(t_all - t_gen, 0.0) / n, t_gen / n


def measure(
    name: str, variant: str, games: int, in_flight: int, sims: int, mode: str, device: str
) -> dict:
    arch, sizes = NETS[name]
    v = Variant.parse(variant)
    n = v.board_size
    torch.manual_seed(0)  # the same network every run, so runs play the same games
    net = drl_nn.build(
        arch, in_channels=N_CHANNELS, board_size=n, num_actions=num_actions(n), **sizes
    )
    variants = [role_variant(v, "black"), role_variant(v, "white")] if v.is_asymmetric else [v]
    actor = SelfPlayActor(
        variants,
        SearchConfig(num_simulations=sims, root_selection=mode),
        SelfPlayConfig(games_in_flight=in_flight, max_plies=200),
        seed=0,
    )
    actor.play(NetworkEvaluator(net, device), 1)  # compile / warm up; not counted
    ev = NetworkEvaluator(net, device)
    c0, t0 = time.process_time(), time.perf_counter()
    st = actor.play(ev, games)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    probe = (
        net
        if arch == "sparse"
        else drl_nn.build(
            "sparse", in_channels=N_CHANNELS, board_size=n, num_actions=num_actions(n)
        )
    )
    per_sparse, per_gen = sparse_eval_seconds(probe, v)
    if arch == "sparse":
        per_eval = per_sparse
        net_seconds = per_eval * st.leaf_evals
    else:
        per_eval = ev.seconds / max(ev.positions, 1)
        net_seconds = ev.seconds
    sims = max(st.simulations, 1)
    other = (wall - net_seconds) / sims
    movegen = per_gen * st.leaf_evals / sims  # each expanded leaf's moves and legal steps
    return {
        "net": name,
        "params": net.num_parameters(),
        "sims/s": st.simulations / wall,
        "positions/s": st.positions / wall,
        "games/CPU-min": st.games / cpu * 60,
        "leaves/call": st.leaf_evals / max(st.net_batches, 1),
        "net share": net_seconds / wall,
        "us/eval": per_eval * 1e6,
        "us/sim other": other * 1e6,
        "us/sim movegen": movegen * 1e6,
        "us/sim rest": (other - movegen) * 1e6,
        "wall s": wall,
        "games": st.games,
    }


def _sparse_setup(variant: str, in_flight: int, sims: int, mode: str):
    v = Variant.parse(variant)
    n = v.board_size
    torch.manual_seed(0)  # the same network every run, so runs play the same games
    arch, sizes = NETS["sparse"]
    net = drl_nn.build(
        arch, in_channels=N_CHANNELS, board_size=n, num_actions=num_actions(n), **sizes
    )
    variants = [role_variant(v, "black"), role_variant(v, "white")] if v.is_asymmetric else [v]
    search = SearchConfig(num_simulations=sims, root_selection=mode)
    return net, variants, search, SelfPlayConfig(games_in_flight=in_flight, max_plies=200)


def one_core(args) -> dict:
    """Sims/s of the sparse network's self-play in this process on one thread.

    Uses only ``SelfPlayActor.play``, so that another checkout can run it (``--peer``).
    """
    import numba

    numba.set_num_threads(1)
    torch.set_num_threads(1)
    net, variants, search, config = _sparse_setup(
        args.variant, args.in_flight, args.sims, args.search
    )
    actor = SelfPlayActor(variants, search, config, seed=0)
    actor.play(NetworkEvaluator(net, "cpu"), 8)  # compile / warm up; not counted
    t0 = time.perf_counter()
    st = actor.play(NetworkEvaluator(net, "cpu"), args.games)
    wall = time.perf_counter() - t0
    return {"sims/s": st.simulations / wall, "games/min": st.games / wall * 60, "wall s": wall}


def scaling(args, how: str, cores: int) -> dict:
    """Sims/s and games per wall-minute of the local runtime on ``cores`` cores.

    ``how``: ``processes`` (worker processes, as training plays) or ``threads`` (one
    process, the compiled search over ``cores`` threads).
    """
    from drl.train.runtime import LocalRuntime

    torch.set_num_threads(1)
    net, variants, search, config = _sparse_setup(
        args.variant, args.in_flight, args.sims, args.search
    )
    rt = LocalRuntime(
        variants, search, config, torch.device("cpu"), 0, cores, net if how == "processes" else None
    )
    try:
        rt.set_next_game_index(0)
        sink = lambda b, p: None  # noqa: E731
        rt.play(net, 8, [0, 0], sink, 32)  # start / warm up; not counted
        t0 = time.perf_counter()
        st = rt.play(net, args.games, [0, 1], sink, 32)
        wall = time.perf_counter() - t0
    finally:
        rt.close()
    return {"sims/s": st.simulations / wall, "games/min": st.games / wall * 60, "wall s": wall}


def main_cores(args) -> None:
    cores = [int(c) for c in args.cores.split(",")]
    print(
        f"{args.variant}, sparse network, {args.search} {args.sims} sims, "
        f"{args.in_flight} games in flight (all cores together), {args.games} games timed; "
        f"{len(os.sched_getaffinity(0))} usable CPUs, load {os.getloadavg()[0]:.1f}"
    )
    if args.peer:
        import json
        import subprocess
        import sys

        env = dict(os.environ, PYTHONPATH=os.path.abspath(args.peer))
        cmd = [
            sys.executable,
            os.path.abspath(__file__),
            "--one-core-json",
            "--variant",
            args.variant,
            "--games",
            str(args.games),
            "--in-flight",
            str(args.in_flight),
            "--sims",
            str(args.sims),
            "--search",
            args.search,
        ]
        out = subprocess.run(
            cmd, env=env, check=True, capture_output=True, text=True, cwd=os.path.abspath(args.peer)
        )
        peer = json.loads(out.stdout.strip().splitlines()[-1])
        here = one_core(args)
        print(
            f"one core, one thread: peer {args.peer}: {peer['sims/s']:,.0f} sims/s, "
            f"{peer['games/min']:,.0f} games/min; this checkout: {here['sims/s']:,.0f} "
            f"sims/s, {here['games/min']:,.0f} games/min; ratio "
            f"{here['sims/s'] / peer['sims/s']:.2f}x"
        )
    print(
        f"{'how':>10} {'cores':>5} {'sims/s':>10} {'sims/s/core':>11} {'games/min':>10} "
        f"{'wall s':>7} {'x 1 core':>8}"
    )
    for how in args.modes.split(","):
        first = None
        for c in cores:
            r = scaling(args, how, c)
            first = first or r
            print(
                f"{how:>10} {c:>5} {r['sims/s']:>10,.0f} {r['sims/s'] / c:>11,.0f} "
                f"{r['games/min']:>10,.0f} {r['wall s']:>7.1f} "
                f"{r['games/min'] / first['games/min']:>7.2f}x"
            )
    print("x 1 core = games per wall-minute against the same way's first core count")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cores", default="", help="comma list of core counts, e.g. 1,2")
    ap.add_argument(
        "--modes", default="processes,threads", help="with --cores: processes and/or threads"
    )
    ap.add_argument("--peer", default="", help="with --cores: another drl checkout")
    ap.add_argument("--one-core-json", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--variant", default="give_and_take")
    ap.add_argument("--games", type=int, default=None, help="48; 256 with --cores")
    ap.add_argument("--in-flight", type=int, default=None, help="96; 128 with --cores")
    ap.add_argument("--sims", type=int, default=32)
    ap.add_argument("--search", default="gumbel", choices=["gumbel", "puct"])
    ap.add_argument("--nets", default="small,sparse", help=f"comma list of {sorted(NETS)}")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    args = ap.parse_args()
    scale = bool(args.cores) or args.one_core_json
    args.games = args.games or (256 if scale else 48)
    args.in_flight = args.in_flight or (128 if scale else 96)
    if args.one_core_json:
        import json

        print(json.dumps(one_core(args)))
        return
    if args.cores:
        main_cores(args)
        return
    torch.set_num_threads(args.threads)
    print(
        f"{args.variant}, {args.search} {args.sims} sims, {args.in_flight} games in flight, "
        f"{args.games} games, device {args.device}, {args.threads} torch threads"
    )
    rows = [
        measure(s, args.variant, args.games, args.in_flight, args.sims, args.search, args.device)
        for s in args.nets.split(",")
    ]
    cols = [
        "net",
        "params",
        "sims/s",
        "positions/s",
        "games/CPU-min",
        "leaves/call",
        "net share",
        "us/eval",
        "us/sim other",
        "us/sim movegen",
        "us/sim rest",
        "wall s",
    ]
    print("  ".join(f"{c:>13}" for c in cols))
    for r in rows:
        print(
            "  ".join(f"{r[c]:>13.3g}" if isinstance(r[c], float) else f"{r[c]:>13}" for c in cols)
        )
    for r in rows[1:]:
        print(
            f"ratio {r['net']}/{rows[0]['net']}: simulations/s "
            f"{r['sims/s'] / rows[0]['sims/s']:.2f}x, games per CPU-minute "
            f"{r['games/CPU-min'] / rows[0]['games/CPU-min']:.2f}x"
        )
    print(
        "us/sim other = wall time outside the network per simulation: movegen (the moves "
        "and legal steps of each expanded leaf) and rest (descent, the in-tree step and "
        "repetition record, backup, root selection, self-play's own per-move work)"
    )


if __name__ == "__main__":
    main()
