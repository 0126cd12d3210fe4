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

:func:`announce_compiles` says on stderr which kernels are being compiled and how long it
took, each time numba compiles instead of loading from its cache (a kernel set used for
the first time, or any kernel after an edit), so that a first run does not sit silent.
"""

from __future__ import annotations

import atexit
import hashlib
import re
import sys
import threading
import time
from pathlib import Path
from typing import Any, TextIO

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


class _CompileNotices:
    """Listener of numba's ``numba:compile`` events: one notice per kernel set.

    numba sends the event only when it compiles (a cache hit sends none). A kernel set is
    the drl module of the outermost kernel being compiled (its callees compile inside
    it). A set whose compiling lasts past ``delay`` seconds is announced then (so that a
    quick recompile of one kernel says nothing); when compiling moves to another module,
    or the process exits, the time spent on an announced set is reported.
    """

    def __init__(self, stream: TextIO | None = None, delay: float = 1.0) -> None:
        self.stream = stream
        self.delay = delay
        self.lock = threading.Lock()
        self.depth = 0
        self.module: str | None = None
        self.announced = False
        self.seconds = 0.0
        self.kernels = 0
        self.total = 0
        self.t0 = 0.0
        self.timer: threading.Timer | None = None

    def _print(self, text: str) -> None:
        print(text, file=self.stream or sys.stderr, flush=True)

    def _announce(self, module: str) -> None:
        with self.lock:
            if self.module != module or self.announced or self.depth == 0:
                return
            self.announced = True
            self._print(
                f"drl: compiling the numba kernels of {module} "
                "(first use of this code; cached afterwards) ..."
            )

    def start(self, module: str) -> None:
        """An outermost compile of a kernel of ``module`` begins."""
        if module != self.module:
            self.finish()
            self.module = module
        if not self.announced and self.delay <= 0:
            self._announce(module)
        elif not self.announced:
            self.timer = threading.Timer(self.delay, self._announce, args=(module,))
            self.timer.daemon = True
            self.timer.start()
        self.t0 = time.perf_counter()

    def end(self) -> None:
        """The outermost compile that began last has ended."""
        self.seconds += time.perf_counter() - self.t0
        self.kernels += 1
        self.total += 1
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def finish(self) -> None:
        """Report the kernel set being compiled, if it was announced."""
        with self.lock:
            if self.module is not None and self.announced and self.kernels:
                n = self.kernels
                self._print(
                    f"drl: compiled {n} kernel{'s' * (n != 1)} of {self.module} "
                    f"in {self.seconds:.1f} s"
                )
            self.module, self.announced, self.seconds, self.kernels = None, False, 0.0, 0

    def on_event(self, kind: str, module: str) -> None:
        """``kind`` is ``"start"`` or ``"end"`` of one compile of a kernel of ``module``."""
        if kind == "start":
            with self.lock:
                self.depth += 1
                outermost = self.depth == 1
            if outermost:
                self.start(module)
        else:
            with self.lock:
                self.depth = max(0, self.depth - 1)
                outermost = self.depth == 0
            if outermost:
                self.end()


_notices: _CompileNotices | None = None


def _listener(notices: _CompileNotices) -> Any:
    """A numba event listener that passes each compile's start and end to ``notices``."""
    from numba.core import event

    class _Listener(event.Listener):
        def _module(self, ev: Any) -> str:
            func = getattr(ev.data.get("dispatcher"), "py_func", None)
            return str(getattr(func, "__module__", None) or "numba")

        def on_start(self, ev: Any) -> None:
            notices.on_event("start", self._module(ev))

        def on_end(self, ev: Any) -> None:
            notices.on_event("end", self._module(ev))

    return _Listener()


def announce_compiles() -> None:
    """Say on stderr which kernel set numba compiles, and how long it took (idempotent).

    Lines such as ``drl: compiling the numba kernels of drl.rules.core (first use of this
    code; cached afterwards) ...`` and ``drl: compiled 5 kernels of drl.rules.core in
    9.8 s``. Called when :mod:`drl.rules` is imported, which every compiled module of drl
    imports. Nothing is printed when the kernels load from the cache, nor for a kernel
    set compiled in under a second.
    """
    global _notices
    if _notices is not None:
        return
    from numba.core import event

    notices = _notices = _CompileNotices()
    event.register("numba:compile", _listener(notices))
    atexit.register(notices.finish)


def compiled_kernels() -> int:
    """Kernels numba has compiled in this process so far (loads from its cache not counted).

    Each outermost compile counts once (its callees compile inside it). 0 until
    :func:`announce_compiles` has run (:mod:`drl.rules` runs it when imported).
    """
    return 0 if _notices is None else _notices.total
