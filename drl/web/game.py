"""One game on the browser board: the position, the player's steps, the opponent's moves.

A :class:`WebGame` holds a :class:`~drl.rules.Board` (the game and its history) and the
steps the player has played of the move in progress, a :class:`~drl.game.StepState`:
every click on a target square is one step, checked and applied by the game core, so a
multi-jump is played hop by hop as the rules require (docs/rules.md). The opponent is any
agent spec of :mod:`drl.agents`; it moves in a thread of its own, waited for at most the
per-move time limit (plus :data:`GRACE` seconds), after which its search is stopped
(:mod:`drl.web.limits`); closing the game stops it too, and the opponent's engine
processes with their descendants.

Everything a request may get wrong raises :class:`GameError` with a message for the page;
the game is then left as it was.
"""

from __future__ import annotations

import datetime
import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from drl.agents import Agent, make, parse_spec
from drl.encode.actions import move_to_actions, step_index
from drl.game import StepState
from drl.rules import Board, FENError, IllegalMoveError, Move
from drl.rules.geometry import rowcol_to_square, square_name, square_to_rowcol
from drl.rules.pdn import board_to_pdn
from drl.web.board import board_layout, outcome_text, position_text
from drl.web.limits import MAX_MOVE_TIME, SearchStopper, abortable
from drl.web.settings import COLORS, GRACE, GameError, GameSettings, game_variant, opponent_spec

__all__ = ["WebGame"]

log = logging.getLogger("drl.web")


class _Worker:
    """The one thread that calls a game's opponent, for the game's whole life.

    An engine agent's process lives as long as the thread that started it
    (``drl.agents._process``), and an agent is never called from two threads at once. A
    daemon thread, so a hung agent never keeps the server from stopping.
    """

    def __init__(self, name: str) -> None:
        self._jobs: queue.SimpleQueue[tuple[Callable[..., Any], tuple, Future] | None] = (
            queue.SimpleQueue()
        )
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            fn, args, future = job
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn(*args))
                except BaseException as err:  # handed to the request that waits for it
                    future.set_exception(err)

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future:
        """Run ``fn(*args)`` after the jobs before it; its future."""
        future: Future = Future()
        self._jobs.put((fn, args, future))
        return future

    def stop(self) -> None:
        """End the thread after the jobs already submitted."""
        self._jobs.put(None)


def _checkpoint_of(spec: str) -> str | None:
    """The ``ckpt=`` value of ``spec`` (None: none, or a spec that does not parse)."""
    try:
        value = parse_spec(spec)[1].get("ckpt")
    except ValueError:
        return None
    return None if value is None else str(value)


def _build_agent(build: Callable[[str], Agent], spec: str, game: WebGame) -> Agent:
    """The opponent of ``spec``, checked against the game's variant.

    A checkpoint that cannot be read gives the page one message whatever the reason (the
    reason is in the server's log): a page must not learn which paths of the machine
    exist.

    Raises:
        GameError: a bad spec, a checkpoint that cannot be read, or an agent that cannot
            play the variant (the message names the spec and why).
    """
    try:
        agent = build(spec)
    except Exception as err:  # a checkpoint's payload may fail in any way
        ckpt = _checkpoint_of(spec)
        if ckpt is None:
            if not isinstance(err, (ValueError, OSError, RuntimeError)):
                raise
            raise GameError(f"opponent {spec!r}: {err}") from None
        log.warning("opponent %r: %s", spec, str(err).splitlines()[0])
        raise GameError(
            f"opponent {spec!r}: ckpt={ckpt} is not a drl checkpoint this server can read "
            "(the server's log says why)"
        ) from None
    try:
        abortable(agent)
    except ValueError as err:
        _close_agent(agent)
        raise GameError(f"opponent {spec!r}: {err}") from None
    try:
        agent.check_variant(game.variant)
    except ValueError as err:
        _close_agent(agent)
        raise GameError(f"opponent {spec!r} cannot play {game.variant}: {err}") from None
    return agent


def _close_agent(agent: Agent) -> None:
    """Stop what ``agent`` started (``close()``: engine processes).

    Agents without ``close()`` hold nothing to stop.
    """
    close = getattr(agent, "close", None)
    if callable(close):
        close()


def _between(a: int, b: int, n: int) -> list[int]:
    """The squares strictly between two squares of one diagonal of an ``n``x``n`` board."""
    (ra, ca), (rb, cb) = square_to_rowcol(a, n), square_to_rowcol(b, n)
    dr, dc = (rb > ra) - (rb < ra), (cb > ca) - (cb < ca)
    return [rowcol_to_square(ra + k * dr, ca + k * dc, n) for k in range(1, abs(rb - ra))]


