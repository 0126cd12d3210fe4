"""Drop drl's compiled-code cache when the code it was compiled from changes.

numba's on-disk cache (``cache=True``) checks only the source file of each cached
function. drl's kernels call and inline kernels of other modules (the encoder, the
searches and the env loop all inline the rules engine's move generator), so after an
edit of one module a cached kernel elsewhere would still run the old machine code, which
reads the old array layouts and can crash. :func:`check` runs when ``drl`` is imported,
before any compiled module loads: it hashes the sources of every module that uses numba
and of the drl modules they import and, when the hash differs from the one stored with
the cache, removes all of drl's ``*.nbi`` / ``*.nbc`` files so that numba compiles afresh
(once).
"""

from __future__ import annotations

import hashlib
import re
import sys
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
_STAMP = _PACKAGE / "__pycache__" / "numba-sources.sha1"
_IMPORT = re.compile(r"^\s*(?:from|import)\s+(drl(?:\.\w+)*)", re.MULTILINE)
_checked = False


def _module_file(name: str) -> Path | None:
    """The source file of module ``drl.x.y`` (or of package ``drl.x``), if it exists."""
    parts = name.split(".")[1:]
    base = _PACKAGE.joinpath(*parts) if parts else _PACKAGE
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _compiled_sources() -> list[Path]:
    """Modules that use numba, and every drl module they import, transitively.

    The imported modules count because their constants (such as the parameter indices) are
    baked into the machine code.
    """
    pending = [p for p in _PACKAGE.rglob("*.py") if b"numba" in p.read_bytes()]
    seen: set[Path] = set()
    while pending:
        path = pending.pop()
        if path in seen:
            continue
        seen.add(path)
        for name in _IMPORT.findall(path.read_text(encoding="utf-8")):
            found = _module_file(name)
            if found is not None:
                pending.append(found)
    return sorted(seen)


def _digest() -> str:
    h = hashlib.sha1()
    for path in _compiled_sources():
        h.update(str(path.relative_to(_PACKAGE)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def check() -> None:
    """Remove stale ``*.nbi``/``*.nbc`` files of this package, saying so on stderr.

    The message on stderr says that the kernels will be compiled. A no-op when the cache
    is up to date or its folder cannot be written. Runs once per process.
    """
    global _checked
    if _checked:
        return
    _checked = True
    try:
        digest = _digest()
        if _STAMP.exists() and _STAMP.read_text() == digest:
            return
        for pattern in ("*.nbi", "*.nbc"):
            for path in _PACKAGE.rglob(f"__pycache__/{pattern}"):
                path.unlink(missing_ok=True)
        _STAMP.parent.mkdir(exist_ok=True)
        _STAMP.write_text(digest)
    except OSError:
        return
    print(
        "drl: compiling the numba kernels of this version on first use "
        "(once; up to a minute in all) ...",
        file=sys.stderr,
        flush=True,
    )
