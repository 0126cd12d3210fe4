"""Drop this package's compiled-code cache when the code it was compiled from changes.

numba's on-disk cache (``cache=True``) checks only the source file of each cached
function. The searches here inline the rules engine's kernels, so after an edit of
``drl/rules`` (or of one of our own helper modules) a cached search would still run the
old machine code, which reads the old array layouts and can crash. Before the compiled
modules load, :func:`check` hashes the sources they are built from and, when the hash
differs from the one stored next to the cache, removes this package's cache files so
that numba compiles afresh (once).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
_SOURCES = (_PACKAGE.parent / "rules", _PACKAGE)
_STAMP = _PACKAGE / "__pycache__" / "numba-sources.sha1"
_checked = False


def _digest() -> str:
    h = hashlib.sha1()
    for folder in _SOURCES:
        for path in sorted(folder.glob("*.py")):
            h.update(path.name.encode())
            h.update(path.read_bytes())
    return h.hexdigest()


def check() -> None:
    """Remove stale ``*.nbi``/``*.nbc`` files of this package (no-op when up to date or
    when the folder cannot be written). Runs once per process."""
    global _checked
    if _checked:
        return
    _checked = True
    try:
        digest = _digest()
        if _STAMP.exists() and _STAMP.read_text() == digest:
            return
        for pattern in ("*.nbi", "*.nbc"):
            for path in _STAMP.parent.glob(pattern):
                path.unlink(missing_ok=True)
        _STAMP.parent.mkdir(exist_ok=True)
        _STAMP.write_text(digest)
    except OSError:
        pass
