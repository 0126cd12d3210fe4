"""``drl-perft``: count the leaves of the legal-move tree of a variant.

Usage::

    drl-perft VARIANT DEPTH [--fen FEN] [--divide]

Examples: ``drl-perft english 10``, ``drl-perft "give_and_take:taker=white" 8``,
``drl-perft international 5 --fen "W:W31-50:B1-20" --divide``.
"""

from __future__ import annotations

import argparse
import sys
import time

from drl.rules._quote import excerpt
from drl.rules.perft import MAX_DEPTH, divide, perft
from drl.rules.variant import Variant, VariantError


def _position(variant: Variant, fen: str | None):
    if fen is None:
        return variant
    from drl.rules.board import Board  # the FEN reader lives with the Board

    return Board(variant, fen=fen)


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``drl-perft``; returns the process exit status."""
    parser = argparse.ArgumentParser(
        prog="drl-perft", description="Count the leaf nodes of the legal-move tree (perft)."
    )
    parser.add_argument(
        "variant",
        help="variant string, e.g. english or 'give_and_take:taker=white,max_capture=true'",
    )
    parser.add_argument("depth", type=int, help=f"plies to search (0..{MAX_DEPTH})")
    parser.add_argument("--fen", help="start from this FEN instead of the start position")
    parser.add_argument(
        "--divide", action="store_true", help="also print the leaf count below each first move"
    )
    args = parser.parse_args(argv)
    if args.depth < 0 or (args.divide and args.depth < 1):
        parser.error("depth must be >= 0 (>= 1 with --divide)")
    if args.depth > MAX_DEPTH:
        parser.error(
            f"depth {excerpt(args.depth)} is over the limit {MAX_DEPTH} plies (no tree that still "
            f"branches that deep can be counted, and perft keeps a move list per ply)"
        )
    try:
        variant = Variant.parse(args.variant)
        position = _position(variant, args.fen)
    except (VariantError, ValueError) as err:
        parser.error(str(err))

    # Load (or compile) the kernels outside the timing.
    divide(position, 1) if args.divide else perft(position, 1)
    start = time.perf_counter()
    if args.divide:
        split = divide(position, args.depth)
        for move, count in split.items():
            print(f"{move:<24} {count}")
        nodes = sum(split.values())
    else:
        nodes = perft(position, args.depth)
    elapsed = time.perf_counter() - start
    rate = nodes / elapsed if elapsed > 0 else float("inf")
    print(f"variant {variant}  depth {args.depth}")
    print(f"nodes   {nodes}")
    print(f"time    {elapsed:.3f} s")
    print(f"speed   {rate:,.0f} nodes/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
