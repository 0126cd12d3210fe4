"""The registry of agent kinds and the spec-string parser.

An agent is named by a spec string ``kind[:param=value,...]``, e.g. ``random``,
``alphabeta:depth=6``, ``mcts:sims=400,c=1.4``. :func:`make` builds one; every kind is
registered with :func:`register_agent` together with its documented parameters
(:class:`Param`), so a misspelt spec gets an error that lists every valid kind and
parameter.

Packages outside drl add kinds through the entry-point group ``drl.agents``
(:data:`ENTRY_POINT_GROUP`): the entry point's name is the kind, its value a module whose
import calls :func:`register_agent`, or a function without arguments that does. Entry
points are looked up the first time a kind that is not registered yet is asked for, in
every process (so the arena's worker processes find them too); listings
(:func:`registered_agents`, :func:`describe_agents`) load them all.
"""

from __future__ import annotations

import importlib.metadata
import inspect
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from drl.agents.base import Agent
from drl.nn.errors import CheckpointError

__all__ = [
    "Param",
    "ENTRY_POINT_GROUP",
    "register_agent",
    "make",
    "parse_spec",
    "spec_name",
    "is_batched",
    "is_timed",
    "registered_agents",
    "describe_agents",
    "split_items",
    "canonical_spec",
]

ENTRY_POINT_GROUP = "drl.agents"
"""The entry-point group through which other packages register agent kinds."""

_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


@dataclass(frozen=True)
class Param:
    """One documented agent parameter.

    Attributes:
        type: ``int``, ``float``, ``bool`` or ``str``; spec values are converted to it.
        default: the value used when the spec leaves the parameter out (``None``: unset).
        help: one line for error messages and ``--help``.
        minimum: smallest allowed value for numbers (inclusive), or None.
        maximum: largest allowed value for numbers (inclusive), or None.
    """

    type: type
    default: Any
    help: str
    minimum: float | None = None
    maximum: float | None = None

    def convert(self, kind: str, key: str, text: str) -> Any:
        """Parse ``text`` as this parameter's type and check its range.

        Raises:
            ValueError: the text is not a valid value (integers and floats are ASCII
                decimal numbers; floats must be finite: ``nan`` and ``inf`` are refused).
        """
        try:
            if self.type is bool:
                low = text.strip().lower()
                if low not in ("true", "false", "1", "0", "yes", "no"):
                    raise ValueError
                value: Any = low in ("true", "1", "yes")
            elif self.type is int:
                if not _INT.fullmatch(text.strip()):
                    raise ValueError
                value = int(text)
            elif self.type is float:
                # ASCII decimal only: no "nan", "inf", "1_0" or non-ASCII digits.
                if not _FLOAT.fullmatch(text.strip()):
                    raise ValueError
                value = float(text)
                if not math.isfinite(value):
                    raise ValueError
            else:
                value = text
        except ValueError:
            what = {int: " (an ASCII integer)", float: " (a finite ASCII decimal number)"}
            raise _spec_error(
                f"{kind}: parameter {key}={text!r} is not a valid "
                f"{self.type.__name__}{what.get(self.type, '')}"
            ) from None
        if self.minimum is not None and value < self.minimum:
            raise _spec_error(f"{kind}: parameter {key}={text} is below its minimum {self.minimum}")
        if self.maximum is not None and value > self.maximum:
            raise _spec_error(f"{kind}: parameter {key}={text} is above its maximum {self.maximum}")
        return value


@dataclass(frozen=True)
class _Entry:
    factory: Callable[..., Agent]
    params: dict[str, Param]
    help: str
    batched: bool


_REGISTRY: dict[str, _Entry] = {}


def _entry_points(kind: str | None = None) -> list[importlib.metadata.EntryPoint]:
    """The installed entry points of :data:`ENTRY_POINT_GROUP` (named ``kind``, or all)."""
    found = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    return [ep for ep in found if kind is None or ep.name.lower() == kind]


def _load_entry_point(ep: importlib.metadata.EntryPoint) -> None:
    """Import what the entry point names; call it when it is a function."""
    target = ep.load()
    if callable(target) and not inspect.isclass(target):
        target()


