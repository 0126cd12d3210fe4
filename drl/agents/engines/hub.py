"""``hub``: an external engine speaking the Hub protocol on stdin/stdout.

Two dialects (``proto=``):

- **Hub-1**, as Scan 2.0 speaks it (``scan hub``): ``hub`` -> ``name``/``author``/
  ``country``/``wait``; ``set <key> <value>``; ``init`` -> ``ready``; ``pos <w|b + 50
  squares>``; ``depth <plies>`` or ``time <milliseconds>``; ``go`` -> ``move <m>
  [<ponder>]``.
- **Hub-2**, as Scan 3.x, the Hub GUI and lidraughts speak it: ``hub`` -> ``id name=...``,
  ``param ...``, ``wait``; ``set-param name=... value=...``; ``init`` -> ``ready``;
  ``pos pos=<W|B + squares>``; ``level depth=<plies>`` / ``level move-time=<seconds>``;
  ``go think`` -> ``info ...``, ``done move=<m> [ponder=<m>]`` (version 2 of the
  protocol, as Scan 3.0 and 3.1 speak it). Its ``variant`` parameter selects the game: drl
  maps ``normal`` (International) and ``losing`` (International, both sides give), plus
  its own 8x8 names (:data:`drl.agents.engines.wire.HUB_VARIANTS`), which only an engine that
  declares them (``drl-hub``) accepts.

``proto=auto`` (default) reads the reply to ``hub``: an ``id`` or ``param`` line means
Hub-2, else Hub-1. Hub-1 plays International only; so does Hub-2 with an engine that
declares no ``variant`` parameter.

The engine is started on the first move (and again after an error), gets the full
position before every search (drl keeps no engine-side history), and must answer within
the move time plus ``grace`` seconds (``timeout`` seconds for a depth-only search), or
it is killed and :class:`~drl.agents.engines.process.EngineError` is raised. Every reply is
matched to a legal move by start, end and captured squares; anything else is an
``EngineError`` naming the engine, the position (FEN) and the reply (an excerpt of it:
a line over :data:`~drl.agents.engines.records.HUB_LINE_LIMIT` bytes is refused as it is read).
A line that repeats one drl sent (an engine that echoes its input, e.g. ``/bin/cat``) is
an error at once rather than a wait for the timeout.
"""

from __future__ import annotations

import os
import shlex
from typing import Any

from drl.agents.base import Agent
from drl.agents.engines.process import EngineError, EngineProcess
from drl.agents.engines.records import quote_record
from drl.agents.engines.wire import (
    format_hub_line,
    hub_position,
    hub_variant_name,
    match_move,
    parse_hub_line,
    parse_move_text,
)
from drl.rules import Board, Move, Variant

__all__ = ["EngineError", "HubAgent", "engine_argv"]

_INTERNATIONAL = Variant.parse("international")
_MAX_HELLO_LINES = 1000  # id/param/name lines in the reply to "hub" (one per engine parameter)


def engine_argv(cmd: str, args: str | None, default_args: dict[str, list[str]]) -> list[str]:
    """The engine's command line: ``cmd``, then ``args``, each split like a shell would.

    ``cmd`` may so hold a command with arguments (quote a path with spaces). Without
    ``args``, a program whose file name starts with a key of ``default_args`` gets those
    arguments (e.g. ``scan`` -> ``hub``).

    Raises:
        ValueError: an empty or badly quoted ``cmd`` / ``args``.
    """
    if not cmd or not cmd.strip():
        raise ValueError("cmd= must name the engine program")
    try:
        argv = shlex.split(cmd)
        extra = shlex.split(args) if args else None
    except ValueError as err:
        raise ValueError(f"cmd={cmd!r} / args={args!r}: {err}") from None
    if not argv:
        raise ValueError("cmd= must name the engine program")
    if extra is None:
        base = os.path.basename(argv[0]).lower()
        extra = next((v for k, v in default_args.items() if base.startswith(k)), [])
        if len(argv) > 1:
            extra = []
    return argv + extra


