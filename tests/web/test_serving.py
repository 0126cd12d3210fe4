"""Clients that connect and never send their request cannot hold the server's threads: a
silent connection is closed after the read timeout, and connections beyond the cap are
answered 503 at once; ``drl-web --host`` prints an address it answers."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("flask", reason="Flask is not installed (pip install -e '.[web]')")

from drl.web.app import LOOPBACK_HOSTS, create_app  # noqa: E402
from drl.web.serving import make_bounded_server  # noqa: E402
from drl.web.store import GameStore  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
STALL = b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n"  # no end


@pytest.fixture
def bounded():
    store = GameStore()
    app = create_app(store, hosts=LOOPBACK_HOSTS, token="t" * 32)
    server = make_bounded_server("127.0.0.1", 0, app, read_timeout=1.0, max_connections=4)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server, server.socket.getsockname()[1]
    finally:
        server.shutdown()
        server.server_close()
        store.close_all()


def _get(port: int) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as c:
        c.sendall(b"GET /api/options HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        return c.recv(64)


def _served_threads() -> int:
    return sum(1 for t in threading.enumerate() if t.name.startswith("Thread-") and t.is_alive())


def test_silent_clients_are_closed_and_capped(bounded):
    server, port = bounded
    before = _served_threads()
    stalled = []
    for _ in range(10):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(STALL)
        stalled.append(s)
    time.sleep(0.3)
    assert _served_threads() - before <= server.max_connections
    answers = []
    for s in stalled:
        s.settimeout(5)
        try:
            answers.append(s.recv(64))
        except OSError:
            answers.append(b"")
    assert sum(a.startswith(b"HTTP/1.1 503") for a in answers) == 6, answers
    assert sum(a.startswith(b"HTTP/1.1 408") or a == b"" for a in answers) == 4, answers
    for s in stalled:
        s.close()
    deadline = time.monotonic() + 5
    while _served_threads() > before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _served_threads() <= before
    assert _get(port).startswith(b"HTTP/1.1 200")


def test_a_body_that_never_comes_is_a_408_after_the_read_timeout(bounded):
    _, port = bounded
    with socket.create_connection(("127.0.0.1", port), timeout=10) as c:
        c.sendall(
            b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + b"X-DRL-Token: "
            + b"t" * 32
            + b"\r\nContent-Length: 100\r\n\r\n{"
        )
        started = time.monotonic()
        answer = c.recv(64)
    assert answer.startswith(b"HTTP/1.1 408"), answer
    assert time.monotonic() - started < 5


def _start(*args: str) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "drl.cli.web", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    line = proc.stdout.readline()
    return proc, line


def _ask(address: str, port: int, host_header: str) -> int:
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    with socket.socket(family) as c:
        c.settimeout(10)
        c.connect((address, port))
        head = f"GET /api/options HTTP/1.1\r\nHost: {host_header}\r\nConnection: close\r\n\r\n"
        c.sendall(head.encode())
        return int(c.recv(64).split()[1])


@pytest.mark.parametrize(("host", "shown"), [("127.0.0.2", "127.0.0.2"), ("::1", "[::1]")])
def test_the_printed_address_is_answered(host, shown):
    if ":" in host and not socket.has_ipv6:
        pytest.skip("no IPv6")
    proc, line = _start("--host", host)
    try:
        if not line and ":" in host:
            pytest.skip(f"cannot listen on {host}: {proc.stderr.read()[-200:]}")
        assert line.startswith(f"drl-web: http://{shown}:"), line
        port = int(line.split()[1].rstrip("/").rsplit(":", 1)[1])
        assert _ask(host, port, f"{shown}:{port}") == 200
        assert _ask(host, port, f"evil.example:{port}") == 400
    finally:
        proc.kill()  # how the server stops is test_server.py's
        proc.communicate()


def test_a_bad_memory_budget_is_one_line(capsys):
    from drl.cli import web

    for value in ("0", "-1", "nan"):
        with pytest.raises(SystemExit) as stop:
            web.main(["--port", "0", "--memory", value])
        assert stop.value.code == 2 and "--memory must be" in capsys.readouterr().err