def _load_plugin(kind: str, strict: bool) -> None:
    """Register ``kind`` from its entry point if it is not registered yet.

    A failure is an error only when the kind was asked for (``strict``); listings just
    leave it out.
    """
    if kind in _REGISTRY:
        return
    for ep in _entry_points(kind):
        try:
            _load_entry_point(ep)
        except Exception as err:  # any failure of the plug-in's import
            if strict:
                raise ValueError(
                    f"agent {kind!r} is provided by the entry point "
                    f"{ep.name} = {ep.value} (group {ENTRY_POINT_GROUP}), which "
                    f"failed to load: {type(err).__name__}: {err}"
                ) from None
            continue
        if kind in _REGISTRY:
            return
        if strict:
            raise ValueError(
                f"the entry point {ep.name} = {ep.value} (group "
                f"{ENTRY_POINT_GROUP}) loaded but did not register agent "
                f"{kind!r} (it must call drl.agents.register_agent)"
            )


def _load_all_plugins() -> None:
    for ep in _entry_points():
        _load_plugin(ep.name.lower(), strict=False)


def register_agent(
    name: str,
    factory: Callable[..., Agent],
    params_doc: Mapping[str, Param | str],
    help: str = "",
    batched: bool = False,
) -> None:
    """Make an agent kind available to :func:`make` and to spec strings.

    Args:
        name: the kind, the part of a spec before ``:`` (lower case letters, digits, ``_``).
        factory: called with the parsed parameters as keyword arguments (only those given
            in the spec or with a non-None default); returns an :class:`Agent`. It may
            raise ``ValueError`` for invalid combinations.
        params_doc: parameter name -> :class:`Param`, or -> a help string (the value is
            then passed as a string).
        help: one line describing the kind.
        batched: the kind's agents are batched (:attr:`Agent.batched`); the arena reads
            this to plan games before it builds any agent.

    Raises:
        ValueError: a bad name or a name registered twice with a different factory.
    """
    if not name or not all(ch.isalnum() or ch == "_" for ch in name) or name != name.lower():
        raise ValueError(f"agent name must be lower case letters, digits or _, got {name!r}")
    params = {k: v if isinstance(v, Param) else Param(str, None, v) for k, v in params_doc.items()}
    old = _REGISTRY.get(name)
    if old is not None and old.factory is not factory:
        raise ValueError(f"agent {name!r} is already registered")
    _REGISTRY[name] = _Entry(factory, params, help, bool(batched))


def registered_agents() -> list[str]:
    """Names of the registered agent kinds (kinds of entry points included when they load)."""
    _load_all_plugins()
    return sorted(_REGISTRY)


def describe_agents() -> str:
    """Every agent kind with its parameters, one block per kind (for error messages)."""
    _load_all_plugins()
    lines = []
    for name in sorted(_REGISTRY):
        entry = _REGISTRY[name]
        lines.append(f"  {name}" + (f"  -- {entry.help}" if entry.help else ""))
        for key, p in entry.params.items():
            default = "" if p.default is None else f", default {p.default}"
            lines.append(f"      {key} ({p.type.__name__}{default}): {p.help}")
    return "\n".join(lines)


def _spec_error(message: str) -> ValueError:
    return ValueError(
        f"{message}\nvalid agents (spec kind[:param=value,...]):\n{describe_agents()}"
    )