class HubAgent(Agent):
    """An engine over Hub-1 or Hub-2 (module doc).

    Args:
        cmd: the engine program, or a command line (split with :func:`shlex.split`).
        args: more arguments (default: ``hub`` for a program named ``scan*``, else none).
        cwd: the engine's working folder (Scan reads ``scan.ini`` and ``data/`` there).
        depth: search depth in plies.
        time: seconds per move (Hub-1: sent in milliseconds).
        tt: log2 of the transposition-table entries (Hub-1 ``set tt-size``, Hub-2
            ``set-param name=tt-size``).
        book: use the engine's opening book (``set book``), None: the engine's default.
        proto: ``auto``, ``1`` or ``2``.
        grace: seconds allowed beyond ``time`` before the engine counts as hung.
        timeout: seconds allowed for a search without ``time`` (and for start-up).

    Raises:
        ValueError: a bad ``cmd``/``args``/``proto``, or neither depth nor time.
    """

    def __init__(
        self,
        cmd: str,
        args: str | None = None,
        cwd: str | None = None,
        depth: int | None = None,
        time: float | None = None,
        tt: int | None = None,
        book: bool | None = None,
        proto: str = "auto",
        grace: float = 5.0,
        timeout: float = 120.0,
    ) -> None:
        if proto not in ("auto", "1", "2"):
            raise ValueError(f"proto={proto!r}: choose auto, 1 or 2")
        if depth is None and time is None:
            time = 1.0
        self.argv = engine_argv(cmd, args, {"scan": ["hub"]})
        self.cwd = os.path.expanduser(cwd) if cwd else None
        self.depth, self.time, self.tt, self.book = depth, time, tt, book
        self.proto = proto
        self.grace, self.timeout = grace, timeout
        self._engine: EngineProcess | None = None
        self._version = 0  # 1 or 2 once started
        self._variant: Variant | None = None
        self.engine_name = os.path.basename(self.argv[0])
        self._params: dict[str, dict[str, str]] = {}
        self.close_note = ""
        """What the last :meth:`close` could not reach (``""``: nothing)."""

    # -- life cycle ---------------------------------------------------------------------

    def _label(self) -> str:
        return f"{self.name} ({self.engine_name})" if self.name != "agent" else self.engine_name

    def _start(self, variant: Variant) -> EngineProcess:
        self.close()
        engine = EngineProcess(self.argv, self.cwd, self._label())
        self._engine = engine
        try:
            engine.send("hub")
            lines = self._read_until(
                ("wait",), self.timeout, "the reply to 'hub'", keep=("id", "param", "name")
            )
            hub2 = any(ln.split(" ", 1)[0] in ("id", "param") for ln in lines)
            self._version = {"1": 1, "2": 2}.get(self.proto, 2 if hub2 else 1)
            self._params = {}
            for ln in lines:
                if self._version == 2 and ln.startswith("id "):
                    name = _args(ln).get("name")
                    if name:
                        self.engine_name = _short_name(name)
                elif self._version == 2 and ln.startswith("param "):
                    a = _args(ln)
                    if "name" in a:
                        self._params[a["name"]] = a
                elif self._version == 1 and ln.startswith("name "):
                    self.engine_name = _short_name(ln[5:].strip()) or self.engine_name
            engine.label = self._label()
            self._configure(engine, variant)
            engine.send("init")
            self._read_until(("ready",), self.timeout, "'ready' after 'init'")
        except EngineError as err:
            self.close()
            if self.close_note:
                raise EngineError(f"{err}; {self.close_note}") from None
            raise
        except BaseException:
            self.close()
            raise
        self._variant = variant
        return engine

    def _configure(self, engine: EngineProcess, variant: Variant) -> None:
        settings: list[tuple[str, str]] = []
        if self._version == 2:
            if variant != _INTERNATIONAL:
                name = hub_variant_name(variant)
                declared = self._params.get("variant")
                if declared is None:
                    raise ValueError(
                        f"engine {self._label()} declares no 'variant' parameter, so it plays "
                        f"International only, not {variant}"
                    )
                values = declared.get("values", "").split()
                if declared.get("type", "enum") == "enum" and values and name not in values:
                    raise ValueError(
                        f"engine {self._label()} does not play {variant} (Hub variant "
                        f"{name!r}; it declares: {' '.join(values)})"
                    )
                settings.append(("variant", name))
        elif variant != _INTERNATIONAL:
            raise ValueError(
                f"engine {self._label()} speaks Hub-1, which is International draughts only "
                f"(10x10); cannot play {variant}"
            )
        if self.tt is not None:
            settings.append(("tt-size", str(self.tt)))
        if self.book is not None:
            settings.append(("book", "true" if self.book else "false"))
        for key, value in settings:
            if self._version == 2:
                engine.send(format_hub_line("set-param", name=key, value=value))
            else:
                engine.send(f"set {key} {value}")

    def close(self) -> None:
        """Stop the engine: ``quit``, then signals to its process group.

        Idempotent; the agent starts a new engine if it is asked for a move again.
        """
        engine, self._engine = self._engine, None
        self._variant = None
        if engine is not None:
            self.close_note = engine.close("quit")

    def __enter__(self) -> HubAgent:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def check_variant(self, variant: Variant | str) -> None:
        """Refuse a variant the protocol cannot carry.

        Hub-1 (and ``proto=1``) plays only International; Hub-2 also the
        :data:`~drl.agents.engines.wire.HUB_VARIANTS` and drl variant strings, if the engine
        declares them (checked when it starts).

        Raises:
            ValueError: the variant cannot be played (the message names it).
        """
        v = Variant.parse(variant)
        if v != _INTERNATIONAL and (self.proto == "1" or self._version == 1):
            raise ValueError(
                f"{self.name}: Hub-1 is International draughts (10x10) only; cannot play {v}"
            )
        if self._engine is not None and self._version == 2 and v != self._variant:
            self._start(v)  # Hub-2 sets the variant before init: restart with it

    def reset(self, seed: int | None = None) -> None:
        """A new game: the engine may clear its tables (``new`` / ``new-game``)."""
        if self._engine is not None and self._engine.alive():
            self._engine.send("new-game" if self._version == 2 else "new")

    # -- moves --------------------------------------------------------------------------

    def _read_until(
        self, ends: tuple[str, ...], timeout: float, what: str, keep: tuple[str, ...] = ()
    ) -> list[str]:
        """Read lines up to one starting with a word of ``ends``, within ``timeout`` seconds.

        Returns those starting with a word of ``keep``, then that last one. Other lines
        (e.g. ``info``) are dropped as they come: an engine's chatter costs no memory.
        """
        import time as _time

        assert self._engine is not None
        deadline = _time.monotonic() + timeout
        lines = []
        while True:
            line = self._engine.readline(deadline - _time.monotonic(), what, timeout).strip()
            head = line.split(" ", 1)[0]
            if head in ends:
                lines.append(line)
                return lines
            if head in keep:
                if len(lines) >= _MAX_HELLO_LINES:
                    raise EngineError(
                        f"engine {self._label()} sent more than {_MAX_HELLO_LINES} "
                        f"{'/'.join(keep)} lines while drl waited for {what}"
                    )
                lines.append(line)
            if head == "error":
                raise EngineError(
                    f"engine {self._label()} replied {quote_record(line)} while drl waited "
                    f"for {what}"
                )

    def select_move(self, board: Board) -> Move:
        """The engine's move in ``board`` (the board is left unchanged).

        Raises:
            ValueError: the game is over, or the engine cannot play the variant.
            EngineError: the engine replied with an illegal move or garbage, answered
                too late, or exited (it is then stopped; the message names the engine,
                the position as FEN and the reply).
        """
        if not board.legal_moves:
            raise ValueError(f"{self.name}: the game is over in {board.fen()}")
        if self._engine is None or not self._engine.alive() or self._variant != board.variant:
            self._start(board.variant)
        assert self._engine is not None
        try:
            return self._search(board)
        except EngineError as err:
            self.close()
            note = f"; {self.close_note}" if self.close_note else ""
            raise EngineError(
                f"{err} (position {board.fen()}, variant {board.variant}){note}"
            ) from None
        except BaseException:
            self.close()  # Ctrl-C mid-search: the engine's state is unknown
            raise

    def _search(self, board: Board) -> Move:
        engine = self._engine
        assert engine is not None
        limit = self.timeout if self.time is None else self.time + self.grace
        if self._version == 2:
            engine.send(format_hub_line("pos", pos=hub_position(board, 2)))
            if self.depth is not None:
                engine.send(format_hub_line("level", depth=self.depth))
            if self.time is not None:
                engine.send(format_hub_line("level", move_time=f"{self.time:g}"))
            engine.send("go think")
            reply = self._read_until(("done",), limit, "'done move=...'")[-1]
            text = _args(reply).get("move", "")
        else:
            engine.send("pos " + hub_position(board, 1))  # pos resets the limits: they follow
            if self.depth is not None:
                engine.send(f"depth {self.depth}")
            if self.time is not None:
                engine.send(f"time {max(1, round(self.time * 1000))}")
            engine.send("go")
            reply = self._read_until(("move",), limit, "'move <m>'")[-1]
            words = reply.split()
            text = words[1] if len(words) > 1 else ""
        try:
            move = match_move(board, *parse_move_text(text))
        except ValueError:
            raise EngineError(
                f"engine {self._label()} replied {quote_record(reply)}, which has no move drl "
                f"can read"
            ) from None
        if move is None:
            raise EngineError(
                f"engine {self._label()} replied {quote_record(reply)}: not a legal move"
            )
        return move


def _short_name(name: str) -> str:
    """An engine's name as messages show it (at most 64 characters)."""
    return name if len(name) <= 64 else name[:61] + "..."


def _args(line: str) -> dict[str, str]:
    try:
        return parse_hub_line(line)[1]
    except ValueError:
        return {}


def make_hub(**kwargs: Any) -> HubAgent:
    """The ``hub`` kind's factory (see :class:`HubAgent`)."""
    return HubAgent(**kwargs)
