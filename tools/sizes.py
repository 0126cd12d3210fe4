"""Print drl's files over 650 lines and functions over 80 lines (docstring included).

The rules core (``drl/rules/core.py``, ``drl/rules/board.py``) and the capture search
(``_generate_captures`` family in ``drl/rules/_movegen.py``, marked with a ``noqa``) are
the agreed exceptions and are listed apart. Lines are ``len(text.splitlines())`` for a
file and ``end_lineno - lineno + 1`` for a function (methods and nested functions too).

Usage: ``python tools/sizes.py [ROOT]``; exits 1 when a file or function outside the
exceptions is over its limit.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

FILE_LIMIT = 650
FUNCTION_LIMIT = 80
EXEMPT_FILES = {"drl/rules/core.py", "drl/rules/board.py"}


def exempt_function(
    path: str, node: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[str]
) -> bool:
    """Whether a function is the capture search (marked ``noqa`` in the move generator)."""
    return path == "drl/rules/_movegen.py" and "noqa" in lines[node.lineno - 1]


def main() -> int:
    """Print the files and functions over the limits, then the counts."""
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1])
    over = 0
    files, functions = [], []
    for path in sorted((root / "drl").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        text = path.read_text()
        lines = text.splitlines()
        if len(lines) > FILE_LIMIT:
            files.append((len(lines), rel, rel in EXEMPT_FILES))
        for node in ast.walk(ast.parse(text, rel)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = (node.end_lineno or node.lineno) - node.lineno + 1
                if n > FUNCTION_LIMIT:
                    functions.append(
                        (n, f"{rel}:{node.lineno} {node.name}", exempt_function(rel, node, lines))
                    )
    for title, rows in (("files over 650 lines", files), ("functions over 80 lines", functions)):
        counted = [r for r in rows if not r[2]]
        print(f"{title}: {len(counted)} (plus {len(rows) - len(counted)} exempt)")
        for n, name, exempt in sorted(rows, reverse=True):
            print(f"  {n:5d}  {name}{'  (exempt)' if exempt else ''}")
        over += len(counted)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
