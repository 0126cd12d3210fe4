"""``drl-hub``: a drl agent as an engine, over the Hub protocol (stdin/stdout) or DXP (TCP).

Usage::

    drl-hub --agent alphabeta:depth=6 [--variant international] [--protocol auto|1|2]
    drl-hub --agent alphabeta:depth=4 --dxp --connect 127.0.0.1:27531       # follower
    drl-hub --agent alphabeta:depth=4 --dxp --listen 27531 --initiate --games 2

**Hub.** Hub-2 as Scan 3.x and lidraughts clients speak it, and Hub-1 as Scan 2.0 speaks
it (both described in :mod:`drl.agents.hub`). Each command is read in the form it is
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

Input is bounded (:mod:`drl.agents._records`): a Hub line over 64 KiB gets an ``error``
that quotes its start and size, and is skipped; a DXP message over 1 KiB ends the
connection (status 2). Other bad input gets an ``error`` reply (Hub) or a line on stderr
(DXP), never a traceback; ``quit``, end of input or a connection closed by the peer end
the program with status 0.
"""

from __future__ import annotations

import argparse
import math
import socket
import sys
from typing import IO, Any

from drl.agents import Agent, make, parse_spec
from drl.agents._records import HUB_LINE_LIMIT, RecordReader, RecordTooLong
from drl.agents._wire import (
    HUB_VARIANTS,
    board_from_hub,
    format_hub_line,
    hub_variant_name,
    match_move,
    move_text,
    parse_hub_line,
    parse_move_text,
    variant_of_hub_name,
)
from drl.agents.registry import _REGISTRY, canonical_spec
from drl.rules import Board, Color, Move, Variant
from drl.rules._quote import excerpt

__all__ = ["main", "HubServer"]

ENGINE_NAME = "drl"


class _Agents:
    """The agent of ``--agent``, rebuilt with ``depth=`` / ``time=`` from ``level``."""

    def __init__(self, spec: str) -> None:
        self.kind, self.values = parse_spec(spec)
        self.params = _REGISTRY[self.kind].params
        self.limits: dict[str, Any] = {}
        self._built: dict[str, Agent] = {}

    def set_limit(self, key: str, value: Any) -> None:
        if key in self.params:
            self.limits[key] = self.params[key].convert(self.kind, key, str(value))

    def clear_limits(self) -> None:
        self.limits = {}

    def current(self) -> Agent:
        values = {**self.values, **self.limits}
        if "depth" in self.limits and "time" in values and "time" not in self.limits:
            values.pop("time")
        if "time" in self.limits and "depth" in values and "depth" not in self.limits:
            values.pop("depth")
        spec = canonical_spec(self.kind, values)
        if spec not in self._built:
            self._built[spec] = make(spec)
        return self._built[spec]

    def reset(self) -> None:
        for agent in self._built.values():
            agent.reset()

    def close(self) -> None:
        for agent in self._built.values():
            close = getattr(agent, "close", None)
            if close is not None:
                close()


