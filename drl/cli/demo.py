"""``drl-demo``: a quick look at the rules engine.

Prints perft counts from the start position of every preset (with nodes/s), then plays
one seeded random game and prints it as PDN.

Usage::

    drl-demo [--depth N] [--variant NAME] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import time

from drl.rules import Board, Variant
from drl.rules.pdn import board_to_pdn
from drl.rules.perft import perft
from drl.rules.variant import PRESETS


def _random_game(variant: str, seed: int, max_plies: int) -> Board:
    """Play uniformly random legal moves until the game ends or ``max_plies`` is reached."""
    rng = random.Random(seed)
    board = Board(variant)
    while board.outcome() is None and board.ply < max_plies:
        board.push(rng.choice(board.legal_moves))
    return board


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``drl-demo``; returns the process exit status."""
    parser = argparse.ArgumentParser(prog="drl-demo", description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=9, help="perft depth (default 9)")
    parser.add_argument("--variant", default="give_and_take", help="variant of the random game")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random game")
    parser.add_argument("--max-plies", type=int, default=300, help="cap on the random game")
    args = parser.parse_args(argv)

    print(f"perft from the start position, depth {args.depth}")
    print(f"{'variant':<16}{'nodes':>14}{'seconds':>10}{'nodes/s':>14}")
    for name in PRESETS:
        board = Board(name)
        perft(board, 1)  # compile / load the cached kernels outside the timing
        start = time.perf_counter()
        nodes = perft(board, args.depth)
        seconds = time.perf_counter() - start
        print(f"{name:<16}{nodes:>14,}{seconds:>10.3f}{nodes / max(seconds, 1e-9):>14,.0f}")

    variant = Variant.parse(args.variant)
    board = _random_game(str(variant), args.seed, args.max_plies)
    print()
    print(f"one random game of {variant} (seed {args.seed}):")
    tags = {"Event": "drl-demo random game", "Black": "random", "White": "random"}
    print(board_to_pdn(board, tags=tags))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
