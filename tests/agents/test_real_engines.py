"""Matches against real engines: Scan 2.0 (Hub-1, and DXP) and Moby Dam (DXP), built from
the sources in ``../shared/engines`` (``drl._paths.shared_dir()``; ``DRL_SHARED``
overrides) into a temporary folder once per test session. Skipped when the sources, or
``make`` and a C/C++ compiler, are absent.

The default suite plays one short game against each engine (the builds take about 30 s
on 2 cores, mostly Scan's); the two-game matches are ``slow``.
"""

from __future__ import annotations

import shutil
import subprocess
import time

import pytest

from drl._paths import shared_dir
from drl.agents import make
from drl.eval.arena import play_match
from drl.eval.settings import MatchSettings
from drl.rules import Board
from tests.agents.engine_procs import no_leftover_processes

pytestmark = pytest.mark.usefixtures("no_leftover_processes")
_ = no_leftover_processes

ENGINES = shared_dir() / "engines"
SOURCES = {"scan": ENGINES / "scan-2.0", "mobydam": ENGINES / "mobydam"}


@pytest.fixture(scope="session")
def engine_builds(tmp_path_factory):
    """name -> build folder, built on first use (a failed build is reported once)."""
    root = tmp_path_factory.mktemp("engines")
    built: dict[str, object] = {}

    def build(name: str):
        if name not in built:
            script = SOURCES[name] / "build.sh"
            if not script.exists():
                pytest.skip(f"engine sources not available: {script}")
            for tool in ("make", "g++" if name == "scan" else "gcc"):
                if shutil.which(tool) is None:
                    pytest.skip(f"{tool} is needed to build {name}")
            started = time.monotonic()
            out = subprocess.run(
                [str(script), str(root / name)], capture_output=True, text=True, timeout=600
            )
            if out.returncode != 0:
                built[name] = RuntimeError(f"{name} build failed: {out.stderr[-2000:]}")
            else:
                built[name] = out.stdout.strip().splitlines()[-1]
                print(f"built {name} in {time.monotonic() - started:.0f} s")
        if isinstance(built[name], Exception):
            raise built[name]
        return built[name]

    return build


def _game(agent_spec: str, plies: int) -> Board:
    """One game, the engine as White (it moves first), alphabeta:depth=1 as Black."""
    board = Board("international")
    players = [make(agent_spec), make("alphabeta:depth=1")]
    try:
        while board.outcome() is None and board.ply < plies:
            board.push(players[board.ply % 2].select_move(board))  # checked push
    finally:
        players[0].close()
    return board


def test_scan_over_hub_plays_a_short_game(engine_builds):
    folder = engine_builds("scan")
    board = _game(f"hub:cmd={folder}/scan,cwd={folder},depth=2,tt=16,book=false", 30)
    assert board.ply == 30 or board.outcome() is not None


def test_mobydam_over_dxp_plays_a_short_game(engine_builds):
    folder = engine_builds("mobydam")
    board = _game(f"dxp:cmd={folder}/mobydam,cwd={folder},time=0.1,tt=16", 30)
    assert board.ply == 30 or board.outcome() is not None


@pytest.mark.slow
def test_scan_over_dxp_plays_a_short_game(engine_builds):
    folder = engine_builds("scan")
    board = _game(f"dxp:cmd={folder}/scan,cwd={folder},time=0.1,tt=16", 10)
    assert board.ply == 10 or board.outcome() is not None


@pytest.mark.slow
@pytest.mark.parametrize(
    "engine, spec",
    [
        ("scan", "hub:cmd={f}/scan,cwd={f},depth=2,tt=16"),
        ("mobydam", "dxp:cmd={f}/mobydam,cwd={f},time=0.1,tt=16"),
    ],
)
def test_two_game_match_against_a_real_engine(engine_builds, engine, spec):
    folder = engine_builds(engine)
    result = play_match(
        spec.format(f=folder),
        "alphabeta:depth=2",
        "international",
        games=2,
        settings=MatchSettings(workers=1, max_plies=120, progress=False),
    )
    assert len(result.records) == 2
    print(engine, [r.result for r in result.records])
