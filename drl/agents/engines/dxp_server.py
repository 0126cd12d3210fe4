"""The DXP protocol's server side: a drl agent playing a DXP peer over TCP.

:func:`serve_dxp` connects (or listens), then follows the peer's game requests or sends
its own (see :mod:`drl.cli.hub` for the options); the client side, drl playing an
external DXP engine, is :mod:`drl.agents.engines.dxp`.
"""

from __future__ import annotations

import socket
import sys

from drl._configs import DEFAULT_MAX_PLIES
from drl.agents.base import Agent
from drl.agents.engines.hub_server import ENGINE_NAME
from drl.agents.engines.wire import (
    board_from_hub,
    match_move,
)
from drl.rules import Board, Color, Variant
from drl.rules._quote import excerpt

__all__ = ["serve_dxp"]

_NO_LIMIT = 1e9
"""Seconds the follower waits for a message after the first (the peer may think long)."""


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
        from drl.agents.engines.dxp import DXPConnection

        self.conn = DXPConnection(sock, label)
        self.agent = agent
        self.timeout = timeout
        self.variant = Variant.parse("international")

    def _move(self, board: Board) -> None:
        from drl.agents.engines.dxp import move_message

        move = self.agent.select_move(board)
        board.push(move)
        self.conn.send(move_message(move))

    def _their_move(self, board: Board, msg: str) -> bool:
        from drl.agents.engines.dxp import parse_move_message

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
                :data:`~drl.agents.engines.records.DXP_MESSAGE_LIMIT` bytes (the connection is
                then dropped).
        """
        board: Board | None = None
        ours = Color.WHITE
        from drl.agents.engines.process import EngineError

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
        from drl.agents.engines.dxp import clock_for, game_request

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


def serve_dxp(
    agent: Agent,
    address: str,
    *,
    listen: bool = False,
    initiate: bool = False,
    games: int = 2,
    move_time: float = 1.0,
    max_plies: int = DEFAULT_MAX_PLIES,
    timeout: float = 120.0,
) -> int:
    """Play DXP with ``agent``; returns the exit status (0).

    Args:
        agent: the agent (it must play International draughts).
        address: ``HOST:PORT`` to connect to, or with ``listen`` ``[HOST:]PORT`` to listen
            on (127.0.0.1 unless a host is named; port 0: the OS chooses, printed on
            stderr).
        listen: wait for the peer to connect instead of connecting.
        initiate: send ``games`` game requests (start position, colours alternating,
            ``move_time`` seconds per move on the clock, ``max_plies`` at most) and print
            each result; else follow the peer's requests.
        games: the game requests sent with ``initiate``.
        move_time: seconds per move on the clock of each game sent with ``initiate``.
        max_plies: the ply cap of each game sent with ``initiate``.
        timeout: seconds for the connection (or the wait for a peer), the follower's wait
            for the first message and the initiator's wait for each reply.

    Raises:
        ValueError: a malformed address. OSError: no connection. EngineError: no peer or
            no message in time, a message over the limit.
    """
    from drl.agents.engines.process import EngineError

    if not listen:
        host, port = _address(address, listen=False)
        sock = socket.create_connection((host, port), timeout=timeout)
        label = f"DXP peer {host}:{port}"
    else:
        host, port = _address(address, listen=True)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
            server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            server.bind((host, port))
            server.listen(1)
            port = server.getsockname()[1]
            _warn(f"listening on {host}:{port}")
            server.settimeout(timeout)
            try:
                sock, _ = server.accept()
            except TimeoutError:
                raise EngineError(
                    f"no DXP peer connected to {host}:{port} within {timeout:g} s (--timeout)"
                ) from None
        label = f"DXP peer on {host}:{port}"
    sock.settimeout(None)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    session = _DXPSession(sock, agent, timeout, label)
    try:
        if initiate:
            session.initiate(games, move_time, max_plies)
        else:
            session.follow(timeout)
    finally:
        session.conn.close()
    return 0
