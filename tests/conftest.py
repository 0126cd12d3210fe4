"""Shared fixtures: where the shared rule cases and game data live.

The data are read in place from ``../shared`` (relative to the repository root) and never
copied into the repository; tests that need them skip cleanly when they are absent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from shared_paths import SHARED_CASES, SHARED_DATA


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
    """``../shared/cases`` (rule cases, one JSON file each); skips when absent."""
    return _existing(SHARED_CASES)