class HubServer:
    """The Hub loop of ``drl-hub`` (module doc).

    Args:
        agent: the agent spec.
        variant: the variant before any ``set-param name=variant``.
        protocol: ``auto``, ``1`` or ``2`` (the reply to ``hub``).
        stdin, stdout: the client's lines. ``stdin`` is read as bytes (its ``buffer``
            when it is a text stream), at most :data:`~drl.agents._records.
            HUB_LINE_LIMIT` bytes a line: a longer line is answered with an ``error``
            that quotes its start and size, and skipped.

    Raises:
        ValueError: a bad agent spec, or an agent that cannot play ``variant``.
    """

    def __init__(
        self, agent: str, variant: Variant | str, protocol: str, stdin: IO[str], stdout: IO[str]
    ) -> None:
        self.agents = _Agents(agent)
        self.variant = Variant.parse(variant)
        self.agents.current().check_variant(self.variant)
        self.protocol = protocol
        self.stdin, self.stdout = stdin, stdout
        source: Any = getattr(stdin, "buffer", stdin)
        self._lines = RecordReader(
            getattr(source, "read1", source.read), b"\n", HUB_LINE_LIMIT, "line"
        )
        self.board = Board(self.variant)
        self.refused_pos = False

    def say(self, line: str) -> None:
        """Write one line to the GUI."""
        self.stdout.write(line + "\n")
        self.stdout.flush()

    def error(self, message: str, hub2: bool = True) -> None:
        """Send an ``error`` line (in Hub-2's form when ``hub2`` and the protocol is 2)."""
        if len(message) > _MESSAGE_CHARS:  # messages quote excerpts; this is a backstop
            message = message[:_MESSAGE_CHARS] + f"... ({len(message)} characters)"
        if hub2 and self.protocol != "1":
            self.say(format_hub_line("error", message=message))
        else:
            self.say("error " + message)

    @staticmethod
    def _speaks_hub2(line: str) -> bool:
        """Whether a command is in Hub-2's form rather than Hub-1's.

        Hub-2: ``go think``, ``pos pos=...``, ``key=value`` arguments; Hub-1: ``go``,
        ``pos <51 chars>``.
        """
        words = line.split()
        if words[0] in ("go", "ponder", "analyse", "analyze"):
            return len(words) > 1
        if words[0] == "pos":
            return not (len(words) == 2 and "=" not in words[1])
        return len(words) == 1 or "=" in line

    def run(self) -> int:
        """Answer commands until ``quit`` or end of input; returns 0."""
        try:
            while True:
                try:
                    raw = self._lines.next()
                except RecordTooLong as err:
                    size = err.size if err.complete else self._lines.skip()
                    head = err.head.decode("utf-8", "replace").strip()
                    self.error(err.describe(size), hub2=bool(head) and self._speaks_hub2(head))
                    continue
                if raw is None:
                    break
                line = raw.decode("utf-8", "replace").strip()
                if not line:
                    continue
                try:
                    if self.handle(line) is False:
                        break
                except (ValueError, RuntimeError) as err:
                    if line.split()[0] == "pos":
                        self.refused_pos = True  # no search until a position is accepted
                    self.error(str(err).splitlines()[0], hub2=self._speaks_hub2(line))
        finally:
            self.agents.close()
        return 0

    def _hello(self) -> None:
        if self.protocol in ("auto", "2"):
            from drl import __version__

            self.say(format_hub_line("id", name=ENGINE_NAME, version=__version__, author="drl"))
            names = list(HUB_VARIANTS)
            current = hub_variant_name(self.variant)
            if current not in names:
                names.append(current)
            self.say(
                format_hub_line(
                    "param",
                    name="variant",
                    value=current,
                    type="enum",
                    values=" ".join(names),
                )
            )
        if self.protocol in ("auto", "1"):
            self.say(f"name {ENGINE_NAME}")
            self.say("author drl")
        self.say("wait")

    def _set_variant(self, name: str) -> None:
        variant = variant_of_hub_name(name)
        self.agents.current().check_variant(variant)
        self.variant = variant
        self.board = Board(variant)

    def handle(self, line: str) -> bool:
        """One command; False to stop.

        Raises:
            ValueError: a malformed command (answered with ``error``).
        """
        words = line.split()
        cmd = words[0]
        if cmd == "quit":
            return False
        if cmd == "hub":
            self._hello()
        elif cmd == "init":
            self.say("ready")
        elif cmd == "ping":
            self.say("pong")
        elif cmd in ("new-game", "new"):
            self.agents.reset()
        elif cmd == "start":
            self.board = Board(self.variant)
            self.refused_pos = False
            self.agents.clear_limits()
        elif cmd in ("stop", "ponder-hit"):
            pass
        elif cmd == "set-param":
            args = parse_hub_line(line)[1]
            if args.get("name") == "variant":
                self._set_variant(args.get("value", ""))
        elif cmd == "set":
            if len(words) >= 3 and words[1] == "variant":
                self._set_variant(words[2])
        elif cmd == "pos":
            self._position(line)
        elif cmd == "level":
            self._level(line)
        elif cmd == "depth" and len(words) == 2:
            self.agents.set_limit("depth", _number("depth", "plies", words[1], int))
        elif cmd == "time" and len(words) == 2:
            ms = _number("time", "milliseconds", words[1], int)
            self.agents.set_limit("time", max(ms, 1) / 1000.0)
        elif cmd == "move" and len(words) == 2:
            self.board.push(self._read_move(self.board, words[1]))
        elif cmd in ("go", "ponder", "analyse", "analyze"):
            self._go(hub2=len(words) > 1)
        else:
            _warn(f"ignoring unknown command {excerpt(line)}")
        return True

    @staticmethod
    def _read_move(board: Board, text: str) -> Move:
        move = match_move(board, *parse_move_text(text))
        if move is None:
            raise ValueError(f"illegal move {excerpt(text)} in {board.fen()}")
        return move

    def _position(self, line: str) -> None:
        words = line.split()
        if len(words) == 2 and "=" not in words[1]:  # Hub-1
            self.board = board_from_hub(words[1], self.variant)
        else:
            args = parse_hub_line(line)[1]
            if "pos" not in args:
                raise ValueError("pos needs pos=<position>")
            board = board_from_hub(args["pos"], self.variant)
            for text in args.get("moves", "").split():
                board.push(self._read_move(board, text))
            self.board = board
        self.refused_pos = False
        self.agents.clear_limits()  # as in Scan: pos resets the search limits

    def _level(self, line: str) -> None:
        words = line.split()
        if len(words) == 4 and all(w.lstrip("-").isdigit() for w in words[1:]):  # Hub-1
            moves, ms = max(int(words[1]), 1), int(words[2])
            self.agents.set_limit("time", max(ms / 1000.0 / moves, 0.01))
            return
        args = parse_hub_line(line)[1]
        if "depth" in args:
            self.agents.set_limit("depth", _number("level", "depth", args["depth"], int))
        if "move-time" in args:
            per = _number("level", "move-time", args["move-time"])
            self.agents.set_limit("time", max(per, 0.001))
        elif "time" in args:
            total = _number("level", "time", args["time"])
            moves = max(_number("level", "moves", args.get("moves", "") or "30", int), 1)
            inc = _number("level", "inc", args.get("inc", "") or "0")
            self.agents.set_limit("time", max(total / moves + inc, 0.01))

    def _go(self, hub2: bool) -> None:
        if self.refused_pos:
            raise ValueError("no position to search: the last pos was refused")
        if self.board.outcome() is not None or not self.board.legal_moves:
            raise ValueError(f"no move to search: the game is over in {self.board.fen()}")
        move = self.agents.current().select_move(self.board)
        if hub2:
            self.say(format_hub_line("done", move=move_text(move)))
        else:
            self.say(f"move {move_text(move)}")


