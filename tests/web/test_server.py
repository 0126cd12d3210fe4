"""``drl-web`` as a process: it listens on 127.0.0.1 only, and Ctrl-C or SIGTERM stops it
with every engine process it started gone and every saved PDN whole."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("flask", reason="Flask is not installed (pip install -e '.[web]')")

from drl.rules import read_games, replay  # noqa: E402
from tests.agents.engine_procs import alive, descendants, hub_cmd, wait_gone  # noqa: E402
from tests.web.own_page import token_of  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
ENGINE = f"hub:cmd={hub_cmd('--agent', 'random')},depth=1"


def _listening(pid: int, port: int) -> list[str]:
    """The local addresses (hex, as in ``/proc/net/tcp``) of the sockets listening on
    ``port`` in the network namespace of ``pid``."""
    found = []
    for table in ("tcp", "tcp6"):
        path = Path(f"/proc/{pid}/net/{table}")
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            fields = line.split()
            address, hexport = fields[1].rsplit(":", 1)
            if int(hexport, 16) == port and fields[3] == "0A":  # 0A: LISTEN
                found.append(address)
    return found


def _call(url: str, method: str = "GET", body: dict | None = None, token: str = "") -> dict:
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json", "X-DRL-Token": token}
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # 127.0.0.1 direct
    with opener.open(request, timeout=30) as answer:
        return json.loads(answer.read())


@pytest.fixture
def server(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "drl.cli.web", "--port", "0"),
            *("--save", str(tmp_path / "saved"), "--engine", ENGINE),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    try:
        line = proc.stdout.readline()  # "drl-web: http://127.0.0.1:PORT/ (...)"
        assert line.startswith("drl-web: http://"), line + proc.stderr.read()
        yield proc, line.split()[1], tmp_path / "saved"
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)


@pytest.mark.skipif(not Path("/proc/self/net/tcp").exists(), reason="needs /proc/net/tcp")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_the_server_listens_on_loopback_and_stops_its_engines(server, sig):
    proc, url, saved = server
    port = int(url.rstrip("/").rsplit(":", 1)[1])
    assert _listening(proc.pid, port) == ["0100007F"]  # 127.0.0.1, and nothing else
    token = token_of(url)
    game = _call(f"{url}api/games", "POST", {"opponent": ENGINE, "color": "white"}, token)
    state = _call(f"{url}api/games/{game['id']}/opponent", "POST", {}, token)
    assert len(state["moves"]) == 1
    engines = [p for p, cmd in descendants(proc.pid).items() if "drl.cli.hub" in cmd]
    assert len(engines) == 1
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "stopped; 1 game(s) closed" in out
    assert all(wait_gone(p) for p in engines), [p for p in engines if alive(p)]
    (game_file,) = saved.iterdir()
    (read,) = read_games(game_file)
    assert read.result == "*" and [str(m) for m in replay(read).move_stack] == state["moves"]


def test_without_flask_the_command_names_the_install(monkeypatch, capsys):
    from drl.cli import web

    monkeypatch.setitem(sys.modules, "flask", None)
    monkeypatch.delitem(sys.modules, "drl.web.app", raising=False)
    with pytest.raises(SystemExit) as stop:
        web.main(["--port", "0"])
    assert stop.value.code == 2
    assert 'pip install -e ".[web]"' in capsys.readouterr().err
    import drl.web  # the game logic needs no web library

    assert drl.web.WebGame


def test_bad_options_are_one_line(tmp_path, capsys):
    from drl.cli import web

    for argv, text in [
        (["--port", "70000"], "--port must be 0..65535"),
        (["--games", str(tmp_path / "none")], "is not a folder"),
        (["--variant", "english:x=1"], "unknown flag 'x'"),
        (["--engine", "alphabeta:depth=2"], "not an agent that runs a program"),
    ]:
        with pytest.raises(SystemExit) as stop:
            web.main(argv)
        assert stop.value.code == 2 and text in capsys.readouterr().err


def test_a_bad_default_opponent_or_a_taken_port_is_one_line(capsys):
    import socket

    from drl.cli import web

    with pytest.raises(SystemExit) as stop:
        web.main(["--port", "0", "--opponent", "az:ckpt=/nonexistent"])
    assert stop.value.code == 2 and "/nonexistent does not exist" in capsys.readouterr().err
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(SystemExit) as stop:
            web.main(["--port", str(port)])
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert stop.value.code == 2 and last.startswith(f"drl-web: cannot listen on 127.0.0.1:{port}")
    assert "in use" in last and not last.endswith(": 1")
