"""The Hub protocol's server side: a drl agent answering a Hub client on stdin/stdout.

:class:`HubServer` is the loop ``drl-hub`` runs (see :mod:`drl.cli.hub` for the
commands it reads and how it answers); the client side, drl playing an external Hub
engine, is :mod:`drl.agents.engines.hub`.
"""

from __future__ import annotations

import math
import sys
from typing import IO, Any

from drl.agents.base import Agent
from drl.agents.engines.records import HUB_LINE_LIMIT, RecordReader, RecordTooLong
from drl.agents.engines.wire import (
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
from drl.agents.registry import _REGISTRY, canonical_spec, make, parse_spec
from drl.rules import Board, Move, Variant
from drl.rules._quote import excerpt

__all__ = ["ENGINE_NAME", "HubServer"]

_MESSAGE_CHARS = 1000
"""Characters of an ``error`` reply at most."""

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
            when it is a text stream), at most :data:`~drl.agents.engines.records.
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


def _warn(text: str) -> None:
    print(f"drl-hub: {text}", file=sys.stderr, flush=True)
