"""``dxp``: an external engine over DXP (DamExchange Protocol), International draughts.

DXP is TCP with ASCII messages, each ended by a NUL byte; the messages drl sends and
reads, as Scan 2.0 and Moby Dam send and expect them:

- ``R`` GAMEREQ: ``R01`` + initiator name (32, space-padded) + the follower's colour
  (``W``/``Z``) + minutes (3 digits) + moves (3 digits) + ``A`` (start position) or ``B``
  + side to move (``W``/``Z``) + 50 squares (``e w z W Z``);
- ``A`` GAMEACC: ``A`` + name (32) + code (``0`` accepted);
- ``M`` MOVE: ``M`` + seconds (4) + from (2) + to (2) + number taken (2) + each taken (2);
- ``E`` GAMEEND: ``E`` + reason (``0`` unknown, ``1`` sender loses, ``2`` draw, ``3``
  sender wins) + stop code (``0`` continue, ``1`` stop); answered by an ``E``;
- ``C`` CHAT: text.

A DXP message is at most 127 characters; drl reads at most
:data:`~drl.agents.engines.records.DXP_MESSAGE_LIMIT` (1 KiB) and treats a longer one as a
broken connection (the error quotes an excerpt).

drl is the server and the initiator: the agent listens on 127.0.0.1 (port chosen by the
OS), starts the engine as a client pointed at that port, and sends one GAMEREQ (``B``
form, the full position, the engine following as the side to move) whenever the position
it is asked about does not follow from the last one by one move; otherwise it sends the
opponent's move as ``M``. The move time goes into the GAMEREQ clock (``minutes`` for
``moves`` moves); Moby Dam also gets it as a hard limit (console ``time <ms>``).
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import shutil
import socket
import tempfile
import time as _time
import weakref
from dataclasses import dataclass
from typing import Any

from drl.agents.base import Agent
from drl.agents.engines.hub import engine_argv
from drl.agents.engines.process import EngineError, EngineProcess
from drl.agents.engines.records import DXP_MESSAGE_LIMIT, RecordReader, RecordTooLong, quote_record
from drl.agents.engines.wire import dxp_position, match_move
from drl.rules import Board, Color, Move, Variant

__all__ = [
    "DXPAgent",
    "DXPConnection",
    "EngineError",
    "game_request",
    "move_message",
    "parse_move_message",
    "clock_for",
]

_INTERNATIONAL = Variant.parse("international")
NAME = "drl"


def clock_for(seconds: float) -> tuple[int, int]:
    """``(minutes, moves)`` of a DXP clock that averages ``seconds`` per move (each <= 999)."""
    minutes = max(1, min(999, math.ceil(seconds * 50 / 60)))
    moves = max(1, min(999, round(minutes * 60 / max(seconds, 1e-3))))
    return minutes, moves


def game_request(follower: Color, minutes: int, moves: int, board: Board | None) -> str:
    """A GAMEREQ: the follower plays ``follower``; ``board`` None: the start position."""
    colour = "W" if follower == Color.WHITE else "Z"
    pos = "A" if board is None else "B" + dxp_position(board)
    return f"R01{NAME:<32.32}{colour}{minutes:03d}{moves:03d}{pos}"


def move_message(move: Move, seconds: int = 0) -> str:
    """A MOVE message for a drl move (captured squares in jump order)."""
    caps = "".join(f"{c + 1:02d}" for c in move.captures)
    squares = f"{move.start + 1:02d}{move.end + 1:02d}{len(move.captures):02d}"
    return f"M{min(seconds, 9999):04d}{squares}{caps}"


_MOVE = re.compile(r"M(\d{4})(\d{2})(\d{2})(\d{2})((?:\d{2})*)")


def parse_move_message(text: str) -> tuple[int, int, frozenset[int]]:
    """``(from, to, captured)`` (1-based) of a MOVE message.

    Raises:
        ValueError: not a well-formed MOVE message.
    """
    m = _MOVE.fullmatch(text.strip())
    if not m or len(m.group(5)) != 2 * int(m.group(4)):
        raise ValueError(f"{text!r} is not a DXP MOVE message")
    caps = m.group(5)
    return (
        int(m.group(2)),
        int(m.group(3)),
        frozenset(int(caps[i : i + 2]) for i in range(0, len(caps), 2)),
    )


class DXPConnection:
    """One DXP connection: NUL-ended ASCII messages over a socket.

    Each message is at most :data:`~drl.agents.engines.records.DXP_MESSAGE_LIMIT` bytes.

    Raises (every method): EngineError on a closed connection, a timeout, or a message
    over the limit (the message quotes an excerpt; the connection is then unusable).
    """

    def __init__(self, sock: socket.socket, label: str) -> None:
        self.sock = sock
        self.label = label
        self._deadline = 0.0
        self._reader = RecordReader(
            self._recv, b"\0", DXP_MESSAGE_LIMIT, "DXP message", partial_last=False
        )
        self.broken = ""
        """Why the connection cannot be read any more (``""``: it can)."""
        self.peer_closed = False
        """The peer closed (or reset) the connection."""

    def _recv(self, size: int) -> bytes:
        left = self._deadline - _time.monotonic()
        if left <= 0:
            raise TimeoutError
        self.sock.settimeout(left)
        return self.sock.recv(size)

    def send(self, message: str) -> None:
        """Send one message (the NUL is added)."""
        try:
            self.sock.sendall(message.encode("ascii", "replace") + b"\0")
        except OSError as err:
            raise EngineError(f"{self.label}: the DXP connection failed ({err})") from None

    def receive(self, timeout: float, waiting_for: str) -> str:
        """The next message (without its NUL), within ``timeout`` seconds."""
        if self.broken:
            raise EngineError(f"{self.label}: {self.broken}")
        self._deadline = _time.monotonic() + timeout
        try:
            raw = self._reader.next()
        except TimeoutError:
            raise EngineError(
                f"{self.label}: no DXP message within {max(timeout, 0.0):.1f} s while waiting "
                f"for {waiting_for}"
            ) from None
        except RecordTooLong as err:
            self.broken = f"sent a {err} while drl waited for {waiting_for}"
            raise EngineError(f"{self.label}: {self.broken}") from None
        except OSError as err:
            self.peer_closed = True
            raise EngineError(f"{self.label}: the DXP connection failed ({err})") from None
        if raw is None:
            self.peer_closed = True
            raise EngineError(
                f"{self.label}: the DXP connection was closed while waiting for {waiting_for}"
            )
        return raw.decode("ascii", "replace").strip("\r\n")

    def close(self) -> None:
        """Close the socket (errors ignored)."""
        with contextlib.suppress(OSError):
            self.sock.close()


@dataclass
class _Sync:
    """What the engine believes: the position after its last move, and its colour."""

    board: Board
    colour: Color


def _scan_folder(program: str, cwd: str, port: int, tt: int | None, book: bool | None) -> str:
    """Make a temporary working folder for Scan as a DXP client; returns its path.

    It holds links to the program and its ``data/``, and a ``scan.ini`` copied from ``cwd``
    with the DXP keys set to connect to 127.0.0.1:``port`` (Scan reads ``scan.ini`` from
    its working folder).
    """
    folder = tempfile.mkdtemp(prefix="drl-scan-dxp-")
    os.symlink(os.path.abspath(os.path.join(cwd, program)), os.path.join(folder, "scan"))
    os.symlink(os.path.abspath(os.path.join(cwd, "data")), os.path.join(folder, "data"))
    ini = os.path.join(cwd, "scan.ini")
    lines = open(ini, encoding="utf-8").read().splitlines() if os.path.exists(ini) else []
    keys = {
        "dxp-server": "false",
        "dxp-host": "127.0.0.1",
        "dxp-port": str(port),
        "dxp-initiator": "false",
    }
    if tt is not None:
        keys["tt-size"] = str(tt)
    if book is not None:
        keys["book"] = "true" if book else "false"
    out = [ln for ln in lines if ln.split("=", 1)[0].strip() not in keys]
    out += [f"{k} = {v}" for k, v in keys.items()]
    with open(os.path.join(folder, "scan.ini"), "w", encoding="utf-8") as fh:
        fh.write("\n".join(out) + "\n")
    return folder


class DXPAgent(Agent):
    """An engine over DXP (module doc); International draughts only.

    Args:
        cmd: the engine program or a command line (:func:`shlex.split`); ``{host}`` and
            ``{port}`` in it (or in ``args``) are replaced by drl's address.
        args: the arguments; default by ``engine``: Moby Dam ``-t <tt> -c {host} -p
            {port}``, Scan ``dxp`` (run from a temporary folder with its own
            ``scan.ini``), else required.
        cwd: the engine's working folder (Scan: its build folder, with ``scan.ini`` and
            ``data/``).
        time: seconds per move (the GAMEREQ clock).
        engine: ``auto`` (from the program's name), ``scan``, ``mobydam`` or ``generic``.
        tt: log2 of the engine's hash-table entries (Moby Dam ``-t``, default 20; Scan
            ``tt-size``).
        book: Scan's opening book on or off (None: as its ``scan.ini`` says).
        grace: seconds beyond ``time`` before a move counts as late (the engine is
            then killed).
        timeout: seconds for the engine to connect and to accept a game.

    Raises:
        ValueError: a bad ``cmd``/``args``/``engine``, or a generic engine without
            ``{port}`` in its command line.
    """

    def __init__(
        self,
        cmd: str,
        args: str | None = None,
        cwd: str | None = None,
        time: float = 1.0,
        engine: str = "auto",
        tt: int | None = None,
        book: bool | None = None,
        grace: float = 5.0,
        timeout: float = 30.0,
    ) -> None:
        if engine not in ("auto", "scan", "mobydam", "generic"):
            raise ValueError(f"engine={engine!r}: choose auto, scan, mobydam or generic")
        self.cmd, self.args = cmd, args
        argv = engine_argv(cmd, args, {})
        if engine == "auto":
            base = os.path.basename(argv[0]).lower()
            engine = next((k for k in ("scan", "mobydam") if base.startswith(k)), "generic")
        if engine == "generic" and "{port}" not in " ".join(argv):
            raise ValueError(
                "a generic DXP engine needs {port} (and maybe {host}) in cmd= or args= "
                "to know where to connect"
            )
        self.kind = engine
        self.cwd = os.path.expanduser(cwd) if cwd else None
        self.time, self.tt, self.book = time, tt, book
        self.grace, self.timeout = grace, timeout
        self.engine_name = os.path.basename(argv[0])
        self._process: EngineProcess | None = None
        self._conn: DXPConnection | None = None
        self._sync: _Sync | None = None
        self._in_game = False  # a GAMEREQ was accepted and no GAMEEND exchanged since
        self.close_note = ""
        """What the last :meth:`close` could not reach (``""``: nothing)."""
        self._folder: str | None = None
        self._folder_finalizer: weakref.finalize | None = None

    def _label(self) -> str:
        return f"{self.name} ({self.engine_name})" if self.name != "agent" else self.engine_name

    # -- life cycle ---------------------------------------------------------------------

    def _argv(self, port: int) -> tuple[list[str], str | None]:
        fill = {"host": "127.0.0.1", "port": str(port)}
        if self.kind == "scan" and not self.args:
            program = engine_argv(self.cmd, None, {})[0]
            self._folder = _scan_folder(program, self.cwd or ".", port, self.tt, self.book)
            self._folder_finalizer = weakref.finalize(
                self, shutil.rmtree, self._folder, ignore_errors=True
            )
            return [os.path.join(self._folder, "scan"), "dxp"], self._folder
        args = self.args
        if self.kind == "mobydam" and not args:
            args = f"-t {self.tt if self.tt is not None else 20} -c {{host}} -p {{port}}"
        argv = engine_argv(self.cmd, args, {})
        return [a.format(**fill) if "{" in a else a for a in argv], self.cwd

    def _start(self) -> DXPConnection:
        self.close()
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            server.bind(("127.0.0.1", 0))
            server.listen(1)
            port = server.getsockname()[1]
            argv, cwd = self._argv(port)
            self._process = EngineProcess(argv, cwd, self._label(), keep_output=False)
            deadline = _time.monotonic() + self.timeout
            server.settimeout(0.2)
            while True:
                try:
                    sock, _ = server.accept()
                    break
                except TimeoutError:
                    if not self._process.alive():
                        raise EngineError(
                            f"engine {self._label()} {self._process.exit_text()} before "
                            f"connecting to 127.0.0.1:{port}"
                        ) from None
                    if _time.monotonic() > deadline:
                        raise EngineError(
                            f"engine {self._label()} did not connect to 127.0.0.1:{port} "
                            f"within {self.timeout:.0f} s"
                        ) from None
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._conn = DXPConnection(sock, f"engine {self._label()}")
            if self.kind == "mobydam":
                self._process.send(f"time {max(1, round(self.time * 1000))}")
        except BaseException:
            self.close()
            raise
        finally:
            server.close()
        return self._conn

    def close(self) -> None:
        """End the DXP session, stop the engine and remove its temporary folder.

        The session ends with ``E`` (stop code 1). Idempotent.
        """
        conn, self._conn = self._conn, None
        process, self._process = self._process, None
        self._sync = None
        self._in_game = False
        if conn is not None:
            with contextlib.suppress(EngineError):
                conn.send("E01")
                conn.receive(1.0, "the reply to E01")
            conn.close()
        if process is not None:
            self.close_note = process.close("exit" if self.kind == "mobydam" else None)
        if self._folder_finalizer is not None:
            self._folder_finalizer()
            self._folder_finalizer = None

    def __enter__(self) -> DXPAgent:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def check_variant(self, variant: Variant | str) -> None:
        """DXP carries International draughts (10x10) only.

        Raises:
            ValueError: any other variant.
        """
        v = Variant.parse(variant)
        if v != _INTERNATIONAL:
            raise ValueError(f"{self.name}: DXP is International draughts (10x10) only, not {v}")

    def reset(self, seed: int | None = None) -> None:
        """Start a new game: the next move sends a new GAMEREQ.

        A GAMEEND for the game in progress, if any, goes first.
        """
        self._sync = None

    # -- moves --------------------------------------------------------------------------

    def _end_game(self, conn: DXPConnection) -> None:
        conn.send("E00")
        self._in_game = False
        for _ in range(20):
            reply = conn.receive(5.0, "the reply to E00")
            if reply.startswith("E"):
                return

    def _follows(self, board: Board) -> Move | None:
        """The move that leads from the engine's position to ``board``, if one does."""
        sync = self._sync
        if sync is None or board.turn != sync.colour or sync.board.turn == sync.colour:
            return None
        target = board.fen()
        for move in sync.board.legal_moves:
            after = sync.board.copy()
            after.push(move)
            if after.fen() == target:
                return move
        return None

    def select_move(self, board: Board) -> Move:
        """The engine's move in ``board`` (left unchanged).

        Raises:
            ValueError: the game is over, or not International draughts.
            EngineError: an illegal move or garbage, a late move, a refused game, or a
                crashed engine (which is then stopped); the message names the engine,
                the position (FEN) and the reply.
        """
        self.check_variant(board.variant)
        if not board.legal_moves:
            raise ValueError(f"{self.name}: the game is over in {board.fen()}")
        try:
            return self._play(board)
        except EngineError as err:
            self.close()
            note = f"; {self.close_note}" if self.close_note else ""
            raise EngineError(f"{err} (position {board.fen()}){note}") from None
        except BaseException:
            self.close()
            raise

    def _play(self, board: Board) -> Move:
        conn = self._conn if self._process is not None and self._process.alive() else None
        if conn is None:
            conn = self._start()
            self._sync = None
        theirs = self._follows(board)
        if theirs is not None:
            conn.send(move_message(theirs))
        else:
            if self._in_game:  # a follower refuses a GAMEREQ during a game
                self._end_game(conn)
            self._sync = None
            minutes, moves = clock_for(self.time)
            conn.send(game_request(board.turn, minutes, moves, board))
            reply = self._receive(conn, self.timeout, "GAMEACC")
            if not reply.startswith("A") or len(reply) < 34 or reply[33] != "0":
                raise EngineError(
                    f"engine {self._label()} did not accept the game: {quote_record(reply)}"
                )
            self._in_game = True
            self.engine_name = reply[1:33].strip() or self.engine_name
            conn.label = f"engine {self._label()}"
        reply = self._receive(conn, self.time + self.grace, "its move")
        if reply.startswith("E"):
            conn.send("E0" + (reply[2:3] or "0"))
            self._sync = None
            self._in_game = False
            raise EngineError(
                f"engine {self._label()} ended the game ({quote_record(reply)}) instead of moving"
            )
        try:
            move = match_move(board, *parse_move_message(reply))
        except ValueError:
            raise EngineError(
                f"engine {self._label()} sent {quote_record(reply)}, which is not a DXP move"
            ) from None
        if move is None:
            raise EngineError(
                f"engine {self._label()} sent {quote_record(reply)}: not a legal move"
            )
        after = Board(board.variant, fen=board.fen())
        after.push(move)
        self._sync = _Sync(after, board.turn)
        return move

    def _receive(self, conn: DXPConnection, timeout: float, what: str) -> str:
        """The next message other than CHAT."""
        deadline = _time.monotonic() + timeout
        while True:
            msg = conn.receive(deadline - _time.monotonic(), what)
            if not msg.startswith("C"):
                return msg


def make_dxp(**kwargs: Any) -> DXPAgent:
    """The ``dxp`` kind's factory (see :class:`DXPAgent`)."""
    return DXPAgent(**kwargs)
