"""``drl-web``: play any agent in any variant on a board in the browser, and replay games.

    drl-web                                       # http://127.0.0.1:8765/
    drl-web --opponent alphabeta:depth=6 --variant give_and_take --port 8000
    drl-web --games runs/english-20260101-120000  # its PDN files open by path too

The server listens on 127.0.0.1 only, and answers only requests addressed to 127.0.0.1,
localhost, [::1] or another loopback address it listens on (``--host 127.0.0.2``). With a
non-loopback ``--host`` (e.g. ``0.0.0.0``) anyone who reaches the machine can play, read
the ``--games`` folder and make the server read any file it can named in an ``az:ckpt=``
spec. Only the server's own page may change anything (start games, upload files): a page
of another origin is refused. The games and replays are held within a memory budget
(``--memory GIB``, default a quarter of the machine's memory): a game or file beyond it is
refused with a message. Every opponent move has a hard time limit, after which its search
is stopped. A page may choose
an engine that runs an external program (``hub:``, ``dxp:``) only when the same spec was
given here, with ``--opponent`` or ``--engine`` (repeatable):

    drl-web --engine 'hub:cmd=/tmp/scan/scan,cwd=/tmp/scan,depth=4' --variant international

Ctrl-C or SIGTERM stops it: every opponent is closed (engine
processes included) and, with ``--save``, every game's PDN is written whole one last time.

Needs Flask: ``pip install -e ".[web]"`` (or ``pip install "flask>=3"``).

Exit status: 0 stopped by Ctrl-C / SIGTERM, 2 bad arguments, Flask missing or the port
taken (one line on stderr).
"""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
import signal
import socket
import sys
from types import FrameType
from typing import Any, NoReturn

__all__ = ["main", "serve"]

PROG = "drl-web"
INSTALL = 'pip install -e ".[web]" (or pip install "flask>=3")'
"""How to install what ``drl-web`` needs, for the message when Flask is missing."""


def _fail(message: str) -> NoReturn:
    print(f"{PROG}: {message}", file=sys.stderr)
    sys.exit(2)


class _Parser(argparse.ArgumentParser):
    """Bad arguments are one line (``--help`` gives the usage)."""

    def error(self, message: str) -> NoReturn:
        _fail(f"{message} (see --help)")


def _parser() -> argparse.ArgumentParser:
    ap = _Parser(prog=PROG, description=__doc__.split("\n\n")[0])
    ap.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    ap.add_argument("--port", type=int, default=8765, help="port (8765; 0: any free port)")
    ap.add_argument("--variant", default="english", help="the form's variant (english)")
    ap.add_argument("--opponent", default="random", help="the form's opponent spec (random)")
    ap.add_argument(
        "--engine",
        action="append",
        default=[],
        metavar="SPEC",
        help="an agent spec that runs a program (hub:, dxp:) a page may choose (repeatable)",
    )
    ap.add_argument("--color", choices=("black", "white"), default="black")
    ap.add_argument("--role", choices=("taker", "giver"), default=None)
    ap.add_argument(
        "--move-time", type=float, default=None, help="the form's seconds per opponent move"
    )
    ap.add_argument("--games", default=None, help="folder whose PDN files open by path")
    ap.add_argument("--save", default=None, help="folder to write every game's PDN to")
    ap.add_argument("--max-games", type=int, default=32, help="games open at once (32)")
    ap.add_argument(
        "--memory",
        type=float,
        default=None,
        metavar="GIB",
        help="memory budget of the games and replays in GiB (a quarter of the machine's)",
    )
    ap.add_argument("--verbose", action="store_true", help="log every request")
    return ap


class Stopped(Exception):
    """SIGTERM, raised in the main thread so that the server stops as on Ctrl-C."""


def _stop(signum: int, frame: FrameType | None) -> None:
    raise Stopped


