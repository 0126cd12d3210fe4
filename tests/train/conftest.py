"""A tiny training configuration (seconds per run)."""

from __future__ import annotations

import pytest

from tests.tiny_configs import tiny_config


@pytest.fixture(scope="session")
def tiny():
    return tiny_config
