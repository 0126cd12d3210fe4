"""``drl-egtb``: build, count and probe endgame databases.

Usage::

    drl-egtb build VARIANT --pieces N [--dir DIR] [--quiet]
    drl-egtb stats VARIANT --pieces N [--dir DIR] [--quiet]
    drl-egtb probe VARIANT FEN [FEN ...] [--dir DIR] [--quiet]

Examples: ``drl-egtb build english --pieces 4``,
``drl-egtb stats give_and_take:taker=white --pieces 3``,
``drl-egtb probe english "W:WK1,K2:BK32" "B:W18:B14"``.

``probe`` prints one line per FEN, in order: ``win``, ``loss`` or ``draw`` for the side
to move, the plies to the end under best play, and the FEN; it builds what it needs
first. Databases live in ``--dir``, else ``$DRL_EGTB_DIR``, else ``~/.cache/drl/egtb``.
"""

from __future__ import annotations

import argparse
import sys

from drl._atomic import error_line


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="drl-egtb",
        description="Endgame databases: exact values of every position with few pieces.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name, text in (
        ("build", "build the database up to N pieces (extends a smaller one)"),
        ("stats", "positions, won, drawn and lost for the side to move, per piece count"),
        ("probe", "the value of positions given as FEN (builds what it needs)"),
    ):
        p = sub.add_parser(name, help=text, description=text)
        p.add_argument(
            "variant", help="variant string, e.g. english or 'give_and_take:taker=white'"
        )
        if name == "probe":
            p.add_argument("fens", nargs="+", metavar="FEN", help="positions, e.g. W:WK1:BK32")
        else:
            p.add_argument("--pieces", type=int, required=True, help="most pieces, >= 1")
        p.add_argument("--dir", default=None, help="database folder (default $DRL_EGTB_DIR)")
        p.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def _print_stats(rows: list[dict[str, int]]) -> None:
    print(f"{'pieces':>6} {'positions':>14} {'won':>14} {'drawn':>14} {'lost':>14} {'longest':>8}")
    for r in rows:
        print(
            f"{r['pieces']:>6} {r['positions']:>14,} {r['won']:>14,} {r['drawn']:>14,} "
            f"{r['lost']:>14,} {r['longest']:>8}"
        )


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``drl-egtb``; returns the process exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    from drl import egtb
    from drl.rules.fen import FENError

    progress = not args.quiet
    try:
        if args.command == "probe":
            results = egtb.probe(args.variant, args.fens, directory=args.dir, progress=progress)
            for fen, result in zip(args.fens, results, strict=True):
                print(f"{result.value}\t{result.plies}\t{fen}")
        elif args.command == "stats":
            _print_stats(
                egtb.stats(args.variant, args.pieces, directory=args.dir, progress=progress)
            )
        else:
            db = egtb.build(args.variant, args.pieces, directory=args.dir, progress=progress)
            seconds = sum(row[2] for row in db.header["build_seconds"])
            print(f"{db.path}  ({db.path.stat().st_size:,} bytes, up to {db.pieces} pieces)")
            print(f"built in {seconds:.1f} s in all")
    except (egtb.EgtbError, FENError) as err:
        parser.exit(2, f"drl-egtb: error: {err}\n")
    except OSError as err:
        parser.exit(1, f"drl-egtb: error: {error_line(err)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
