"""Agent kinds from outside drl: the ``drl.agents`` entry-point group, found lazily, in
this process and in the arena's worker processes; ``az`` is registered without torch."""

import importlib.metadata
import subprocess
import sys
import textwrap

import pytest

from drl.agents import ENTRY_POINT_GROUP, make, registered_agents, registry
from drl.eval.settings import MatchSettings
from drl.rules import Board

PLUGIN = '''
from drl.agents import Agent, Param, register_agent


class Nth(Agent):
    """Plays the x-th legal move (mod the number of moves)."""

    def __init__(self, x=0):
        self.x = x

    def select_move(self, board):
        moves = board.legal_moves
        return moves[self.x % len(moves)]


def register():
    register_agent("{kind}", Nth, {{"x": Param(int, 0, "which legal move")}}, "n-th move")


def register_nothing():
    pass
'''


def _write_plugin(root, kind, module, register="register"):
    """A module and an installed distribution's dist-info naming it, under ``root``."""
    (root / f"{module}.py").write_text(PLUGIN.format(kind=kind))
    info = root / f"{module}_dist-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}-dist\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\n{kind} = {module}:{register}\n")


@pytest.fixture
def plugin_path(tmp_path, monkeypatch):
    """A folder on sys.path for plug-ins; the kinds they register are dropped after."""
    monkeypatch.syspath_prepend(str(tmp_path))
    before = set(registry._REGISTRY)
    yield tmp_path
    for kind in set(registry._REGISTRY) - before:
        del registry._REGISTRY[kind]


def test_an_installed_entry_point_registers_its_kind_when_first_asked_for(plugin_path):
    _write_plugin(plugin_path, "nthmove", "drl_plugin_nth")
    assert "nthmove" not in registry._REGISTRY  # nothing is loaded before it is asked for
    agent = make("nthmove:x=1")
    assert agent.name == "nthmove:x=1"
    board = Board("english")
    assert agent.select_move(board) == board.legal_moves[1]
    assert "nthmove" in registered_agents()


def test_entry_points_are_read_through_importlib_metadata(plugin_path, monkeypatch):
    (plugin_path / "drl_plugin_mono.py").write_text(PLUGIN.format(kind="monokind"))
    ep = importlib.metadata.EntryPoint("monokind", "drl_plugin_mono:register", ENTRY_POINT_GROUP)
    groups = []

    def entry_points(group):
        groups.append(group)
        return importlib.metadata.EntryPoints([ep] if group == ENTRY_POINT_GROUP else [])

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    make("random")  # a registered kind does not look at entry points
    assert groups == []
    assert make("monokind").select_move(Board("english")) == Board("english").legal_moves[0]
    assert groups == [ENTRY_POINT_GROUP]


@pytest.mark.parametrize(
    "register, message",
    [
        ("register_nothing", "did not register agent 'brokenkind'"),
        ("no_such_function", "failed to load: AttributeError"),
    ],
)
def test_a_broken_entry_point_is_named_in_the_error(plugin_path, register, message):
    _write_plugin(plugin_path, "brokenkind", f"drl_plugin_{register}", register)
    with pytest.raises(ValueError, match=message):
        make("brokenkind")
    assert "brokenkind" not in registered_agents()  # listings leave it out quietly


def test_the_arena_worker_processes_find_the_plugin(plugin_path):
    from drl.eval.arena import play_match

    _write_plugin(plugin_path, "workerkind", "drl_plugin_worker")
    one = play_match(
        "workerkind:x=2",
        "random",
        "english",
        games=2,
        settings=MatchSettings(openings=None, workers=1, max_plies=20, progress=False),
    )
    registry._REGISTRY.pop("workerkind")  # the workers must find it on their own
    two = play_match(
        "workerkind:x=2",
        "random",
        "english",
        games=2,
        settings=MatchSettings(openings=None, workers=2, max_plies=20, progress=False),
    )
    assert [r.moves for r in two.records] == [r.moves for r in one.records]


def test_az_is_registered_without_importing_torch():
    code = textwrap.dedent("""
        import sys
        from drl.agents import is_batched, make, registered_agents, spec_name
        assert "az" in registered_agents()
        assert spec_name("az:ckpt=x,sims=8") == "az:ckpt=x,sims=8"
        assert is_batched("az:ckpt=x") and not is_batched("alphabeta")
        for spec in ("random", "greedy", "alphabeta:depth=1", "mcts:sims=2"):
            make(spec)
        from drl.agents.az import NetworkPlayer
        print("torch" in sys.modules)
    """)
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"