def _application(args: argparse.Namespace) -> tuple[Any, Any]:
    """``(Flask application, game store)`` of the command line's options.

    Raises:
        SystemExit: Flask is missing, or a bad default, folder or option (status 2).
    """
    try:
        from drl.web.app import create_app
    except ImportError as err:
        _fail(f"the browser board needs Flask ({err}): {INSTALL}")
    from drl.web import GameError, GameSettings, WebGame
    from drl.web.app import LOOPBACK_HOSTS
    from drl.web.budget import MemoryBudget, default_budget
    from drl.web.replay import ReplayFolder
    from drl.web.settings import game_variant, starts_process
    from drl.web.store import GameStore

    form = {k: getattr(args, k) for k in ("variant", "opponent", "color", "role", "move_time")}
    try:
        defaults = GameSettings.from_json(form)
        game_variant(defaults.variant, defaults.color, defaults.role)
        if not starts_process(defaults.opponent):  # an engine starts on its first move
            WebGame(defaults, "start-up").close()  # a checkpoint that does not load...
        for spec in args.engine:
            if not starts_process(spec):
                raise GameError(f"--engine {spec!r}: not an agent that runs a program")
        folder = None if args.games is None else ReplayFolder(args.games)
        memory = default_budget() if args.memory is None else int(args.memory * 2**30)
        budget = MemoryBudget(memory)
        store = GameStore(max_games=args.max_games, save_dir=args.save, budget=budget)
    except (GameError, ValueError, OSError) as err:
        _fail(str(err))
    hosts = LOOPBACK_HOSTS | {_url_host(args.host)} if _loopback(args.host) else None
    return create_app(store, folder, defaults, args.engine, hosts), store


def _url_host(host: str) -> str:
    """``host`` as written in a URL and a ``Host`` header: an IPv6 address in brackets."""
    host = host.strip().lower()
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def _loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address or ``localhost``."""
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _bind_error(host: str, port: int) -> str:
    """Why ``host:port`` cannot be listened on, as the system says it."""
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as trial:
            trial.bind((host, port))
    except OSError as err:
        return err.strerror or str(err)
    return "the address could not be bound"


def serve(args: argparse.Namespace) -> int:
    """Serve the board until Ctrl-C or SIGTERM, then close every game.

    Args:
        args: the parsed command line (see ``drl-web --help``).

    Returns:
        The exit status (0).

    Raises:
        SystemExit: Flask is missing, a bad option or folder, or the port cannot be
            bound (status 2, one line on stderr).
    """
    app, store = _application(args)
    from drl.web.serving import make_bounded_server  # needs werkzeug, installed with Flask

    try:
        server = make_bounded_server(args.host, args.port, app)
    except OSError as err:
        _fail(f"cannot listen on {args.host}:{args.port}: {err.strerror or err}")
    except SystemExit:  # werkzeug printed the error and exits with 1
        _fail(f"cannot listen on {args.host}:{args.port}: {_bind_error(args.host, args.port)}")
    host, port = server.socket.getsockname()[:2]
    if not _loopback(args.host):
        logging.getLogger("drl.web").warning(
            "listening on %s: anyone who reaches this machine can play, open the --games "
            "folder's PDN files and make this server read any file it can that is named "
            "in an az:ckpt= spec",
            args.host,
        )
    print(f"{PROG}: http://{_url_host(host)}:{port}/ (Ctrl-C stops it)", flush=True)
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGTERM, _stop)
    try:
        server.serve_forever()
    except (KeyboardInterrupt, Stopped):
        pass
    finally:
        for sig in handlers:
            signal.signal(sig, signal.SIG_IGN)  # the games are closed whatever comes
        server.server_close()
        closed = store.close_all()
        print(f"{PROG}: stopped; {closed} game(s) closed", flush=True)
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Console entry point (see the module docstring).

    Args:
        argv: the arguments after the program name (None: ``sys.argv[1:]``).

    Returns:
        The exit status (0).

    Raises:
        SystemExit: ``--help`` (status 0); bad arguments, or as :func:`serve` (status 2).
    """
    args = _parser().parse_args(argv)
    if not 0 <= args.port <= 65535:
        _fail(f"--port must be 0..65535, got {args.port}")
    if args.memory is not None and not 0.0625 <= args.memory <= 2**20:  # also refuses nan
        _fail(f"--memory must be a number of GiB in [0.0625, 1048576], got {args.memory}")
    logging.basicConfig(
        level=logging.INFO, format=f"{PROG}: %(message)s", stream=sys.stderr, force=True
    )
    logging.getLogger("werkzeug").setLevel(logging.INFO if args.verbose else logging.WARNING)
    if args.games is not None:
        args.games = os.path.expanduser(args.games)
    return serve(args)


if __name__ == "__main__":
    sys.exit(main())