def _number(command: str, key: str, text: str, kind: type = float) -> Any:
    """``text`` as a finite number (``kind`` int: a whole one).

    Raises:
        ValueError: naming the command and the field, e.g. ``level: time='abc' is not a
            number``.
    """
    try:
        value = kind(text)
    except ValueError:
        value = None
    if value is None or (kind is float and not math.isfinite(value)):
        what = "a whole number" if kind is int else "a finite number"
        raise ValueError(f"{command}: {key}={excerpt(text)} is not {what}")
    return value


_NO_LIMIT = 1e9
"""Seconds the follower waits for a message after the first (the peer may think long)."""

_MESSAGE_CHARS = 1000
"""Characters of an ``error`` reply at most."""


# -- DXP ---------------------------------------------------------------------------------


def _address(text: str, listen: bool) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep:
        host = ""
    if not port.isdigit() or not 0 <= int(port) <= 65535 or (not listen and int(port) == 0):
        raise ValueError(f"{text!r}: expected [HOST:]PORT with a port number")
    return host or "127.0.0.1", int(port)


class _DXPSession:
    """One DXP connection played by ``drl-hub``."""

    def __init__(
        self, sock: socket.socket, agent: Agent, timeout: float, label: str = "DXP peer"
    ) -> None:
        from drl.agents.dxp import DXPConnection

        self.conn = DXPConnection(sock, label)
        self.agent = agent
        self.timeout = timeout
        self.variant = Variant.parse("international")

    def _move(self, board: Board) -> None:
        from drl.agents.dxp import move_message

        move = self.agent.select_move(board)
        board.push(move)
        self.conn.send(move_message(move))

    def _their_move(self, board: Board, msg: str) -> bool:
        from drl.agents.dxp import parse_move_message

        try:
            move = match_move(board, *parse_move_message(msg))
        except ValueError:
            move = None
        if move is None:
            _warn(f"illegal or unreadable move {excerpt(msg)} in {board.fen()}; game abandoned")
            self.conn.send("CInvalid move")
            self.conn.send("E00")
            return False
        board.push(move)
        return True

    def follow(self, first_timeout: float) -> None:
        """Accept games until the peer stops (``E`` with stop code 1) or disconnects.

        Args:
            first_timeout: seconds to wait for the peer's first message (later ones are
                waited for without a limit: the peer may think for long).

        Raises:
            EngineError: no first message within ``first_timeout``, or a message over
                :data:`~drl.agents._records.DXP_MESSAGE_LIMIT` bytes (the connection is
                then dropped).
        """
        board: Board | None = None
        ours = Color.WHITE
        from drl.agents._process import EngineError

        first = True
        while True:
            try:
                if first:
                    msg = self.conn.receive(first_timeout, "the peer's first message")
                else:
                    msg = self.conn.receive(_NO_LIMIT, "a DXP message")
            except EngineError as err:
                if self.conn.peer_closed:
                    return
                if self.conn.broken:
                    raise EngineError(f"{err}; connection dropped") from None
                raise
            first = False
            kind = msg[:1]
            if kind == "R":
                if board is not None and board.outcome() is None and board.legal_moves:
                    _warn(f"GAMEREQ {excerpt(msg)} during a game refused; the game goes on")
                    self.conn.send("CGAMEREQ refused: a game is in progress")
                    self.conn.send(f"A{ENGINE_NAME:<32.32}2")
                    continue
                board, ours = self._accept(msg)
                if board is None:
                    continue
                self.agent.reset()
            elif kind == "M":
                if board is None or board.turn == ours:
                    _warn(f"unexpected move {excerpt(msg)}")
                    continue
                if not self._their_move(board, msg):
                    board = None
                    continue
            elif kind == "E":
                self.conn.send("E0" + (msg[2:3] or "0"))
                board = None
                if msg[2:3] == "1":
                    return
                continue
            elif kind == "B":
                self.conn.send("K1")  # take-backs are not supported
                continue
            elif kind == "C":
                _warn(f"peer says: {msg[1:]}")
                continue
            else:
                _warn(f"unknown DXP message {excerpt(msg)}")
                continue
            if board is not None and board.turn == ours and board.outcome() is None:
                self._move(board)

    def _accept(self, msg: str) -> tuple[Board | None, Color]:
        """Answer a GAMEREQ with a GAMEACC; returns the board and drl's colour.

        The codes are DamExchange's, as Moby Dam sends them: ``0`` accepted, ``1`` a
        protocol version other than ``01``, ``2`` a request drl cannot play (malformed, a
        clock field that is not 3 digits, a bad or finished position). The board is None
        unless the request was accepted.
        """
        code = "2"
        try:
            if len(msg) < 43:
                raise ValueError(f"{len(msg)} characters, at least 43 needed")
            if msg[1:3] != "01":
                code = "1"
                raise ValueError(f"protocol version {msg[1:3]!r}, drl speaks 01")
            if msg[35] not in "WZ":
                raise ValueError(f"follower colour {msg[35]!r} is not W or Z")
            for field, text in (("minutes", msg[36:39]), ("moves", msg[39:42])):
                if not (text.isascii() and text.isdigit()):
                    raise ValueError(f"clock field {field}={text!r} is not 3 digits")
            ours = Color.WHITE if msg[35] == "W" else Color.BLACK
            if msg[42] == "A":
                board = Board(self.variant)
            elif msg[42] == "B":
                board = board_from_hub(msg[43:], self.variant)
                if board.outcome() is not None or not board.legal_moves:
                    raise ValueError(f"the game is over in {board.fen()}")
            else:
                raise ValueError(f"starting position {msg[42]!r} is neither A nor B")
        except ValueError as err:
            _warn(f"GAMEREQ {excerpt(msg)} refused (code {code}): {err}")
            self.conn.send(f"A{ENGINE_NAME:<32.32}{code}")
            return None, Color.WHITE
        self.conn.send(f"A{ENGINE_NAME:<32.32}0")
        return board, ours

    def initiate(self, games: int, seconds: float, max_plies: int) -> None:
        """Play ``games`` games from the start position, colours alternating."""
        from drl.agents.dxp import clock_for, game_request

        score = 0.0
        minutes, moves = clock_for(seconds)
        for g in range(games):
            ours = Color.WHITE if g % 2 == 0 else Color.BLACK
            self.conn.send(game_request(ours.other, minutes, moves, None))
            reply = self._next("GAMEACC")
            if not reply.startswith("A") or reply[33:34] != "0":
                _warn(f"game {g + 1} refused: {reply!r}")
                break
            peer = reply[1:33].strip()
            self.agent.reset()
            board = Board(self.variant)
            ended = ""
            while board.outcome() is None and board.ply < max_plies:
                if board.turn == ours:
                    self._move(board)
                    continue
                msg = self._next("a move")
                if msg.startswith("E"):
                    self.conn.send("E0" + (msg[2:3] or "0"))
                    ended = f"ended by {peer} ({msg})"
                    break
                if not self._their_move(board, msg):
                    ended = "abandoned"
                    break
            outcome = board.outcome()
            if outcome is None:
                points, reason = 0.5, "0"
            elif outcome.winner is None:
                points, reason = 0.5, "2"
            else:
                points = 1.0 if outcome.winner == ours else 0.0
                reason = "3" if points else "1"
            score += points
            if not ended:
                self.conn.send(f"E{reason}{'1' if g == games - 1 else '0'}")
                self._next("the reply to GAMEEND")
            colour = "white" if ours == Color.WHITE else "black"
            print(
                f"game {g + 1}: drl ({colour}) vs {peer}: {points:g} after {board.ply} plies"
                + (f", {ended}" if ended else ""),
                flush=True,
            )
        print(f"drl scored {score:g} of {games}", flush=True)

    def _next(self, what: str) -> str:
        while True:
            msg = self.conn.receive(self.timeout, what)
            if msg.startswith("C"):
                _warn(f"peer says: {msg[1:]}")
                continue
            return msg


