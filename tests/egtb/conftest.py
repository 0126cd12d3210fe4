"""Databases shared by the endgame-database tests: small ones, built once per session."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from drl.egtb import Database, build


@pytest.fixture(scope="session")
def egtb_folder(tmp_path_factory: pytest.TempPathFactory):
    """An empty database folder for the session."""
    return tmp_path_factory.mktemp("egtb")


@pytest.fixture(scope="session")
def built(egtb_folder) -> Callable[[str, int], Database]:
    """``built(variant, pieces)``: the database, built in the session folder on first use."""
    cache: dict[tuple[str, int], Database] = {}

    def get(variant: str, pieces: int) -> Database:
        if (variant, pieces) not in cache:
            cache[(variant, pieces)] = build(
                variant, pieces, directory=egtb_folder, progress=False, log=lambda msg: None
            )
        return cache[(variant, pieces)]

    return get
