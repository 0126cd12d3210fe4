"""``drl-web`` as a process holds its memory budget: opening games with the largest
transposition tables it accepts and uploading the largest files it accepts, the server's
resident memory grows by less than its budget, and its own accounting never passes it."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("flask", reason="Flask is not installed (pip install -e '.[web]')")

from drl.web.replay import MAX_GAMES, MAX_PLIES  # noqa: E402
from tests.web.own_page import token_of  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
BUDGET_GIB = 0.5
MIB = 1 << 20


def _rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


class _Server:
    def __init__(self, proc: subprocess.Popen, url: str) -> None:
        self.proc, self.url, self.token = proc, url, token_of(url)
        self.peak = 0
        self._watching = True
        self._watch = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while self._watching and self.proc.poll() is None:
            self.peak = max(self.peak, _rss(self.proc.pid))
            time.sleep(0.02)

    def call(self, method: str, path: str, body: bytes | None = None, ctype: str = "") -> tuple:
        headers = {"X-DRL-Token": self.token, "Content-Type": ctype or "application/json"}
        req = urllib.request.Request(self.url + path, body, headers, method=method)
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        try:
            with opener.open(req, timeout=120) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read())

    def used(self) -> int:
        memory = self.call("GET", "api/options")[1]["memory"]
        assert memory["used"] <= memory["budget"] == int(BUDGET_GIB * 2**30)
        return memory["used"]


@pytest.fixture
def server():
    proc = subprocess.Popen(
        [sys.executable, "-m", "drl.cli.web", "--port", "0", "--memory", str(BUDGET_GIB)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
    )
    try:
        line = proc.stdout.readline()
        assert line.startswith("drl-web: http://"), line
        yield _Server(proc, line.split()[1])
    finally:
        proc.kill()
        proc.wait(10)


def _game(server: _Server, spec: str) -> tuple[int, dict]:
    body = json.dumps({"opponent": spec, "color": "white", "move_time": 2}).encode()
    return server.call("POST", "api/games", body)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")
def test_the_largest_games_and_files_stay_within_the_budget(server):
    # warm up (compiled kernels, the PDN reader), then measure from there
    status, warm = _game(server, "alphabeta:depth=2,tt=10")
    assert status == 201 and server.call("POST", f"api/games/{warm['id']}/opponent")[0] == 200
    assert server.call("DELETE", f"api/games/{warm['id']}")[0] == 200
    base = _rss(server.proc.pid)
    server._watch.start()
    started = time.monotonic()
    refused, opened = [], []
    for tt in range(26, 18, -1):  # the largest tables first, each until refused
        while True:
            status, answer = _game(server, f"alphabeta:depth=30,tt={tt}")
            if status != 201:
                assert status == 400 and "--memory" in answer["error"], answer
                refused.append(tt)
                break
            opened.append(tt)
            moved = server.call("POST", f"api/games/{answer['id']}/opponent")
            assert moved[0] == 200, moved  # a 2 s search fills much of its table
            server.used()
    assert 26 in refused and opened, (opened, refused)
    games = "".join(f'[Event "{i}"]\n1. 11-15 23-19 *\n\n' for i in range(MAX_GAMES)).encode()
    plies = b"[Event 'x']\n" + b"1. 11-15 23-19 2. 15-11 19-23 " * (MAX_PLIES // 4 - 10) + b"*\n"
    plies = plies.replace(b"'x'", b'"x"')
    for data in (games, plies, games, plies):
        status, answer = server.call("POST", "api/replays?name=big.pdn", data, "text/x-not")
        assert status == 403  # the page's content type only
        status, answer = server.call("POST", "api/replays?name=big.pdn", data, "application/pdn")
        assert status == 403
        status, answer = server.call(
            "POST", "api/replays?name=big.pdn", data, "application/octet-stream"
        )
        assert status == 200 or "--memory" in answer["error"] or "split" in answer["error"], answer
        server.used()
    server._watching = False
    grown = server.peak - base
    print(f"opened tt={opened}, refused tt={refused}, RSS {base // MIB} + {grown // MIB} MiB")
    assert grown < BUDGET_GIB * 2**30, f"{grown / MIB:.0f} MiB over a {BUDGET_GIB} GiB budget"
    assert time.monotonic() - started < 240