def split_items(text: str) -> list[str]:
    """Split ``text`` at the commas that are not inside single or double quotes.

    ``cmd=/x,args='-a 1,2'`` -> ``["cmd=/x", "args='-a 1,2'"]``.
    """
    items, start, quote = [], 0, ""
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == ",":
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return items


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split and type-check a spec string.

    A value that holds a comma is written in single or double quotes
    (``hub:cmd=/x/drl-hub,args='--agent alphabeta:depth=2,tt=16'``); the quotes are
    removed.

    Returns:
        ``(kind, params)`` with values converted to their documented types.

    Raises:
        ValueError: unknown kind or parameter, malformed ``key=value``, a value of the
            wrong type or out of range, or a parameter given twice. The message lists the
            valid agents and their parameters.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise _spec_error(f"an agent spec must be a non-empty string, got {spec!r}")
    kind, _, rest = spec.strip().partition(":")
    kind = kind.strip().lower()
    _load_plugin(kind, strict=True)
    if kind not in _REGISTRY:
        raise _spec_error(f"unknown agent {kind!r} in spec {spec!r}")
    entry = _REGISTRY[kind]
    values: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in split_items(rest))):
        key, eq, text = item.partition("=")
        key = key.strip().lower()
        if not eq or not text.strip():
            raise _spec_error(f"{kind}: expected param=value, got {item!r} in spec {spec!r}")
        if key not in entry.params:
            raise _spec_error(
                f"{kind}: unknown parameter {key!r} in spec {spec!r}; "
                f"valid: {', '.join(entry.params) or 'none'}"
            )
        if key in values:
            raise _spec_error(f"{kind}: parameter {key!r} given twice in spec {spec!r}")
        values[key] = entry.params[key].convert(kind, key, _unquote(text.strip()))
    return kind, values


def make(spec: str | Agent) -> Agent:
    """Build an agent from its spec string (an :class:`Agent` is returned as is).

    Examples: ``make("random")``, ``make("alphabeta:depth=4")``,
    ``make("alphabeta:time=0.5")``, ``make("mcts:sims=400,c=1.4")``.

    Raises:
        ValueError: a bad spec; the message lists the valid agents and parameters.
        CheckpointError: (a ``ValueError``) a checkpoint the spec names is missing,
            damaged or malformed; the message names the file, not the catalogue of agents
            (the spec itself is well formed).
    """
    if isinstance(spec, Agent):
        return spec
    kind, values = parse_spec(spec)
    entry = _REGISTRY[kind]
    kwargs = {k: p.default for k, p in entry.params.items() if p.default is not None}
    kwargs.update(values)
    try:
        agent = entry.factory(**kwargs)
    except CheckpointError as err:
        raise CheckpointError(f"{kind}: {err}") from None
    except ValueError as err:
        raise _spec_error(f"{kind}: {err} (spec {spec!r})") from None
    except TypeError as err:  # a parameter the kind cannot go without
        if "required" not in str(err):
            raise
        raise _spec_error(f"{kind}: {err} (spec {spec!r})") from None
    agent.name = canonical_spec(kind, values)
    return agent


def is_batched(spec: str | Agent) -> bool:
    """Whether the agent of ``spec`` is batched (:attr:`Agent.batched`), without building it.

    An agent on a clock (:func:`is_timed`) never is: each game's move has the whole time.

    Raises:
        ValueError: a bad spec (see :func:`parse_spec`).
    """
    if isinstance(spec, Agent):
        return bool(spec.batched)
    kind, values = parse_spec(spec)
    return _REGISTRY[kind].batched and values.get("time") is None


def is_timed(spec: str | Agent) -> bool:
    """Whether the agent of ``spec`` plays on a clock (a ``time=`` per move), without building it.

    A spec's ``time`` given or defaulted (``dxp``), or an agent object with a ``time``
    attribute that is not None (or a ``player`` with one, as ``az``).

    Raises:
        ValueError: a bad spec (see :func:`parse_spec`).
    """
    if isinstance(spec, Agent):
        owner = getattr(spec, "player", spec)
        return getattr(spec, "time", None) is not None or getattr(owner, "time", None) is not None
    kind, values = parse_spec(spec)
    param = _REGISTRY[kind].params.get("time")
    return param is not None and (values.get("time", param.default) is not None)


def spec_name(spec: str | Agent) -> str:
    """The canonical name of a spec, as :func:`make` would name the agent, without building it.

    Raises:
        ValueError: a bad spec (see :func:`parse_spec`).
    """
    if isinstance(spec, Agent):
        return spec.name
    return canonical_spec(*parse_spec(spec))


def canonical_spec(kind: str, values: Mapping[str, Any]) -> str:
    """``kind:param=value,...`` with the given parameters in documented order."""
    entry = _REGISTRY[kind]
    items = [f"{k}={_fmt(values[k])}" for k in entry.params if k in values]
    return kind + (":" + ",".join(items) if items else "")


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
