"""Shared fixtures: where the rule cases and the game data live.

The rule cases are the repository's own golden data (``tests/golden/cases``) and are
always there. The real game collections are read in place from the shared folder beside
the checkout (``../shared/data``, located by ``drl._paths.shared_dir()``; ``DRL_SHARED``
overrides) and never copied into the repository; tests that need them skip cleanly when
they are absent.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.shared_paths import GOLDEN_CASES, SHARED_DATA


def pytest_configure(config: pytest.Config) -> None:
    """Point ``DRL_EGTB_DIR`` at an empty folder of this run's own.

    Alpha-beta probes any endgame database it finds; the user's cache must not change what
    a test sees, so every test (and every process it starts) sees only the databases the
    test builds itself.
    """
    folder = tempfile.mkdtemp(prefix="drl-egtb-tests-")
    config.stash[_EGTB_KEY] = folder
    os.environ["DRL_EGTB_DIR"] = folder


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = config.stash.get(_EGTB_KEY, None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


_EGTB_KEY = pytest.StashKey[str]()


def _existing(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"shared data not available: {path}")
    return path


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` (real games, perft tables, positions); skips when absent."""
    return _existing(SHARED_DATA)


@pytest.fixture(scope="session")
def games_dir(shared_data: Path) -> Path:
    """``../shared/data/games``; skips when absent."""
    return _existing(shared_data / "games")


@pytest.fixture(scope="session")
def cases_dir() -> Path:
    """``tests/golden/cases`` (rule cases, one JSON file each; always present)."""
    return GOLDEN_CASES


@pytest.fixture(autouse=True)
def _signal_handlers_are_left_as_found():
    """A test (or the library code it drives) that leaves SIGINT or SIGTERM changed in
    the test process fails here, naming the signal: a library call must never leave
    Ctrl-C ignored in its caller."""
    import signal

    watched = (signal.SIGINT, signal.SIGTERM)
    before = {sig: signal.getsignal(sig) for sig in watched}
    yield
    now = {sig: signal.getsignal(sig) for sig in watched}
    changed = {signal.Signals(s).name: repr(h) for s, h in now.items() if h != before[s]}
    for sig in watched:
        signal.signal(sig, before[sig])
    assert not changed, f"signal handlers left changed: {changed}"
