"""Only the server's own page may change anything: a request of another origin, without
the page's token or with a form's content type is refused (403) and changes nothing;
bodies that are not a JSON object are a clear 400 however they are built."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import pytest

pytest.importorskip("flask", reason="Flask is not installed (pip install -e '.[web]')")

from drl.web.app import LOOPBACK_HOSTS, create_app  # noqa: E402
from drl.web.guard import MAX_JSON_DEPTH, TOKEN_HEADER  # noqa: E402
from drl.web.replay import ReplayFolder  # noqa: E402
from drl.web.store import GameStore  # noqa: E402
from tests.web.own_page import TOKEN_META, client_of  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"
PDN = (DATA / "two_games.pdn").read_bytes()
FILE = "application/octet-stream"


@pytest.fixture
def served(tmp_path):
    (tmp_path / "games").mkdir()
    (tmp_path / "games" / "two_games.pdn").write_bytes(PDN)
    store = GameStore()
    app = create_app(store, ReplayFolder(tmp_path / "games"), hosts=LOOPBACK_HOSTS)
    with client_of(app) as page:
        game = page.post("/api/games", json={"opponent": "random", "color": "white"})
        assert game.status_code == 201
        yield app, store, page, game.get_json()["id"]
    store.close_all()


def _changes(game_id: str) -> list[tuple[str, str, dict]]:
    """Every route that changes something: (method, path, how the page sends its body)."""
    return [
        ("POST", "/api/games", {"json": {"opponent": "random"}}),
        ("POST", f"/api/games/{game_id}/opponent", {"json": {}}),
        ("POST", f"/api/games/{game_id}/step", {"json": {"from": 8, "to": 12}}),
        ("POST", f"/api/games/{game_id}/undo", {}),
        ("DELETE", f"/api/games/{game_id}", {}),
        (
            "POST",
            "/api/replays?name=x.pdn",
            {"data": PDN, "content_type": FILE},
        ),
        ("POST", "/api/replays/open", {"json": {"path": "two_games.pdn"}}),
    ]


FOREIGN = {
    "no token": {},
    "a wrong token": {TOKEN_HEADER: "guessed"},
    "another origin": {"Origin": "http://127.0.0.2:8000"},
    "a null origin": {"Origin": "null"},
    "another site": {"Sec-Fetch-Site": "cross-site"},
    "another port": {"Origin": "http://localhost:9"},
}


@pytest.mark.parametrize("how", list(FOREIGN))
def test_a_request_not_from_the_page_changes_nothing(served, caplog, how):
    app, store, page, game_id = served
    caplog.set_level(logging.INFO, logger="drl.web")
    before = page.get(f"/api/games/{game_id}").get_json()
    with app.test_client() as other:
        if how != "no token":
            other.environ_base["HTTP_" + TOKEN_HEADER.upper().replace("-", "_")] = app.config[
                "DRL_TOKEN"
            ]
        for method, path, body in _changes(game_id):
            if "content_type" in body:
                body = {**body, "content_type": "application/octet-stream"}
            answer = other.open(path, method=method, headers=FOREIGN[how], **body)
            assert answer.status_code == 403, (how, method, path, answer.get_json())
            assert "only this server's own page may change anything" in answer.get_json()["error"]
    assert len(store) == 1 and page.get(f"/api/games/{game_id}").get_json() == before
    assert app.extensions["drl.replays"].held == 0  # no file kept
    assert any("refused" in r.getMessage() for r in caplog.records if r.name == "drl.web")


@pytest.mark.parametrize(
    "content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]
)
def test_a_form_s_content_type_is_refused_even_with_the_token(served, content_type):
    app, store, page, game_id = served
    for method, path, body in _changes(game_id):
        if method == "DELETE" or path.endswith("/undo"):
            continue  # no body
        data = body.get("data", b'{"opponent": "random"}')
        answer = page.open(path, method=method, data=data, content_type=content_type)
        assert answer.status_code == 403, (path, answer.get_json())
    assert len(store) == 1


def test_the_page_holds_the_token_and_its_own_requests_pass(served):
    app, store, page, game_id = served
    text = page.get("/").get_data(as_text=True)
    found = TOKEN_META.search(text)
    assert found and found.group(1) == app.config["DRL_TOKEN"] and len(found.group(1)) >= 24
    assert "no-store" in page.get("/").headers["Cache-Control"]
    own = {"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin", "Host": "localhost"}
    answer = page.post("/api/games", json={"opponent": "random"}, headers=own)
    assert answer.status_code == 201, answer.get_json()
    uploaded = page.post(
        "/api/replays?name=a.pdn", data=PDN, content_type="application/x-draughts-pdn"
    )
    assert uploaded.status_code == 200 and len(uploaded.get_json()["games"]) == 2
    assert page.delete(f"/api/games/{game_id}").status_code == 200
    assert len(store) == 1


def test_two_servers_have_two_tokens():
    first, second = create_app(GameStore()), create_app(GameStore())
    assert first.config["DRL_TOKEN"] != second.config["DRL_TOKEN"]
    with client_of(first) as page:
        page.environ_base["HTTP_X_DRL_TOKEN"] = second.config["DRL_TOKEN"]
        assert page.post("/api/games", json={}).status_code == 403


@pytest.mark.parametrize(
    "body",
    ["[" * 60_000, '{"a":' * 5000 + "1" + "}" * 5000, '{"opponent": "random"', "\udcff"],
    ids=["deep list", "deep object", "truncated", "not UTF-8"],
)
def test_a_body_that_is_not_a_json_object_is_a_400(served, body):
    _, store, page, _ = served
    data = body.encode("utf-8", "surrogateescape")
    answer = page.post("/api/games", data=data, content_type="application/json")
    assert answer.status_code == 400, answer.get_json()
    assert "JSON" in answer.get_json()["error"] and len(store) == 1


def test_a_json_body_over_the_bound_is_a_400(served):
    _, store, page, _ = served
    answer = page.post("/api/games", json={"fen": "x" * 70_000})
    assert answer.status_code == 400 and "over 65536 bytes" in answer.get_json()["error"]


@pytest.mark.parametrize("host", ["127.0.0.1:8765@evil.example", "localhost:x", "[::1]x"])
def test_a_host_whose_port_is_not_a_number_is_refused(served, host):
    _, _, page, _ = served
    assert page.get("/api/options", headers={"Host": host}).status_code == 400


def test_the_nesting_bound_does_not_lean_on_the_recursion_limit(served):
    """A library in the process may raise the limit; a body one level too deep is still a 400."""
    _, store, page, _ = served
    deep = '{"a":' * (MAX_JSON_DEPTH + 1) + "1" + "}" * (MAX_JSON_DEPTH + 1)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(100_000)
    try:
        answer = page.post("/api/games", data=deep, content_type="application/json")
    finally:
        sys.setrecursionlimit(limit)
    assert answer.status_code == 400 and "nested" in answer.get_json()["error"]
    assert len(store) == 1


def test_brackets_inside_strings_do_not_count_as_nesting(served):
    _, _, page, _ = served
    body = json.dumps({"opponent": "random", "note": "[{" * 100 + '\\"' + "]}" * 3})
    answer = page.post("/api/games", data=body, content_type="application/json")
    assert "nested" not in (answer.get_json() or {}).get("error", "")
