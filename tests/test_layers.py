"""No module of drl imports from a layer to its right in ``docs/architecture.md``.

The layer order is read from the diagram in ``docs/architecture.md`` itself, so the doc
and this test cannot drift apart. What counts as an import, for every module under
``drl/``:

- ``import`` and ``from ... import`` statements anywhere: at module level, inside
  functions (a lazy import is still a dependency, only a later one) and under
  ``if TYPE_CHECKING:`` (a type named in a lower layer's signature ties it to the upper
  layer just the same);
- relative imports, resolved against the importing module;
- ``importlib.import_module("drl.x")`` and ``__import__("drl.x")`` with a string
  literal (a computed name cannot be checked).

The layers in one pair of parentheses (``(search, nn)``, ``(envs, eval)``) are one
layer: the doc forbids only imports to the right, so they may import each other. The
top-level modules (``drl/__init__.py``, ``drl/_paths.py``, ``drl/_atomic.py``, ...) are
below every layer: anything may import them, and they import no layer.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DRL = ROOT / "drl"
ARCHITECTURE = ROOT / "docs" / "architecture.md"

BASE = "<top-level modules>"  # below every layer

# Known imports against the order, each with why it stays: (importing file, imported
# module) -> reason. None today; an entry must say why the import cannot go, and the test
# fails on an entry no longer needed, so the list only shrinks.
ALLOWED: dict[tuple[str, str], str] = {}


def layer_order(text: str) -> list[list[str]]:
    """The layers of the ``a <- b <- (c, d) <- ...`` diagram, lowest first; the names in
    one pair of parentheses form one layer."""
    lines = [line for line in text.splitlines() if "<-" in line]
    assert len(lines) == 1, f"expected one layer diagram line in {ARCHITECTURE}, got {lines}"
    layers = []
    for group in lines[0].split("<-"):
        names = [n.strip() for n in group.strip().strip("()").split(",")]
        assert all(re.fullmatch(r"[a-z_]+", n) for n in names), f"bad layer group {group!r}"
        layers.append(names)
    return layers


RANK = {
    name: rank for rank, group in enumerate(layer_order(ARCHITECTURE.read_text())) for name in group
}


def layer_of(module: str) -> str | None:
    """The layer of a drl module (``BASE`` for top-level ones), None outside drl."""
    parts = module.split(".")
    if parts[0] != "drl":
        return None
    if len(parts) > 1 and parts[1] in RANK:
        return parts[1]
    return BASE


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path, source: str | None = None) -> list[tuple[int, str]]:
    """Every module ``path`` (or ``source`` read as that file) imports, with its line
    (see the module docstring)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(
        ast.parse(path.read_text() if source is None else source, filename=str(path))
    ):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if node.module is None or target == "drl":  # from . import x / from drl import x
                found += [(node.lineno, f"{target}.{alias.name}") for alias in node.names]
            else:
                found.append((node.lineno, target))
        elif (
            isinstance(node, ast.Call)
            and (
                (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                or (
                    isinstance(node.func, ast.Name)
                    and node.func.id in ("import_module", "__import__")
                )
            )
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append((node.lineno, node.args[0].value))
    return found


def violations() -> tuple[list[str], set[tuple[str, str]]]:
    """The imports against the order (``file:line: module imports target``) and the
    allow-list entries that were used."""
    found, used = [], set()
    for path in sorted(DRL.rglob("*.py")):
        me = module_name(path)
        mine = layer_of(me)
        rel = path.relative_to(ROOT).as_posix()
        for line, target in imported_modules(path):
            theirs = layer_of(target)
            if theirs is None or theirs == BASE or theirs == mine:
                continue
            if mine != BASE and RANK[theirs] <= RANK[mine]:
                continue
            if (rel, target) in ALLOWED:
                used.add((rel, target))
                continue
            found.append(
                f"{rel}:{line}: {me} (layer {mine}) imports {target} (layer {theirs}, "
                f"to its right in docs/architecture.md)"
            )
    return found, used


def test_the_diagram_names_every_layer_package_once():
    names = [n for group in layer_order(ARCHITECTURE.read_text()) for n in group]
    assert len(names) == len(set(names)), names
    packages = {p.parent.name for p in DRL.glob("*/__init__.py")}
    assert packages == set(names), (
        f"packages of drl not in the diagram: {sorted(packages - set(names))}; "
        f"layers without a package: {sorted(set(names) - packages)}"
    )


def test_the_layer_table_lists_the_diagram_s_layers():
    table = re.findall(r"^\| `drl\.([a-z_]+)` \|", ARCHITECTURE.read_text(), re.M)
    assert table == [n for group in layer_order(ARCHITECTURE.read_text()) for n in group]


def test_no_module_imports_from_a_layer_to_its_right():
    found, _ = violations()
    assert not found, "imports against the layer order:\n" + "\n".join(found)


def test_every_allowed_import_is_still_there():
    _, used = violations()
    assert set(ALLOWED) <= used, f"no longer needed, remove: {sorted(set(ALLOWED) - used)}"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from drl.cli import eval\n", ["drl.cli"]),
        ("from ..cli import eval\n", ["drl.cli"]),
        ("def f():\n    import drl.agents.base\n", ["drl.agents.base"]),
        ("import importlib\nimportlib.import_module('drl.agents')\n", ["importlib", "drl.agents"]),
        ("__import__('drl.eval')\n", ["drl.eval"]),
        (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from drl.nn import x\n",
            ["typing", "drl.nn"],
        ),
    ],
)
def test_every_kind_of_import_is_seen(source, expected):
    probe = DRL / "rules" / "_probe.py"  # read as if it were this file; nothing is written
    assert [m for _, m in imported_modules(probe, source)] == expected


def test_no_import_cycle():
    """``tools/import_cycles.py`` finds no cycle among drl's modules, counting lazy imports
    and those made only for type checking."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "import_cycles", ROOT / "tools" / "import_cycles.py"
    )
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    assert tool.cycles(tool.graph(ROOT)) == []
    # the tool sees a cycle made by a lazy import, as the one the shims made
    edges = {"drl.a": {"drl.b"}, "drl.b": {"drl.a"}, "drl.c": {"drl.a"}}
    assert tool.cycles(edges) == [["drl.a", "drl.b"]]
