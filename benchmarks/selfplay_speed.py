"""Self-play throughput at two network sizes, and where the time goes.

Plays self-play games (Give and Take by default) with an untrained network of each size
and prints positions/s, simulations/s, network positions per call and the fraction of
wall time spent inside the network's forward pass (the rest is search, move generation
and encoding). The design target is >= 80% in the network at the default size.

    python benchmarks/selfplay_speed.py                 # small (default) and medium
    python benchmarks/selfplay_speed.py --games 64 --in-flight 128 --device cuda
"""

from __future__ import annotations

import argparse
import os
import time

import torch

from drl import nn as drl_nn
from drl.encode.actions import num_actions
from drl.encode.planes import N_CHANNELS
from drl.eval.arena import role_variant
from drl.nn import NetworkEvaluator
from drl.rules import Variant
from drl.search import SearchConfig
from drl.train.selfplay import SelfPlayActor, SelfPlayConfig

SIZES = {"small": (32, 3, 4, 2, 64), "medium": (64, 6, 8, 4, 128)}


def measure(size: str, variant: str, games: int, in_flight: int, sims: int, mode: str,
            device: str) -> dict:
    ch, blocks, pc, vc, vh = SIZES[size]
    v = Variant.parse(variant)
    n = v.board_size
    torch.manual_seed(0)  # the same network every run, so runs play the same games
    net = drl_nn.build("resnet", in_channels=N_CHANNELS, board_size=n,
                       num_actions=num_actions(n), channels=ch, blocks=blocks,
                       policy_channels=pc, value_channels=vc, value_hidden=vh)
    variants = [role_variant(v, "black"), role_variant(v, "white")] if v.is_asymmetric else [v]
    actor = SelfPlayActor(variants, SearchConfig(num_simulations=sims, root_selection=mode),
                          SelfPlayConfig(games_in_flight=in_flight, max_plies=200), seed=0)
    warm = NetworkEvaluator(net, device)
    actor.play(warm, 1)  # compile / warm up; its games are not counted
    ev = NetworkEvaluator(net, device)
    t0 = time.perf_counter()
    st = actor.play(ev, games)
    wall = time.perf_counter() - t0
    return {"size": size, "params": net.num_parameters(), "positions/s": st.positions / wall,
            "sims/s": st.simulations / wall, "leaves/call": st.leaf_evals / max(st.net_batches, 1),
            "net fraction": ev.seconds / wall, "wall s": wall, "games": st.games}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", default="give_and_take")
    ap.add_argument("--games", type=int, default=48)
    ap.add_argument("--in-flight", type=int, default=96)
    ap.add_argument("--sims", type=int, default=32)
    ap.add_argument("--search", default="gumbel", choices=["gumbel", "puct"])
    ap.add_argument("--sizes", default="small,medium")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    print(f"{args.variant}, {args.search} {args.sims} sims, {args.in_flight} games in flight, "
          f"{args.games} games, device {args.device}, {args.threads} threads")
    rows = [measure(s, args.variant, args.games, args.in_flight, args.sims, args.search,
                    args.device) for s in args.sizes.split(",")]
    cols = ["size", "params", "positions/s", "sims/s", "leaves/call", "net fraction", "wall s"]
    print("  ".join(f"{c:>12}" for c in cols))
    for r in rows:
        print("  ".join(f"{r[c]:>12.3g}" if isinstance(r[c], float) else f"{r[c]:>12}"
                        for c in cols))
    if len(rows) == 2:
        print(f"ratio {rows[1]['size']}/{rows[0]['size']}: positions/s "
              f"{rows[1]['positions/s'] / rows[0]['positions/s']:.2f}x")


if __name__ == "__main__":
    main()
