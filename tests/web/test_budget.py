"""What a game, a file and a replay may cost is bounded: a memory budget for the server as
a whole that refuses a new game or file with a message instead of growing, files bounded
by games and plies, replayed games by plies, and each replay computed once."""

from __future__ import annotations

import time

import pytest

from drl.agents import make
from drl.web import GameError, GameSettings
from drl.web.budget import BudgetFull, MemoryBudget, agent_bytes, opponent_bytes
from drl.web.replay import (
    MAX_GAME_PLIES,
    MAX_GAMES,
    MAX_PLIES,
    ReplayFile,
    ReplayStore,
    open_pdn,
)
from drl.web.store import GameStore
from tests.tiny_checkpoints import tiny_resnet_checkpoint

MIB = 1 << 20
LONG_GAME = (
    b'[Variant "english:repetition_draw=none,no_progress_plies=none"]\n[FEN "W:WK30:BK3"]\n'
    + b"30-26 3-7 26-30 7-3 " * 1500
    + b"*\n"
)


@pytest.mark.parametrize(
    "spec", ["alphabeta:depth=2,tt=12", "alphabeta:tt=20", "mcts:sims=5000", "random"]
)
def test_the_estimate_before_building_covers_what_the_opponent_holds(spec):
    agent = make(spec)
    arrays = agent_bytes(agent)
    assert opponent_bytes(spec) >= arrays
    if spec != "random":
        assert arrays >= opponent_bytes(spec) * 0.4  # the estimate is not far off either


def test_the_budget_counts_an_az_network_and_tree(tmp_path):
    ckpt = tiny_resnet_checkpoint(tmp_path / "run")
    agent = make(f"az:ckpt={ckpt},sims=1000,device=cpu")
    params = sum(p.numel() * p.element_size() for p in agent.net.parameters())
    assert agent_bytes(agent) >= params + 1000 * 700


def test_a_game_beyond_the_budget_is_refused_before_its_table_is_built():
    store = GameStore(budget=MemoryBudget(400 * MIB))
    started = time.monotonic()
    with pytest.raises(BudgetFull, match=r"needs about 3.1 GiB .* --memory"):
        store.new(GameSettings(opponent="alphabeta:depth=9,tt=26"))
    assert time.monotonic() - started < 2 and len(store) == 0 and store.budget.used == 0


def test_games_fill_the_budget_then_are_refused_and_closing_one_makes_room():
    store = GameStore(budget=MemoryBudget(700 * MIB))
    spec = "alphabeta:depth=2,tt=22"  # 192 MiB of table, 64 MiB of stack
    games = [store.new(GameSettings(opponent=spec)) for _ in range(2)]
    held = store.budget.used
    assert held == sum(store.held(g.id) for g in games) and held <= store.budget.limit
    with pytest.raises(BudgetFull, match="budget left"):
        store.new(GameSettings(opponent=spec))
    assert len(store) == 2 and store.budget.used == held  # nothing closed, nothing kept
    third = store.new(GameSettings(opponent=spec), replace=games[0].id)  # its room is free
    assert len(store) == 2 and store.budget.used == held
    store.remove(third.id)
    store.new(GameSettings(opponent=spec))
    store.close_all()
    assert store.budget.used == 0


def test_a_bad_game_gives_its_reservation_back():
    store = GameStore(budget=MemoryBudget(400 * MIB))
    with pytest.raises(GameError):
        store.new(GameSettings(opponent="alphabeta:depth=2", fen="W:W99:B1"))
    assert store.budget.used == 0


def test_a_file_of_result_markers_is_refused_after_max_games_games():
    started = time.monotonic()
    with pytest.raises(GameError, match=f"more than {MAX_GAMES} games"):
        open_pdn(b"* " * (4 * MIB), "markers.pdn")
    assert time.monotonic() - started < 20  # reading stops at the bound: not 4 M games


def test_a_file_of_too_many_plies_is_refused():
    data = LONG_GAME.replace(b"* 1500", b"") * (MAX_PLIES // 6000 + 1)
    with pytest.raises(GameError, match=f"{MAX_PLIES} plies"):
        open_pdn(data, "long.pdn")


def test_a_long_game_is_replayed_up_to_the_bound_and_computed_once(monkeypatch):
    replay = open_pdn(LONG_GAME, "long.pdn")
    calls = []
    frames = ReplayFile.frames
    monkeypatch.setattr(ReplayFile, "frames", lambda self, i: calls.append(i) or frames(self, i))
    first = replay.frames_json(0)
    assert replay.frames_json(0) is first and calls == [0]
    import json

    shown = json.loads(first)
    assert len(shown["positions"]) == MAX_GAME_PLIES + 1
    assert f"only its first {MAX_GAME_PLIES} plies" in shown["error"]


def test_the_replay_store_keeps_its_share_and_drops_the_oldest():
    budget = MemoryBudget(64 * MIB)
    store = ReplayStore(keep=100, budget=budget, max_bytes=20 * MIB)
    one = open_pdn(LONG_GAME, "long.pdn")
    keys = [store.add(one) for _ in range(10)]
    assert store.held <= store.max_bytes and budget.used == store.held
    store.get(keys[-1])
    with pytest.raises(Exception, match="no open PDN file"):
        store.get(keys[0])
    budget.reserve(budget.limit - budget.used, "games")  # the games take the rest
    key = store.add(one)  # room is made by dropping the store's own files
    assert store.get(key) and budget.used <= budget.limit
    tiny = ReplayStore(budget=MemoryBudget(64 * MIB), max_bytes=MIB)
    with pytest.raises(BudgetFull, match="split the file"):
        tiny.add(one)
