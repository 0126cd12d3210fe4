"""The browser board's HTTP routes through Flask's test client: every refused request is
a JSON error on the page and a line in the server log, and the game stays as it was."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

pytest.importorskip("flask", reason="Flask is not installed (pip install -e '.[web]')")

from drl.rules import read_games, replay  # noqa: E402
from drl.web import GameError  # noqa: E402
from drl.web.app import LOOPBACK_HOSTS, create_app  # noqa: E402
from drl.web.replay import ReplayFolder  # noqa: E402
from drl.web.store import GameStore  # noqa: E402
from tests.tiny_checkpoints import tiny_resnet_checkpoint  # noqa: E402
from tests.web.own_page import client_of  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"
JSON, PDN = "application/json", "application/octet-stream"


@pytest.fixture
def client(tmp_path):
    (tmp_path / "games").mkdir()
    (tmp_path / "games" / "two_games.pdn").write_bytes((DATA / "two_games.pdn").read_bytes())
    (tmp_path / "games" / "broken.pdn").write_text("1. 11-15 {never closed\n")
    store = GameStore()
    app = create_app(store, ReplayFolder(tmp_path / "games"))
    with client_of(app) as c:
        yield c
    store.close_all()


def _new(client, **settings):
    answer = client.post("/api/games", json=settings)
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


def _refused(answer, status: int, text: str, caplog) -> None:
    assert answer.status_code == status
    assert text in answer.get_json()["error"]
    assert any(text in r.getMessage() for r in caplog.records if r.name == "drl.web")


def test_the_page_and_its_files_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and b'id="board"' in page.data
    assert b"https://" not in page.data  # nothing is fetched from elsewhere
    for name in ("app.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200
    options = client.get("/api/options").get_json()
    assert "give_and_take" in options["presets"] and "az" in options["agents"]


@pytest.mark.parametrize(
    ("settings", "text"),
    [
        ({"variant": "english:men_fly=true"}, "unknown flag 'men_fly'"),
        ({"opponent": "alphabeta:depht=3"}, "unknown parameter 'depht'"),
        ({"opponent": "az:ckpt=/nonexistent"}, "not a drl checkpoint this server can read"),
        ({"fen": "W:W99:B1"}, "fen 'W:W99:B1'"),
        ({"variant": "give_and_take:objectives=give/give", "role": "taker"}, "both sides"),
    ],
)
def test_a_bad_new_game_is_a_message_and_a_log_line(client, caplog, settings, text):
    caplog.set_level(logging.INFO, logger="drl.web")
    _refused(client.post("/api/games", json=settings), 400, text, caplog)


def test_a_corrupt_checkpoint_is_a_message(client, caplog, tmp_path):
    bad = tmp_path / "ckpt-00000001.pt"
    bad.write_bytes(b"\x80\x04 not a checkpoint")
    caplog.set_level(logging.INFO, logger="drl.web")
    answer = client.post("/api/games", json={"opponent": f"az:ckpt={bad}"})
    _refused(answer, 400, f"opponent 'az:ckpt={bad}'", caplog)


def test_moves_undo_and_the_pdn_download(client, caplog):
    caplog.set_level(logging.INFO, logger="drl.web")
    game = _new(client, opponent="random:seed=3", fen="B:W18,26,32:B14,9")
    url = f"/api/games/{game['id']}"
    _refused(client.post(f"{url}/step", json={"from": 8, "to": 12}), 400, "compulsory", caplog)
    assert client.get(url).get_json() == game  # nothing changed
    state = client.post(f"{url}/step", json={"from": 13, "to": 22}).get_json()
    assert state["jump"]["at"] == 22 and state["moves"] == []
    state = client.post(f"{url}/step", json={"from": 22, "to": 29}).get_json()
    assert state["moves"] == ["14x23x30"] and state["turn"] == "white"
    state = client.post(f"{url}/opponent").get_json()
    assert len(state["moves"]) == 2
    download = client.get(f"{url}/pdn")
    assert "attachment" in download.headers["Content-Disposition"]
    (read,) = read_games(download.get_data(as_text=True))
    assert [str(m) for m in replay(read).move_stack] == state["moves"]
    assert client.post(f"{url}/undo").get_json()["moves"] == []


def test_a_move_in_a_finished_game_is_refused(client, caplog):
    caplog.set_level(logging.INFO, logger="drl.web")
    game = _new(client, fen="B:W18:B14")
    url = f"/api/games/{game['id']}"
    over = client.post(f"{url}/step", json={"from": 13, "to": 22}).get_json()
    assert over["over"] and over["result"] == "1-0: Black wins (no pieces)"
    _refused(client.post(f"{url}/step", json={"from": 22, "to": 26}), 400, "game is over", caplog)
    _refused(client.post(f"{url}/opponent"), 400, "game is over", caplog)
    assert client.get(url).get_json() == over


def test_unknown_games_and_bodies_are_refused(client, caplog):
    caplog.set_level(logging.INFO, logger="drl.web")
    _refused(client.get("/api/games/nope"), 404, "no game 'nope'", caplog)
    _refused(client.post("/api/games", data="[1,", content_type=JSON), 400, "not JSON", caplog)
    _refused(client.post("/api/games", json=[1]), 400, "JSON object", caplog)
    assert client.get("/api/nothing").status_code == 404


def test_replay_by_upload_and_by_path(client, caplog):
    caplog.set_level(logging.INFO, logger="drl.web")
    files = client.get("/api/files").get_json()["files"]
    assert files == ["broken.pdn", "two_games.pdn"]
    opened = client.post("/api/replays/open", json={"path": "two_games.pdn"}).get_json()
    assert [g["plies"] for g in opened["games"]] == [43, 46]
    frames = client.get(f"/api/replays/{opened['id']}/0").get_json()
    assert frames["variant"] == "english" and len(frames["positions"]) == 44
    uploaded = client.post(
        "/api/replays?name=mine.pdn", data=(DATA / "two_games.pdn").read_bytes(), content_type=PDN
    ).get_json()
    assert uploaded["source"] == "mine.pdn" and len(uploaded["games"]) == 2
    for body, text in [
        ({"path": "../two_games.pdn"}, "outside the folder"),
        ({"path": "/etc/passwd"}, "outside the folder"),
        ({"path": "broken.pdn"}, "not PDN that drl can read"),
    ]:
        _refused(client.post("/api/replays/open", json=body), 400, text, caplog)
    _refused(
        client.post("/api/replays", data=b"1. 11-15 ((", content_type=PDN), 400, "not PDN", caplog
    )
    _refused(client.get(f"/api/replays/{opened['id']}/5"), 400, "has games 0..1", caplog)


def test_the_az_overlay_shows_the_search(client, tmp_path):
    ckpt = tiny_resnet_checkpoint(tmp_path / "run")
    game = _new(client, opponent=f"az:ckpt={ckpt},sims=8,device=cpu")
    assert game["analysable"]
    shown = client.get(f"/api/games/{game['id']}/analysis").get_json()
    assert -1 <= shown["value"] <= 1 and shown["simulations"] == 8
    assert 0 < sum(m["share"] for m in shown["moves"]) <= 1 + 1e-6
    assert all(m["move"] for m in shown["moves"])  # no multi-jump at the start
    plain = _new(client)
    assert client.get(f"/api/games/{plain['id']}/analysis").status_code == 400


def test_an_engine_spec_not_named_at_start_up_is_refused(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="drl.web")
    pwned = tmp_path / "pwned"
    store = GameStore()
    app = create_app(store, engines=["hub:cmd=drl-hub,depth=1"])
    with client_of(app) as c:
        for spec in (f"hub:cmd=touch {pwned}", f"dxp:cmd=touch {pwned}", "hub:cmd=drl-hub,depth=2"):
            answer = c.post("/api/games", json={"opponent": spec, "color": "white"})
            _refused(answer, 400, "--engine", caplog)
    store.close_all()
    assert not pwned.exists() and len(store) == 0


def test_the_allowed_engines_are_the_start_up_ones():
    from drl.web.settings import check_opponent

    allowed = ["hub:cmd=/x/scan,depth=2", "random"]
    check_opponent("hub:cmd=/x/scan, depth=2", allowed)  # the same spec, spaced
    check_opponent("alphabeta:depth=3", [])  # no process: always allowed
    for spec in ("hub:cmd=/x/scan,depth=3", "dxp:cmd=/x/scan", "hub:cmd=/bin/sh"):
        with pytest.raises(GameError, match="start the server with --engine"):
            check_opponent(spec, allowed)


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8765", "10.0.0.1"])
def test_a_loopback_server_refuses_other_host_names(tmp_path, caplog, host):
    caplog.set_level(logging.INFO, logger="drl.web")
    app = create_app(GameStore(), hosts=LOOPBACK_HOSTS)
    with client_of(app) as c:
        _refused(c.get("/api/options", headers={"Host": host}), 400, "Host", caplog)
        assert c.get("/", headers={"Host": host}).status_code == 400
        for good in ("127.0.0.1:8765", "localhost", "LOCALHOST:1", "[::1]:8765", "[::1]"):
            assert c.get("/api/options", headers={"Host": good}).status_code == 200, good


def test_a_path_the_system_refuses_is_a_message(client, caplog):
    caplog.set_level(logging.INFO, logger="drl.web")
    for path in ("tiny.pdn\u0000.txt", "x" * 5000 + ".pdn", "a/" * 3000 + "b.pdn"):
        answer = client.post("/api/replays/open", json={"path": path})
        _refused(answer, 400, "cannot be opened", caplog)
    answer = client.post("/api/games", json={"opponent": "az:ckpt=a\u0000b"})
    _refused(answer, 400, "opponent 'az:ckpt=a", caplog)


def test_unknown_replays_and_closed_games_are_404(client, caplog):
    caplog.set_level(logging.INFO, logger="drl.web")
    _refused(client.get("/api/replays/nope/0"), 404, "no open PDN file 'nope'", caplog)
    _refused(client.delete("/api/games/nope"), 404, "no game 'nope'", caplog)
    game = _new(client)
    assert client.delete(f"/api/games/{game['id']}").get_json() == {"closed": game["id"]}
    _refused(client.delete(f"/api/games/{game['id']}"), 404, "no game", caplog)


def test_a_new_game_takes_the_server_s_defaults():
    from drl.web import GameSettings

    store = GameStore()
    defaults = GameSettings(variant="international", opponent="alphabeta:depth=1", color="white")
    with client_of(create_app(store, defaults=defaults)) as c:
        game = _new(c)
        assert game["opponent"].startswith("alphabeta") and game["size"] == 10
        assert game["you"] == "white"
        assert _new(c, opponent="random", variant="english")["opponent"] == "random"
    store.close_all()


def test_other_requests_are_answered_while_alphabeta_thinks():
    import threading
    import time

    store = GameStore()
    app = create_app(store)
    with client_of(app) as c:
        game = _new(c, opponent="alphabeta:depth=17", color="white")
        c.get("/api/options")  # the page's first call, before the search
        thinking = threading.Thread(
            target=lambda: client_of(app).post(f"/api/games/{game['id']}/opponent"),
            daemon=True,
        )
        thinking.start()
        time.sleep(0.5)
        started = time.monotonic()
        assert c.get("/api/options").status_code == 200
        waited = time.monotonic() - started
        assert thinking.is_alive(), "the search ended too soon to show anything"
        assert waited < 2.0
        thinking.join(120)
    store.close_all()