def _warn(text: str) -> None:
    print(f"drl-hub: {text}", file=sys.stderr, flush=True)


def _dxp(args: argparse.Namespace, agent: Agent) -> int:
    """Play DXP with ``agent``; returns the exit status.

    ``--timeout`` bounds the connection (``--connect``), the wait for a peer
    (``--listen``), the follower's wait for the first message and the initiator's wait
    for each reply.

    Raises:
        OSError: no connection (``--connect``); EngineError: no peer or no message in
            time, a message over the limit (each ends drl-hub with status 2).
    """
    from drl.agents._process import EngineError

    if args.connect:
        host, port = _address(args.connect, listen=False)
        sock = socket.create_connection((host, port), timeout=args.timeout)
        label = f"DXP peer {host}:{port}"
    else:
        host, port = _address(args.listen, listen=True)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
            server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            server.bind((host, port))
            server.listen(1)
            port = server.getsockname()[1]
            _warn(f"listening on {host}:{port}")
            server.settimeout(args.timeout)
            try:
                sock, _ = server.accept()
            except TimeoutError:
                raise EngineError(
                    f"no DXP peer connected to {host}:{port} within {args.timeout:g} s (--timeout)"
                ) from None
        label = f"DXP peer on {host}:{port}"
    sock.settimeout(None)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    session = _DXPSession(sock, agent, args.timeout, label)
    try:
        if args.initiate:
            session.initiate(args.games, args.time, args.max_plies)
        else:
            session.follow(args.timeout)
    finally:
        session.conn.close()
    return 0


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
            return _dxp(args, agent)
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