class WebGame:
    """A game between the player (clicks on the page) and an opponent agent.

    Every method that reads or changes the game takes :attr:`lock`, so requests of one
    game are served one at a time; games do not share anything. :meth:`pdn` and
    :meth:`close` do not: they must answer while the opponent thinks (the lock held by the
    request waiting for its move), so :meth:`pdn` writes a copy of the game taken after
    each completed move.

    Args:
        settings: the new-game form's choices.
        game_id: the game's id in its store (for messages and the PDN).
        build_agent: builds an agent from a spec (default :func:`drl.agents.make`).

    Attributes:
        id: the game's id.
        variant: the rules, with the player's role applied.
        board: the game so far (completed moves only).
        human: the player's colour (0 black, 1 white).
        agent: the opponent.
        lock: held while a request works on the game.

    Raises:
        GameError: a bad variant, role, FEN or opponent spec, a checkpoint that cannot be
            read or does not fit the variant (nothing is left running).
    """

    def __init__(
        self,
        settings: GameSettings,
        game_id: str = "game",
        build_agent: Callable[[str], Agent] = make,
    ) -> None:
        self.id = game_id
        self.settings = settings
        self.variant = game_variant(settings.variant, settings.color, settings.role)
        try:
            self.board = Board(self.variant, fen=settings.fen)
        except FENError as err:
            raise GameError(f"fen {settings.fen!r}: {err}") from None
        self.human = COLORS.index(settings.color)
        spec = opponent_spec(settings.opponent, settings.move_time)
        self.agent = _build_agent(build_agent, spec, self)
        self.lock = threading.RLock()
        self.date = datetime.date.today().strftime("%Y.%m.%d")
        self._step = StepState.from_board(self.board)
        self._worker = _Worker(f"drl-web-{game_id}")
        self._stopper = SearchStopper(self.agent)
        self._thinking: Future | None = None  # an opponent move given up on, still running
        self._running: Future | None = None  # the last search submitted to the worker
        self._closed = False
        self._played = self.board.copy()  # the game as pdn() writes it, read without the lock

    @property
    def time_limit(self) -> float:
        """Seconds an opponent move or analysis may take (plus :data:`GRACE`), then stopped.

        The game's ``move_time``, or :data:`~drl.web.limits.MAX_MOVE_TIME` without one.
        """
        limit = self.settings.move_time
        return MAX_MOVE_TIME if limit is None else limit

    def _search(self, fn: Callable[..., Any], *args: Any) -> Future:
        """Submit a search of the opponent to the worker (after a stopped one has ended)."""
        self._stopper.ready()
        self._running = self._worker.submit(fn, *args)
        return self._running

    def _moved(self) -> None:
        """After a completed move or an undo: a new step state and a new copy for pdn()."""
        self._step = StepState.from_board(self.board)
        self._played = self.board.copy()

    # ------------------------------------------------------------------ queries

    def _square(self, sq: int) -> str:
        return square_name(sq, self.variant.board_size, self.variant.notation)

    def _step_text(self, a: int, b: int) -> str:
        capture = any(m.is_capture for m in self.board.legal_moves)
        return f"{self._square(a)}{'x' if capture else '-'}{self._square(b)}"

    def legal_steps(self) -> list[tuple[int, int]]:
        """List the player's legal next steps.

        Returns:
            ``(from, to)`` squares (0-based), sorted; empty when it is not the player's
            turn or the game is over.
        """
        if int(self.board.turn) != self.human or self.board.is_game_over():
            return []
        return sorted(self._step.squares(int(a)) for a in self._step.legal_actions())

    def _jump(self) -> dict[str, Any] | None:
        """The move in progress: ``{"from", "at", "captured"}`` squares, or None."""
        if not self._step.prefix:
            return None
        n, pieces = self.variant.board_size, position_text(self.board)
        hops = [self._step.squares(a) for a in self._step.prefix]
        theirs = "wW" if int(self.board.turn) == 0 else "bB"
        captured = [s for a, b in hops for s in _between(a, b, n) if pieces[s] in theirs]
        return {"from": hops[0][0], "at": hops[-1][1], "captured": captured}

    def state(self) -> dict[str, Any]:
        """Everything the page draws, as JSON-ready data (see ``drl/web/static/app.js``).

        Returns:
            ``id``, ``variant``, ``size``, ``layout`` (``[row, col, name]`` per square),
            ``position`` (a character per square, the move in progress shown played),
            ``you``/``turn`` (colours), ``roles`` (per colour, or None), ``opponent``,
            ``steps`` (``[from, to]`` legal next steps of the player), ``jump`` (the move
            in progress or None), ``last`` (squares of the last move), ``moves`` (move
            texts), ``first`` (the colour that moves first in the variant), ``fen``,
            ``over``, ``result`` (text or None), ``analysable``.
        """
        with self.lock:
            board, outcome = self.board, self.board.outcome()
            position, jump = list(position_text(board)), self._jump()
            if jump is not None:
                position[jump["at"]], position[jump["from"]] = position[jump["from"]], "."
            last = board.move_stack[-1].path if board.move_stack else ()
            return {
                "id": self.id,
                "variant": str(self.variant),
                "size": self.variant.board_size,
                "layout": board_layout(self.variant),
                "position": "".join(position),
                "you": COLORS[self.human],
                "turn": COLORS[int(board.turn)],
                "roles": [board.role(0), board.role(1)],
                "opponent": self.agent.name,
                "steps": self.legal_steps(),
                "jump": jump,
                "last": list(last),
                "moves": [str(m) for m in board.move_stack],
                "first": self.variant.first_player,
                "fen": board.fen(),
                "over": outcome is not None,
                "result": None if outcome is None else outcome_text(outcome, self.variant),
                "analysable": callable(getattr(self.agent, "analyse", None)),
            }

    # ------------------------------------------------------------------ changes

    def _refuse_unless_going_on(self) -> None:
        """Refuse a change unless the game is going on.

        Raises:
            GameError: the game is closed, over, or waiting for a late opponent move.
        """
        if self._closed:
            raise GameError(f"game {self.id} is closed: start a new game")
        outcome = self.board.outcome()
        if outcome is not None:
            raise GameError(
                f"the game is over ({outcome_text(outcome, self.variant)}): "
                "undo or start a new game"
            )
        if self._thinking is not None and not self._thinking.done():
            raise GameError(f"{self.agent.name} is still thinking about an earlier position")

    def play_step(self, from_sq: Any, to_sq: Any) -> None:
        """Play one step of the player's move: a whole move, or one hop of a multi-jump.

        After a hop of a multi-jump, the next hop must start where this one lands.

        Args:
            from_sq: 0-based square the piece leaves (an int).
            to_sq: 0-based square it lands on (an int).

        Raises:
            GameError: the game is over or closed, it is the opponent's turn, or the step
                is not legal here (the message lists the legal ones); nothing changes.
        """
        with self.lock:
            self._refuse_unless_going_on()
            if int(self.board.turn) != self.human:
                raise GameError(f"it is {self.agent.name}'s turn ({COLORS[1 - self.human]})")
            nsq = self.variant.board_size**2 // 2
            squares = [from_sq, to_sq]
            if not all(isinstance(q, int) and not isinstance(q, bool) for q in squares) or not all(
                0 <= q < nsq for q in squares
            ):
                raise GameError(f"a step is two squares 0..{nsq - 1}, got {from_sq!r}, {to_sq!r}")
            action = step_index(from_sq, to_sq, self.human, self.variant.params)
            try:
                if action < 0:
                    raise ValueError("not on one diagonal")
                after, row = self._step.push(int(action))
            except ValueError:
                raise GameError(self._illegal(from_sq, to_sq)) from None
            if row is None:
                self._step = after
                return
            self.board.push(Move.from_row(row, self.variant.board_size, self.variant.notation))
            self._moved()

    def _illegal(self, a: int, b: int) -> str:
        """Why the step ``a`` -> ``b`` is refused, with the legal steps."""
        legal = ", ".join(self._step_text(x, y) for x, y in self.legal_steps())
        text = f"{self._square(a)}-{self._square(b)} is not a legal step here"
        if self._step.prefix:
            at = self._square(self._step.squares(self._step.prefix[-1])[1])
            return f"{text}: the capture goes on from {at}; legal steps: {legal}"
        if any(m.is_capture for m in self.board.legal_moves):
            return f"{text}: capturing is compulsory; legal steps: {legal}"
        return f"{text}; legal steps: {legal}"

    def opponent_move(self) -> None:
        """Let the opponent play its move.

        The wait is at most :attr:`time_limit` plus :data:`~drl.web.settings.GRACE`
        seconds; a search still running then is stopped
        (:class:`~drl.web.limits.SearchStopper`) and its move, if one comes, is not played.

        Raises:
            GameError: the game is over or closed, it is the player's turn (or a move of
                theirs is in progress), the opponent failed (its error is named), played
                an illegal move, or did not answer in time; nothing changes.
        """
        with self.lock:
            self._refuse_unless_going_on()
            if int(self.board.turn) == self.human:
                raise GameError(f"it is your turn ({COLORS[self.human]})")
            limit = self.time_limit
            thinking = self._search(self.agent.select_move, self.board.copy())
            try:
                move = thinking.result(limit + GRACE)
            except FutureTimeout:
                self._thinking = thinking  # its move, when it comes, is not played
                self._stopper.stop(thinking)
                raise GameError(
                    f"{self.agent.name} did not move within {limit:g} s (+{GRACE:g} s); "
                    f"its search is stopped and the position is unchanged"
                ) from None
            except Exception as err:
                if self._closed:
                    raise GameError(f"game {self.id} is closed: start a new game") from None
                raise GameError(f"{self.agent.name} failed: {type(err).__name__}: {err}") from None
            if self._closed:  # closed while it thought: the saved game stays as it was
                raise GameError(f"game {self.id} is closed: start a new game")
            try:
                self.board.push(move)
            except IllegalMoveError as err:
                raise GameError(f"{self.agent.name} played an illegal move: {err}") from None
            self._moved()

    def undo(self) -> None:
        """Take back the move in progress, or else the player's last completed move.

        Taking back the player's last move also takes back the opponent's replies to it.

        Raises:
            GameError: the game is closed, the opponent is thinking, or the player has no
                move to take back.
        """
        with self.lock:
            if self._closed:
                raise GameError(f"game {self.id} is closed: start a new game")
            if self._thinking is not None and not self._thinking.done():
                raise GameError(f"{self.agent.name} is still thinking about an earlier position")
            if self._step.prefix:
                self._step = StepState.from_board(self.board)
                return
            first = int(self.board.root().turn)
            mine = [p for p in range(self.board.ply) if (first + p) % 2 == self.human]
            if not mine:
                raise GameError("nothing to take back: you have not moved yet")
            while self.board.ply > mine[-1]:
                self.board.pop()
            self._moved()

    def analysis(self, top: int = 5) -> dict[str, Any]:
        """Show the opponent's search at the current position, for the page's overlay.

        Only ``az`` opponents have one (``NetworkAgent.analyse``).

        Args:
            top: how many of the most visited first steps to report (at least 1).

        Returns:
            ``value``: the position's value for the player in ``[-1, 1]``; ``moves``: the
            most visited first steps, ``{"from", "to", "step", "move", "share"}`` (``move``
            the whole move when only one legal move starts with that step, else None);
            ``simulations``.

        Raises:
            GameError: the opponent has no search to show, the game is over or closed, the
                opponent is still thinking about an earlier position, or the search
                refuses (e.g. ``top`` below 1).
        """
        with self.lock:
            analyse = getattr(self.agent, "analyse", None)
            if not callable(analyse):
                raise GameError(f"{self.agent.name} has no search to show (use an az opponent)")
            self._refuse_unless_going_on()
            limit = self.time_limit
            running = self._search(analyse, self.board.copy(), top)
            try:
                found = running.result(limit + GRACE)
            except FutureTimeout:
                self._thinking = running
                self._stopper.stop(running)
                raise GameError(
                    f"{self.agent.name}: no analysis within {limit:g} s (+{GRACE:g} s); "
                    "its search is stopped"
                ) from None
            except ValueError as err:
                raise GameError(f"{self.agent.name}: {err}") from None
            root = StepState.from_board(self.board)
            turn, params = int(self.board.turn), self.variant.params
            moves = []
            for action, share in found.steps:
                a, b = root.squares(action)
                whole = [
                    m
                    for m in self.board.legal_moves
                    if move_to_actions(m, turn, params)[0] == action
                ]
                moves.append(
                    {
                        "from": a,
                        "to": b,
                        "step": self._step_text(a, b),
                        "move": str(whole[0]) if len(whole) == 1 else None,
                        "share": share,
                    }
                )
            value = found.value if turn == self.human else -found.value
            return {"value": value, "moves": moves, "simulations": found.simulations}

    def pdn(self) -> str:
        """Write the game so far as PDN (``drl.rules.pdn.board_to_pdn``).

        The lock is not taken: the copy of the game made after its last completed move is
        written, so a game whose opponent is thinking is saved at once.

        Returns:
            The PDN text; an unfinished game ends in ``*``. A move in progress is not part
            of it.
        """
        played = self._played
        names = ["you", self.agent.name] if self.human == 0 else [self.agent.name, "you"]
        tags = {"Event": "drl-web", "Date": self.date, "Black": names[0], "White": names[1]}
        return board_to_pdn(played, tags)

    def close(self) -> None:
        """Stop the opponent: its search in progress, its processes; idempotent.

        A search in progress is stopped (:class:`~drl.web.limits.SearchStopper`). The
        agent is closed before the game's worker thread ends: an engine started by that
        thread dies with it, and its descendants that left its process group are found
        only while it runs (``close()`` of engine agents stops them).

        The lock is not taken, so a game whose opponent is thinking closes at once.
        """
        if self._closed:
            return
        self._closed = True
        if self._running is not None:
            self._stopper.stop(self._running)
        try:
            _close_agent(self.agent)
        finally:
            self._worker.stop()
