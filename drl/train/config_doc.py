"""Every training configuration key with its default and its meaning, from the dataclasses.

The meaning of a key is the entry for its field in the ``Attributes:`` section of the
docstring of the dataclass that holds it in the code (:class:`~drl.train.config.LoopCfg`,
``drl.train.selfplay.SelfPlayConfig``, ``drl.search.SearchConfig``, the network's config
class, ...), so that the documentation site's page of keys and ``drl-train --help`` say
what the code says::

    from drl.train.config_doc import config_keys
    for key in config_keys():
        print(key.key, key.default, key.meaning)
"""

from __future__ import annotations

import dataclasses
import inspect
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["ConfigKey", "attribute_docs", "config_keys", "keys_markdown", "keys_text"]

_ENTRY = re.compile(r"^(\w+(?:\s*,\s*\w+)*)\s*:\s*(.*)$")


def attribute_docs(cls: type) -> dict[str, str]:
    """``{field: meaning}`` from the ``Attributes:`` section of ``cls``'s docstring.

    An entry may name several fields (``lr, weight_decay: optimiser``); its continuation
    lines are joined into one line. Fields without an entry are left out.
    """
    doc = inspect.getdoc(cls) or ""
    out: dict[str, str] = {}
    in_section = False
    names: list[str] = []
    text: list[str] = []

    def flush() -> None:
        for name in names:
            out[name] = " ".join(text).strip()

    for line in doc.splitlines():
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if indent == 0:
            if in_section:
                flush()
                names = []
            in_section = line.strip() == "Attributes:"
            continue
        if not in_section:
            continue
        found = _ENTRY.match(line.strip()) if indent <= 4 else None
        if found:
            flush()
            names = [n.strip() for n in found.group(1).split(",")]
            text = [found.group(2)]
        else:
            text.append(line.strip())
    if in_section:
        flush()
    return out


@dataclass(frozen=True)
class ConfigKey:
    """One configuration key.

    Attributes:
        key: the dotted key, as given on the command line (``train.lr``).
        default: its value in the default configuration (``drl-train`` with no override).
        meaning: what it does, from the code's docstring ("" when undocumented).
    """

    key: str
    default: Any
    meaning: str


def _sources(arch: str) -> dict[str, Sequence[type]]:
    """The dataclasses that document each group's keys (``arch``: the network's)."""
    from drl._configs import VariantCfg
    from drl.nn import arch_config_class
    from drl.search import SearchConfig
    from drl.train.config import AlgoCfg, Config, LoopCfg, ModelNode, RuntimeCfg, TrainEvalCfg
    from drl.train.learner import LossConfig
    from drl.train.minimax import MinimaxConfig
    from drl.train.selfplay import SelfPlayConfig

    return {
        "": [Config],
        "variant": [VariantCfg],
        "model": [ModelNode, arch_config_class(arch)],
        "search": [SearchConfig],
        "train": [LoopCfg, SelfPlayConfig, LossConfig],
        "train.eval": [TrainEvalCfg],
        "train.final_eval": [TrainEvalCfg],
        "algo": [AlgoCfg],
        "minimax": [MinimaxConfig],
        "runtime": [RuntimeCfg],
    }


_EXTRA = {
    "model.name": "the model preset's name (``configs/model/*.yaml``)",
    "model.arch": "the registered network architecture (``drl.nn.registered_archs()``)",
    "search.name": "the search preset's name (``configs/search/*.yaml``)",
    "train.name": "the training preset's name (``configs/train/*.yaml``: default, long, tiny)",
}


def _walk(node: Any, prefix: str) -> Iterable[tuple[str, Any]]:
    for f in dataclasses.fields(node):
        value = getattr(node, f.name)
        key = f"{prefix}{f.name}"
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            yield from _walk(value, f"{key}.")
        else:
            yield key, value


def config_keys(overrides: Sequence[str] = ()) -> list[ConfigKey]:
    """Every key of the training configuration, in the order of the schema.

    Args:
        overrides: as for ``drl-train``; the defaults shown are those they give (e.g.
            ``["train=long"]``).

    Returns:
        One :class:`ConfigKey` per leaf key; groups (``variant``, ``train.eval``, ...) are
        not keys themselves.
    """
    from drl.train.api import compose_config

    cfg = compose_config(overrides)
    docs = {
        group: {k: v for cls in reversed(classes) for k, v in attribute_docs(cls).items()}
        for group, classes in _sources(cfg.model.arch).items()
    }
    out = []
    for key, value in _walk(cfg, ""):
        group, _, name = key.rpartition(".")
        meaning = _EXTRA.get(key) or docs.get(group, {}).get(name, "")
        out.append(ConfigKey(key, value, meaning))
    return out


def _fmt(value: Any) -> str:
    if isinstance(value, str):
        return value if value else "''"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


_ROLE = re.compile(r":\w+:`~?([^`]+)`")


def _markdown(text: str) -> str:
    """The inline markup (reST) of a docstring as Markdown: roles, double backquotes."""
    return _ROLE.sub(r"`\1`", text).replace("``", "`").replace("|", "\\|")


def _plain(text: str) -> str:
    """The inline markup (reST) of a docstring as plain text."""
    return _ROLE.sub(r"\1", text).replace("``", "")


def keys_markdown(overrides: Sequence[str] = ()) -> str:
    """The keys as a Markdown table: key, default, meaning."""
    lines = ["| key | default | meaning |", "|---|---|---|"]
    for k in config_keys(overrides):
        meaning = _markdown(k.meaning)
        lines.append(f"| `{k.key}` | `{_fmt(k.default)}` | {meaning} |")
    return "\n".join(lines) + "\n"


def keys_text(overrides: Sequence[str] = (), width: int = 100) -> str:
    """The keys as plain text for ``--help``: ``key=default`` and the meaning below it."""
    import textwrap

    lines = []
    for k in config_keys(overrides):
        lines.append(f"  {k.key}={_fmt(k.default)}")
        if k.meaning:
            plain = k.meaning.replace("``", "").replace(":class:", "").replace(":func:", "")
            lines += textwrap.wrap(plain, width, initial_indent=" " * 6, subsequent_indent=" " * 6)
    return "\n".join(lines) + "\n"
