"""Print the import cycles among drl's own modules.

Every ``import`` and ``from ... import`` counts, wherever it stands: at module level,
inside a function, or under ``if TYPE_CHECKING:``. Relative imports are resolved against
the importing module, and ``from pkg import name`` points to ``pkg.name`` when that is a
module, else to ``pkg``. A cycle is a strongly connected component of more than one
module.

Usage: ``python tools/import_cycles.py [ROOT]`` (ROOT defaults to the repository); prints
one line per cycle and a count (``tests/test_layers.py`` holds the graph to none).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path


def module_name(path: Path, root: Path) -> str:
    """The dotted name of a module file under ``root``."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def graph(root: Path) -> dict[str, set[str]]:
    """Each drl module mapped to the drl modules it imports."""
    files = {module_name(p, root): p for p in sorted((root / "drl").rglob("*.py"))}
    edges: dict[str, set[str]] = {m: set() for m in files}
    for mod, path in files.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([base] if base else []))
                for alias in node.names:
                    full = f"{base}.{alias.name}"
                    targets.append(full if full in files else base)
            for target in targets:
                while target and target not in files:
                    target = target.rpartition(".")[0]
                if target and target != mod:
                    edges[mod].add(target)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(10_000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(found)


def main() -> int:
    """Print each cycle on one line, then the count."""
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1])
    found = cycles(graph(root))
    for comp in found:
        print(" <-> ".join(comp))
    print(f"{len(found)} import cycle(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
