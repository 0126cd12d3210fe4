"""A page of another origin, open in the user's browser (headless Chromium), tries every
way a page has to change something on drl-web: JSON and ``no-cors`` fetches, form posts
(``text/plain``, urlencoded, multipart), beacons, with and without the id of a live game.
Nothing changes: no game is created, moved or closed, no file is kept. Skipped without
Debian's ``chromium`` and ``chromium-driver`` or selenium."""

from __future__ import annotations

import http.server
import shutil
import tempfile
import threading
import time
from pathlib import Path

import pytest

from drl.analysis.report import CHROMIUM, CHROMIUM_FLAGS

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
pytest.importorskip("flask", reason="Flask is not installed (pip install -e '.[web]')")
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
if not Path(CHROMIUM).exists() or not Path(DRIVER).exists():
    pytest.skip(
        f"no {CHROMIUM} or chromedriver (Debian packages chromium, chromium-driver)",
        allow_module_level=True,
    )

from flask import request  # noqa: E402

from drl.web import GameSettings  # noqa: E402
from drl.web.app import LOOPBACK_HOSTS, create_app  # noqa: E402
from drl.web.replay import ReplayFolder  # noqa: E402
from drl.web.serving import make_bounded_server  # noqa: E402
from drl.web.store import GameStore  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"

ATTACK = """<!doctype html><html><head><title>attacking</title></head><body>
<iframe name="sink" style="display:none"></iframe>
<script>
const T = "TARGET", G = "GAME";
const tries = [];
const go = (path, init) => tries.push(fetch(T + path, init).catch(() => null));
const json = JSON.stringify({opponent: "random", color: "white"});
// fetches: JSON (needs the server's permission first), and no-cors with simple types
go("/api/games", {method: "POST", headers: {"Content-Type": "application/json"}, body: json});
go("/api/games", {method: "POST", mode: "no-cors", body: json});
go("/api/games", {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"},
                  body: json});
go("/api/replays?name=evil.pdn", {method: "POST", mode: "no-cors", body: "* ".repeat(65536)});
go("/api/replays?name=evil.pdn", {method: "POST", mode: "no-cors",
   headers: {"Content-Type": "text/plain"}, body: "1. 11-15 23-19 *"});
go("/api/replays/open", {method: "POST", mode: "no-cors",
   body: JSON.stringify({path: "two_games.pdn"})});
for (const what of ["opponent", "undo", "step"])
  go("/api/games/" + G + "/" + what, {method: "POST", mode: "no-cors",
     body: JSON.stringify({from: 8, to: 12})});
go("/api/games/" + G, {method: "DELETE", mode: "no-cors"});
go("/api/games/" + G, {method: "POST", mode: "no-cors", headers: {"X-DRL-Token": "guess"}});
navigator.sendBeacon(T + "/api/games", json);
navigator.sendBeacon(T + "/api/replays?name=b.pdn", new Blob(["1. 11-15 *"]));
// forms, each posted into the hidden frame
function post(action, enctype, fields) {
  const f = document.createElement("form");
  f.method = "POST"; f.action = T + action; f.enctype = enctype; f.target = "sink";
  for (const [k, v] of Object.entries(fields)) {
    const i = document.createElement("input"); i.name = k; i.value = v; f.appendChild(i);
  }
  document.body.appendChild(f); f.submit();
}
post("/api/games", "text/plain", {'{"opponent": "random", "x": "': '"}'});
setTimeout(() => post("/api/replays?name=f.pdn", "multipart/form-data", {f: "* * *"}), 300);
setTimeout(() => post("/api/games/" + G + "/opponent", "application/x-www-form-urlencoded",
                      {a: "1"}), 600);
Promise.all(tries).then(() => setTimeout(() => { document.title = "done"; }, 1500));
</script></body></html>
"""


@pytest.fixture
def drl_web():
    store = GameStore()
    app = create_app(store, ReplayFolder(DATA), hosts=LOOPBACK_HOSTS)
    seen: list[tuple[str, str, int]] = []

    @app.after_request
    def note(answer):
        seen.append((request.method, request.path, answer.status_code))
        return answer

    server = make_bounded_server("127.0.0.1", 0, app)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield store, app, seen, f"http://127.0.0.1:{server.socket.getsockname()[1]}"
    finally:
        server.shutdown()
        server.server_close()
        store.close_all()


@pytest.fixture
def hostile_site(tmp_path):
    """Serves ``tmp_path`` from 127.0.0.1 on another port: another origin."""
    handler = lambda *a: http.server.SimpleHTTPRequestHandler(*a, directory=str(tmp_path))  # noqa: E731
    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    try:
        yield tmp_path, f"http://127.0.0.1:{site.server_address[1]}"
    finally:
        site.shutdown()
        site.server_close()


@pytest.fixture
def browser():
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="drl-chromium-")
    opts = Options()
    opts.binary_location = CHROMIUM
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def test_a_page_of_another_origin_changes_nothing(drl_web, hostile_site, browser):
    store, app, seen, target = drl_web
    folder, site = hostile_site
    game = store.new(GameSettings(opponent="random", color="white"))
    before = game.state()
    (folder / "attack.html").write_text(ATTACK.replace("TARGET", target).replace("GAME", game.id))
    browser.get(f"{site}/attack.html")
    deadline = time.monotonic() + 30
    while browser.title != "done" and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(1.0)  # the forms' posts
    posts = [path for method, path, _ in seen if method == "POST"]
    assert len(posts) >= 8, f"the attacks did not reach the server: {seen}"
    accepted = [(m, p, status) for m, p, status in seen if m != "OPTIONS" and status < 400]
    assert not accepted, accepted
    assert len(store) == 1 and store.get(game.id).state() == before
