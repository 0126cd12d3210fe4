"""The browser board's game logic without a browser or a web library: steps checked by the
game core, multi-jumps hop by hop, the opponent, undo, PDN, settings, the store and the
replay of PDN files."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from drl.agents import Agent, make
from drl.rules import Board, read_games, replay
from drl.web import GRACE, GameError, GameSettings, WebGame
from drl.web.replay import ReplayFolder, ReplayStore, open_pdn
from drl.web.settings import game_variant, opponent_spec
from drl.web.store import GameNotFound, GameStore

DATA = Path(__file__).resolve().parent / "data"
DOUBLE_JUMP = "B:W18,26:B14"  # English: Black 14x23x30 takes both white men


def test_a_multi_jump_is_played_hop_by_hop_and_checked_at_each_hop():
    game = WebGame(GameSettings(fen=DOUBLE_JUMP))
    assert game.legal_steps() == [(13, 22)]
    game.play_step(13, 22)
    state = game.state()
    assert state["jump"] == {"from": 13, "at": 22, "captured": [17]}
    assert state["position"][22] == "b" and state["position"][13] == "."
    assert state["moves"] == [] and state["steps"] == [(22, 29)]
    with pytest.raises(GameError, match="capture goes on from 23; legal steps: 23x30"):
        game.play_step(22, 26)
    assert game.state()["jump"]["at"] == 22  # refused: nothing changed
    game.play_step(22, 29)
    state = game.state()
    assert state["moves"] == ["14x23x30"] and state["over"]
    assert state["result"] == "1-0: Black wins (no pieces)"


def test_an_illegal_step_names_the_legal_ones_and_changes_nothing():
    game = WebGame(GameSettings())
    before = game.state()
    with pytest.raises(
        GameError, match=r"9-18 is not a legal step here; legal steps: 9-13, 9-14, 10-14"
    ):
        game.play_step(8, 17)
    with pytest.raises(GameError, match="a step is two squares"):
        game.play_step("9", 13)
    with pytest.raises(GameError, match="a step is two squares"):
        game.play_step(8, 99)
    assert game.state() == before


def test_the_opponent_answers_and_undo_takes_back_both_moves():
    game = WebGame(GameSettings(opponent="random:seed=1"))
    with pytest.raises(GameError, match="it is your turn"):
        game.opponent_move()
    game.play_step(10, 14)  # 11-15
    with pytest.raises(GameError, match="random:seed=1's turn"):
        game.play_step(8, 12)
    game.opponent_move()
    assert len(game.state()["moves"]) == 2
    game.undo()
    assert game.state()["moves"] == [] and game.state()["turn"] == "black"
    with pytest.raises(GameError, match="nothing to take back"):
        game.undo()


def test_undo_in_a_multi_jump_takes_back_its_hops():
    game = WebGame(GameSettings(fen=DOUBLE_JUMP))
    game.play_step(13, 22)
    game.undo()
    assert game.state()["jump"] is None and game.legal_steps() == [(13, 22)]


def test_a_finished_game_refuses_moves_and_undo_reopens_it():
    game = WebGame(GameSettings(fen=DOUBLE_JUMP))
    game.play_step(13, 22)
    game.play_step(22, 29)
    with pytest.raises(GameError, match="the game is over .1-0: Black wins"):
        game.play_step(0, 4)
    with pytest.raises(GameError, match="the game is over"):
        game.opponent_move()
    assert game.state()["moves"] == ["14x23x30"]
    game.undo()
    assert not game.state()["over"]


def test_the_pdn_reads_back_with_the_same_moves_and_start_position():
    game = WebGame(GameSettings(variant="give_and_take", color="white", role="giver"))
    for _ in range(3):
        game.opponent_move()
        game.play_step(*game.legal_steps()[0])
    text = game.pdn()
    (read,) = read_games(text)
    board = replay(read)
    assert [str(m) for m in board.move_stack] == game.state()["moves"]
    assert board.variant == game.variant and read.tags["White"] == "you"
    assert read.result == "*"


def test_give_and_take_roles_follow_the_player_s_choice():
    assert game_variant("give_and_take", "white", "giver").taker == "black"
    assert game_variant("give_and_take", "white", "taker").taker == "white"
    both = game_variant("give_and_take:objectives=give/give", "black", "giver")
    assert both.objectives == ("give", "give")
    with pytest.raises(GameError, match="both sides are givers"):
        game_variant("give_and_take:objectives=give/give", "black", "taker")
    with pytest.raises(GameError, match="no Taker and Giver"):
        game_variant("english", "black", "giver")
    with pytest.raises(GameError, match="unknown flag 'foo'"):
        game_variant("english:foo=1", "black", None)


def test_the_time_limit_goes_to_agents_that_take_one():
    assert opponent_spec("alphabeta", 0.5) == "alphabeta:time=0.5"
    assert opponent_spec("alphabeta:depth=3", 0.5) == "alphabeta:depth=3,time=0.5"
    assert opponent_spec("mcts:sims=10", 0.5) == "mcts:sims=10"
    assert opponent_spec("random", None) == "random"
    with pytest.raises(GameError, match="unknown agent 'nope'"):
        opponent_spec("nope", None)


def test_settings_from_the_page_are_checked():
    assert GameSettings.from_json({"move_time": "2", "role": ""}).move_time == 2.0
    for bad, match in [
        ([], "JSON object"),
        ({"color": "red"}, "color must be"),
        ({"role": "king"}, "role must be"),
        ({"move_time": "-1"}, "move_time must be in"),
        ({"move_time": "soon"}, "number of seconds"),
        ({"variant": 3}, "variant must be text"),
    ]:
        with pytest.raises(GameError, match=match):
            GameSettings.from_json(bad)


@pytest.mark.parametrize(
    ("settings", "match"),
    [
        (
            GameSettings(opponent="az:ckpt=/nonexistent"),
            "ckpt=/nonexistent is not a drl checkpoint",
        ),
        (GameSettings(opponent="alphabeta:depth=x"), "not a valid int"),
        (GameSettings(fen="X:W1"), "fen 'X:W1'"),
    ],
)
def test_bad_new_games_are_refused(settings, match):
    with pytest.raises(GameError, match=match):
        WebGame(settings)


def test_a_corrupt_checkpoint_is_refused(tmp_path):
    bad = tmp_path / "ckpt-00000001.pt"
    bad.write_bytes(b"not a checkpoint at all")
    with pytest.raises(GameError, match="opponent 'az:ckpt="):
        WebGame(GameSettings(opponent=f"az:ckpt={bad}"))


class _Slow(Agent):
    """Moves only once ``go`` is set."""

    name = "slow"

    def __init__(self) -> None:
        self.closed = False
        self.go = threading.Event()

    def select_move(self, board: Board):
        self.go.wait(10)
        return board.legal_moves[0]

    def close(self) -> None:
        self.closed = True


def test_an_opponent_over_its_time_is_given_up_on(monkeypatch):
    monkeypatch.setattr("drl.web.game.GRACE", 0.1)
    slow = _Slow()
    game = WebGame(GameSettings(color="white", move_time=0.1), build_agent=lambda spec: slow)
    with pytest.raises(GameError, match=r"did not move within 0.1 s \(\+0.1 s\)"):
        game.opponent_move()
    with pytest.raises(GameError, match="still thinking"):
        game.opponent_move()
    assert game.state()["moves"] == []
    slow.go.set()
    time.sleep(0.2)  # its late move is not played
    assert game.state()["moves"] == []
    game.opponent_move()
    assert len(game.state()["moves"]) == 1
    game.close()
    assert slow.closed and GRACE == 5.0


def test_the_store_keeps_games_apart_and_closes_and_saves_them(tmp_path):
    slow = []

    def build(spec: str) -> Agent:
        slow.append(_Slow())
        return slow[-1] if spec == "random:seed=7" else make(spec)

    store = GameStore(max_games=2, save_dir=tmp_path, build_agent=build)
    one = store.new(GameSettings(opponent="random:seed=7"))
    two = store.new(GameSettings())
    one.play_step(10, 14)
    store.save(one)
    assert store.get(two.id).state()["moves"] == []
    assert (tmp_path / f"{one.id}.pdn").read_text().count("11-15") == 1
    three = store.new(GameSettings(), replace=two.id)
    with pytest.raises(GameNotFound):
        store.get(two.id)
    store.new(GameSettings())  # over max_games: the least recently used (one) goes
    with pytest.raises(GameNotFound):
        store.get(one.id)
    assert slow[0].closed
    assert store.close_all() == 2 and len(store) == 0
    saved = {p.name for p in tmp_path.iterdir()}
    assert {f"{g.id}.pdn" for g in (one, two, three)} <= saved and len(saved) == 4
    assert all(read_games(p).__next__().result == "*" for p in tmp_path.iterdir())


def test_replay_steps_through_each_game_under_its_variant():
    opened = open_pdn((DATA / "two_games.pdn").read_bytes(), "two_games.pdn")
    assert [g["plies"] for g in opened.summary()] == [43, 46]
    frames = opened.frames(1)
    assert frames["variant"] == "give_and_take:taker=white" and frames["error"] is None
    assert len(frames["positions"]) == 47 and frames["moves"][0] == "11-16"
    assert frames["positions"][0] == "b" * 12 + "." * 8 + "w" * 12
    with pytest.raises(GameError, match="has games 0..1"):
        opened.frames(2)


def test_a_game_with_an_impossible_move_shows_the_moves_before_it():
    text = '[GameType "21"]\n1. 11-15 24-20 2. 15-19 20-11 *\n'
    frames = open_pdn(text, "bad.pdn").frames(0)
    assert frames["moves"] == ["11-15", "24-20", "15-19"]
    assert "20-11" in frames["error"]


def test_unreadable_pdn_is_refused_with_the_reader_s_message():
    with pytest.raises(GameError, match="not PDN that drl can read: .*game 1"):
        open_pdn("1. 11-15 {never closed", "broken.pdn")
    with pytest.raises(GameError, match="holds no game"):
        open_pdn("", "empty.pdn")


def test_the_folder_refuses_paths_outside_it(tmp_path):
    (tmp_path / "games").mkdir()
    (tmp_path / "games" / "a.pdn").write_bytes((DATA / "two_games.pdn").read_bytes())
    (tmp_path / "secret.pdn").write_text('[Event "x"]\n*\n')
    (tmp_path / "games" / "link.pdn").symlink_to(tmp_path / "secret.pdn")
    folder = ReplayFolder(tmp_path / "games")
    assert folder.files() == ["a.pdn"]
    assert len(folder.open("a.pdn").games) == 2
    for bad in ("../secret.pdn", str(tmp_path / "secret.pdn"), "link.pdn"):
        with pytest.raises(GameError, match="outside the folder"):
            folder.open(bad)
    with pytest.raises(GameError, match="no such file"):
        folder.open("b.pdn")


def test_a_replay_store_that_would_keep_nothing_is_refused():
    with pytest.raises(ValueError, match="keep=0"):
        ReplayStore(keep=0)


class _Sleepy(Agent):
    """Thinks for ``seconds`` whatever happens."""

    name = "sleepy"

    def __init__(self, seconds: float = 8.0) -> None:
        self.seconds = seconds

    def select_move(self, board: Board):
        time.sleep(self.seconds)
        return board.legal_moves[0]


@pytest.mark.parametrize("how", ["close_all", "remove", "replace"])
def test_saving_does_not_wait_for_a_thinking_opponent(tmp_path, how):
    store = GameStore(save_dir=tmp_path, build_agent=lambda spec: _Sleepy())
    game = store.new(GameSettings())
    game.play_step(10, 14)  # 11-15
    thinking = threading.Thread(
        target=lambda: pytest.raises(GameError, game.opponent_move), daemon=True
    )
    thinking.start()
    time.sleep(0.3)  # the opponent is thinking, the game's lock held
    started = time.monotonic()
    if how == "close_all":
        store.close_all()
    elif how == "remove":
        store.remove(game.id)
    else:
        store.new(GameSettings(), replace=game.id)
    assert time.monotonic() - started < 2.0
    (read,) = read_games(tmp_path / f"{game.id}.pdn")
    assert [str(m) for m in replay(read).move_stack] == ["11-15"]
    assert game.pdn() == (tmp_path / f"{game.id}.pdn").read_text()
    store.close_all()


@pytest.mark.parametrize(
    ("variant", "fen", "color", "file_result", "shown"),
    [
        ("english", "W:W18:B14", "white", "0-1", "0-1: White wins (no pieces)"),
        ("english", DOUBLE_JUMP, "black", "1-0", "1-0: Black wins (no pieces)"),
        ("international", "W:W28:B23", "white", "1-0", "1-0: White wins (no pieces)"),
        ("international", "B:W28:B23", "black", "0-1", "0-1: Black wins (no pieces)"),
    ],
)
def test_the_result_is_shown_as_the_pdn_writes_it(variant, fen, color, file_result, shown):
    game = WebGame(GameSettings(variant=variant, fen=fen, color=color))
    while not game.state()["over"]:
        game.play_step(*game.legal_steps()[0])
    assert game.state()["result"] == shown
    (read,) = read_games(game.pdn())
    assert read.tags["Result"] == file_result


def test_the_replay_list_names_the_players_in_the_order_of_the_result():
    english = open_pdn((DATA / "two_games.pdn").read_bytes(), "two_games.pdn").summary()
    assert english[0]["players"] == "alphabeta:depth=2,seed=1 - random:seed=2"
    assert english[0]["outcome"] == "1-0: Black wins"
    assert english[1]["players"] == "random:seed=3 - greedy:seed=4"
    assert english[1]["outcome"] == "0-1: White wins"
    text = (
        '[White "w"]\n[Black "b"]\n[Result "1-0"]\n[GameType "20"]\n1. 32-28 1-0\n\n'
        '[White "w"]\n[Black "b"]\n[Result "1/2-1/2"]\n[GameType "20"]\n1. 32-28 1/2-1/2\n\n'
        '[White "w"]\n[Black "b"]\n[GameType "20"]\n1. 32-28 *\n'
    )
    international = open_pdn(text, "i.pdn").summary()
    assert [g["players"] for g in international] == ["w - b"] * 3
    assert [g["outcome"] for g in international] == [
        "1-0: White wins",
        "1/2-1/2: draw",
        "*: unfinished",
    ]


def test_a_checkpoint_path_gets_one_message_whether_or_not_it_exists(tmp_path, caplog):
    import logging

    caplog.set_level(logging.INFO, logger="drl.web")
    (tmp_path / "real.txt").write_text("not a checkpoint")
    (tmp_path / "folder").mkdir()
    shown = {}
    for name in ("nothing-here", "real.txt", "folder"):
        with pytest.raises(GameError) as err:
            WebGame(GameSettings(opponent=f"az:ckpt={tmp_path / name}"))
        shown[name] = str(err.value).replace(name, "X")
    assert len(set(shown.values())) == 1, shown  # the page cannot tell which exists
    assert "not a drl checkpoint this server can read" in shown["folder"]
    assert any("does not exist" in r.getMessage() for r in caplog.records)  # the log can
