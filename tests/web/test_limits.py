"""Every opponent search a page starts has a hard limit: a search given up on (over its
time, or its game closed) is stopped, and its game goes on; a closed engine game stops the
engine's descendants too; a time limit the agent cannot take is refused clearly."""

from __future__ import annotations

import os
import sys
import threading
import time

import pytest

from drl.web import GameError, GameSettings, WebGame
from drl.web.settings import opponent_spec
from tests.agents.engine_procs import alive, wait_gone
from tests.tiny_checkpoints import tiny_resnet_checkpoint


def _stopped_within(game: WebGame, seconds: float) -> bool:
    """Whether the game's last search ended within ``seconds``."""
    running = game._running
    assert running is not None
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if running.done():
            return True
        time.sleep(0.02)
    return False


def _think_then_close(game: WebGame) -> dict:
    """Ask for the opponent's move in a thread, close the game while it thinks."""
    result: dict = {}

    def ask() -> None:
        try:
            game.opponent_move()
        except GameError as err:
            result["error"] = str(err)

    asking = threading.Thread(target=ask, daemon=True)
    asking.start()
    time.sleep(1.0)
    assert game._running is not None and not game._running.done(), "it ended too soon"
    game.close()
    asking.join(10)
    result["asking"] = asking.is_alive()
    return result


@pytest.mark.parametrize("spec", ["alphabeta:depth=40", "mcts:sims=1000000"])
def test_closing_a_game_stops_its_search(spec):
    game = WebGame(GameSettings(opponent=spec, color="white"))
    result = _think_then_close(game)
    assert _stopped_within(game, 5), f"{spec}: the search goes on after its game closed"
    assert not result["asking"] and "closed" in result["error"]


def test_closing_an_az_game_stops_its_search(tmp_path):
    ckpt = tiny_resnet_checkpoint(tmp_path / "run")
    game = WebGame(GameSettings(opponent=f"az:ckpt={ckpt},sims=100000,device=cpu", color="white"))
    _think_then_close(game)
    assert _stopped_within(game, 5), "the az search goes on after its game closed"


def test_a_search_over_its_time_is_stopped_and_the_game_goes_on(monkeypatch):
    monkeypatch.setattr("drl.web.game.GRACE", 0.0)
    game = WebGame(GameSettings(opponent="mcts:sims=1000000", color="white", move_time=0.5))
    started = time.monotonic()
    with pytest.raises(GameError, match="did not move within 0.5 s .* its search is stopped"):
        game.opponent_move()
    assert time.monotonic() - started < 5
    assert _stopped_within(game, 5), "the given-up search goes on"
    assert game.state()["moves"] == []
    with pytest.raises(GameError, match="did not move"):  # not "still thinking"
        game.opponent_move()


def test_without_a_move_time_a_search_has_the_server_s_limit(monkeypatch):
    monkeypatch.setattr("drl.web.game.GRACE", 0.0)
    monkeypatch.setattr("drl.web.game.MAX_MOVE_TIME", 0.5)
    game = WebGame(GameSettings(opponent="alphabeta:depth=40", color="white"))
    with pytest.raises(GameError, match="did not move within 0.5 s"):
        game.opponent_move()
    assert _stopped_within(game, 5)
    game.close()


def test_alphabeta_with_a_depth_takes_the_move_time_too():
    assert opponent_spec("alphabeta:depth=40", 0.5) == "alphabeta:depth=40,time=0.5"
    assert opponent_spec("alphabeta:time=2", 0.5) == "alphabeta:time=2"
    assert opponent_spec("hub:cmd=x,depth=4", 0.5) == "hub:cmd=x,depth=4"
    assert opponent_spec("mcts:sims=10", 0.5) == "mcts:sims=10"
    game = WebGame(GameSettings(opponent="alphabeta:depth=40", color="white", move_time=0.2))
    started = time.monotonic()
    game.opponent_move()
    assert time.monotonic() - started < 5 and len(game.state()["moves"]) == 1
    game.close()


def test_a_move_time_the_agent_cannot_take_is_refused():
    with pytest.raises(GameError, match=r"move_time 0.0005 s does not suit alphabeta: .*minimum"):
        WebGame(GameSettings(opponent="alphabeta:depth=3", move_time=0.0005))
    WebGame(GameSettings(opponent="random", move_time=0.0005)).close()  # no time parameter


@pytest.mark.parametrize("value", [True, False, [1], {"s": 1}, "soon"])
def test_a_move_time_that_is_not_a_number_is_refused(value):
    with pytest.raises(GameError, match="move_time must be a number of seconds"):
        GameSettings.from_json({"move_time": value})


FAKE_ENGINE = """\
import os, sys
if os.fork() == 0:  # a child that leaves the engine's process group at once
    os.setsid()
    os.execvp("sleep", ["sleep", "60"])
for line in sys.stdin:
    w = line.split()
    if not w:
        continue
    if w[0] == "hub":
        print("id name=fake", flush=True)
        print("wait", flush=True)
    elif w[0] == "init":
        print("ready", flush=True)
    elif w[0] == "go":
        print("done move=32-28", flush=True)
    elif w[0] == "quit":
        break
"""


def _sleepers() -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if f.read() == b"sleep\x0060\x00":
                        found.add(int(entry))
            except OSError:
                continue
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs /proc")
@pytest.mark.parametrize("how", ["delete", "evict"])
def test_a_closed_engine_game_stops_the_engine_s_escaped_child(tmp_path, how):
    from drl.web.store import GameStore

    script = tmp_path / "engine.py"
    script.write_text(FAKE_ENGINE)
    spec = f"hub:cmd={sys.executable} {script},time=0.2"
    store = GameStore(max_games=1)
    before = _sleepers()
    game = store.new(GameSettings(variant="international", opponent=spec, color="black"))
    game.opponent_move()
    deadline = time.monotonic() + 10
    while not (escaped := _sleepers() - before) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert escaped, "the engine's child did not start"
    if how == "delete":
        assert store.remove(game.id)
    else:
        store.new(GameSettings(opponent="random"))
    assert all(wait_gone(p) for p in escaped), [p for p in escaped if alive(p)]
    store.close_all()


def test_a_stored_simulation_budget_above_the_page_s_range_is_refused(tmp_path):
    import torch

    from drl.nn.checkpoint import save_checkpoint

    ckpt = tiny_resnet_checkpoint(tmp_path / "run")
    payload = torch.load(ckpt, weights_only=False)
    payload["config_yaml"] = "search:\n  num_simulations: 10000000\n"
    crafted = save_checkpoint(tmp_path / "crafted", 1, payload)
    started = time.monotonic()
    with pytest.raises(GameError, match="opponent 'az:ckpt="):
        WebGame(GameSettings(opponent=f"az:ckpt={crafted},device=cpu", color="white"))
    assert time.monotonic() - started < 30
    game = WebGame(GameSettings(opponent=f"az:ckpt={crafted},sims=4,device=cpu"))
    game.close()
