"""``drl-hub``: a drl agent as an engine, over the Hub protocol (stdin/stdout) or DXP (TCP).

Usage::

    drl-hub --agent alphabeta:depth=6 [--variant international] [--protocol auto|1|2]
    drl-hub --agent alphabeta:depth=4 --dxp --connect 127.0.0.1:27531       # follower
    drl-hub --agent alphabeta:depth=4 --dxp --listen 27531 --initiate --games 2

**Hub.** Hub-2 as Scan 3.x and lidraughts clients speak it, and Hub-1 as Scan 2.0 speaks
it (both described in :mod:`drl.agents.engines.hub`). Each command is read in the form it is
written in: ``pos pos=...`` / ``level depth=...`` / ``go think`` (answered
``done move=...``) are Hub-2; ``pos <w|b...>`` / ``depth N`` / ``time <ms>`` / ``go``
(answered ``move ...``) are Hub-1. ``--protocol`` only chooses the
reply to ``hub``: Hub-2's ``id``/``param`` lines, Hub-1's ``name``/``author``/``country``,
or (``auto``) both, then ``wait``. The Hub-2 ``variant`` parameter takes ``normal``
(International) and ``losing`` (International, both sides give), drl's 8x8 names
``english``, ``russian``, ``brazilian``, ``giveaway``, ``losing8x8`` (drl's ``losing``),
``give_and_take``, or any drl variant string; Scan's ``killer``, ``bt`` and ``frisian``
are refused (drl does not implement them). A ``level`` with ``depth`` or ``move-time``
sets the agent's ``depth=`` / ``time=`` parameter when its kind has one. Searches run to
completion: ``stop``, ``ping`` and ``ponder-hit`` sent during one are read after it.

**DXP** (International only): ``--connect HOST:PORT`` or ``--listen [HOST:]PORT`` (127.0.0.1
unless a host is named; port 0 lets the OS choose, printed on stderr). Without
``--initiate`` drl-hub follows: it accepts each GAMEREQ and plays the side it is given.
With ``--initiate`` it sends ``--games`` GAMEREQs (start position, colours alternating,
``--time`` seconds per move on the clock) and prints each result. A follower refuses a
GAMEREQ with GAMEACC code ``1`` for a protocol version other than ``01`` and ``2`` for one
it cannot play (malformed, a clock field that is not 3 digits, a finished position, or a
game still in progress: that game goes on). ``--timeout`` bounds the wait for a peer to
connect (``--listen``) or for the connection (``--connect``), for the follower's first
message, and for each reply to the initiator; past it drl-hub exits with status 2 and a
line naming the address.

Input is bounded (:mod:`drl.agents.engines.records`): a Hub line over 64 KiB gets an ``error``
that quotes its start and size, and is skipped; a DXP message over 1 KiB ends the
connection (status 2). Other bad input gets an ``error`` reply (Hub) or a line on stderr
(DXP), never a traceback; ``quit``, end of input or a connection closed by the peer end
the program with status 0.
"""

from __future__ import annotations

import argparse
import math
import sys

from drl.agents import make
from drl.agents.engines import HubServer, serve_dxp

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``drl-hub``; returns the exit status.

    The status is 0, or 2 for bad arguments or a lost connection.
    """
    parser = argparse.ArgumentParser(prog="drl-hub", description=__doc__.split("\n")[0])
    parser.add_argument("--agent", default="alphabeta:depth=6", help="agent spec (drl-eval's)")
    parser.add_argument("--variant", default="international", help="variant (Hub-2 may change it)")
    parser.add_argument("--protocol", choices=("auto", "1", "2"), default="auto")
    parser.add_argument("--dxp", action="store_true", help="play DXP over TCP instead of Hub")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--connect", metavar="HOST:PORT")
    where.add_argument("--listen", metavar="[HOST:]PORT")
    parser.add_argument("--initiate", action="store_true", help="DXP: send the game requests")
    parser.add_argument("--games", type=int, default=2, help="DXP --initiate: games to play")
    parser.add_argument("--time", type=float, default=1.0, help="DXP --initiate: s per move")
    parser.add_argument("--max-plies", type=int, default=200, help="DXP --initiate: ply cap")
    parser.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        help="DXP: s to wait for the peer to connect and for its first message (as "
        "--initiate: for each reply)",
    )
    args = parser.parse_args(argv)
    if not (math.isfinite(args.timeout) and args.timeout > 0):
        parser.error(f"--timeout must be a positive number of seconds, got {args.timeout:g}")
    try:
        if args.dxp:
            if not (args.connect or args.listen):
                parser.error("--dxp needs --connect HOST:PORT or --listen [HOST:]PORT")
            agent = make(args.agent)
            agent.check_variant("international")
            return serve_dxp(
                agent,
                args.connect or args.listen,
                listen=not args.connect,
                initiate=args.initiate,
                games=args.games,
                move_time=args.time,
                max_plies=args.max_plies,
                timeout=args.timeout,
            )
        server = HubServer(args.agent, args.variant, args.protocol, sys.stdin, sys.stdout)
    except (ValueError, OSError, RuntimeError) as err:
        print(f"drl-hub: {str(err).splitlines()[0]}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    try:
        return server.run()
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
