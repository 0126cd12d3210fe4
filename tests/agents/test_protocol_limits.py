"""Bounded protocol input and engines that never let go, over real pipes and sockets:
over-long Hub lines and DXP messages (``drl-hub`` and the ``hub``/``dxp`` agents), the
DXP follower's timeouts and GAMEREQ checks, Hub field errors, an engine that echoes its
input, and closing an engine whose descendant holds its pipes."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time

import pytest

from drl.agents import make
from drl.agents.engines.process import EngineError
from drl.agents.engines.records import (
    DXP_MESSAGE_LIMIT,
    HUB_LINE_LIMIT,
    RecordReader,
    RecordTooLong,
)
from drl.rules import Board
from tests.agents.engine_procs import DRL_HUB, alive, no_leftover_processes, wait_gone

pytestmark = pytest.mark.usefixtures("no_leftover_processes")
_ = no_leftover_processes


# -- the reader -----------------------------------------------------------------------------


def _chunks(*parts: bytes):
    data = list(parts)

    def read(n: int) -> bytes:
        return data.pop(0) if data else b""

    return read


def test_record_reader_caps_records_and_skips_the_rest():
    reader = RecordReader(
        _chunks(b"ab\nc", b"d\n", b"x" * 40, b"x" * 40, b"\nok"), b"\n", 32, "line"
    )
    assert reader.next() == b"ab" and reader.next() == b"cd"
    with pytest.raises(RecordTooLong) as err:
        reader.next()
    assert not err.value.complete and "longer than 32 bytes" in str(err.value)
    assert reader.skip() == 80  # the rest of the long record, to its newline
    assert reader.next() == b"ok"  # the last line needs no newline
    assert reader.next() is None
    # a whole over-long record in one read is consumed, and its size is known
    reader = RecordReader(_chunks(b"y" * 100 + b"\0M1\0"), b"\0", 32, "DXP message", False)
    with pytest.raises(RecordTooLong) as err:
        reader.next()
    assert err.value.complete and "(100 bytes)" in str(err.value)
    assert reader.next() == b"M1" and reader.next() is None


def test_record_reader_is_linear_in_a_stream_of_small_reads():
    data = [b"e"] * 50_000 + [b"\n"]
    reader = RecordReader(lambda n: data.pop(0) if data else b"", b"\n", 1 << 20, "line")
    started = time.monotonic()
    assert len(reader.next() or b"") == 50_000
    assert time.monotonic() - started < 2.0  # a re-scan per read would be 1.25e9 steps


# -- drl-hub, Hub -------------------------------------------------------------------------


def _drl_hub(args, data: bytes, timeout=60):
    return subprocess.run([*DRL_HUB, *args], input=data, capture_output=True, timeout=timeout)


def test_drl_hub_answers_an_over_long_line_with_an_excerpt_and_reads_on():
    line = b"pos pos=W" + b"e" * 300_000
    out = _drl_hub(["--agent", "alphabeta:depth=1"], line + b"\nping\n")
    lines = out.stdout.decode().splitlines()
    assert out.returncode == 0 and lines[-1] == "pong", out.stderr
    assert len(lines) == 2 and len(lines[0]) < 300, lines[0][:300]
    assert lines[0].startswith('error message="line longer than 65536 bytes')
    assert f"({len(line)} bytes)" in lines[0]


def test_drl_hub_errors_name_the_bad_field():
    text = (
        b"level time=abc moves=0\n"
        b"level move-time=nan\n"
        b"depth many\n"
        b"set-param name=variant value=english:no_progress_plies=-1\n"
        b"ping\n"
    )
    out = _drl_hub(["--agent", "alphabeta:depth=1"], text)
    lines = out.stdout.decode().splitlines()
    assert lines[-1] == "pong" and len(lines) == 5, lines
    assert "level: time='abc' is not a finite number" in lines[0]
    assert "level: move-time='nan' is not a finite number" in lines[1]
    assert lines[2] == "error depth: plies='many' is not a whole number"  # Hub-1's form
    assert "no_progress_plies must be none or an integer, got '-1'" in lines[3]
    assert "unknown variant" not in lines[3]


# -- the hub agent ---------------------------------------------------------------------------

FAKE_HUB = """\
import os, sys, time
mode = sys.argv[1]
out = sys.stdout
def say(s):
    out.write(s + "\\n"); out.flush()
for line in sys.stdin:
    w = line.split()
    if not w:
        continue
    if w[0] == "hub":
        if mode == "nonl":  # an endless line, 6 MB/s
            while True:
                out.write("x" * 65536); out.flush(); time.sleep(0.01)
        if mode == "chatty":  # never 'wait'
            while True:
                say("info nothing yet"); time.sleep(0.05)
        say("id name=fake"); say("wait")
    elif w[0] == "init":
        say("ready")
    elif w[0] == "go":
        if mode == "bigdone":
            say("done move=" + "x" * 200000)
        elif mode == "daemon":  # a child that leaves the group, then an illegal move
            if os.fork() == 0:
                os.setsid()
                os.execvp("sleep", ["sleep", "20"])
            time.sleep(0.2)
            say("done move=11-15")
        elif mode == "escaped":  # a grandchild out of the group and out of the tree
            os.system("setsid sleep 20 & echo $! > " + sys.argv[2])
            time.sleep(0.2)
            say("done move=11-15")
    elif w[0] == "quit":
        break
"""


@pytest.fixture
def fake_hub(tmp_path):
    script = tmp_path / "fake_hub.py"
    script.write_text(FAKE_HUB)
    return f"{sys.executable} {script}"


def _error_of(spec: str, limit: float) -> str:
    agent = make(spec)
    started = time.monotonic()
    with pytest.raises(EngineError) as err:
        agent.select_move(Board("international"))
    assert time.monotonic() - started < limit, str(err.value)[:300]
    assert agent._engine is None
    return str(err.value)


def test_hub_agent_stops_an_endless_line_at_the_cap(fake_hub):
    text = _error_of(f"hub:cmd={fake_hub} nonl,time=0.2,grace=1,timeout=8", 6)
    assert f"sent a line longer than {HUB_LINE_LIMIT} bytes: 'xxxx" in text
    assert len(text) < 600


def test_hub_agent_refuses_a_huge_reply_with_an_excerpt(fake_hub):
    text = _error_of(f"hub:cmd={fake_hub} bigdone,time=0.2,grace=1", 6)
    assert "sent a line longer than" in text and "'done move=xxx" in text
    assert len(text) < 600


def test_hub_agent_fails_fast_on_an_engine_that_echoes_its_input():
    text = _error_of("hub:cmd=/bin/cat,timeout=20", 5)
    assert "(cat) echoes its input (it sent back 'hub')" in text


def test_hub_agent_start_up_timeout_names_the_whole_allowance(fake_hub):
    text = _error_of(f"hub:cmd={fake_hub} chatty,timeout=1", 5)
    assert "no reply within 1.0 s while waiting for the reply to 'hub'" in text


def test_closing_an_engine_stops_a_child_that_left_its_group(fake_hub):
    agent = make(f"hub:cmd={fake_hub} daemon,time=0.2,grace=1")
    board = Board("international", fen="W:W32:B19")
    pid_before = set(_sleepers())
    started = time.monotonic()
    with pytest.raises(EngineError, match="not a legal move"):
        agent.select_move(board)
    assert time.monotonic() - started < 8
    assert not set(_sleepers()) - pid_before, "the engine's setsid child is still running"


def test_closing_an_engine_whose_pipe_is_held_out_of_reach_returns_and_says_so(fake_hub, tmp_path):
    pidfile = tmp_path / "escaped.pid"
    agent = make(f"hub:cmd={fake_hub} escaped {pidfile},time=0.2,grace=1")
    board = Board("international", fen="W:W32:B19")
    started = time.monotonic()
    try:
        with pytest.raises(EngineError) as err:
            agent.select_move(board)
        assert time.monotonic() - started < 8
        text = str(err.value)
        assert "not a legal move" in text
        assert "still held open by a process outside its process group" in text
    finally:
        if pidfile.exists():
            pid = int(pidfile.read_text())
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
            assert wait_gone(pid)


def _sleepers() -> list[int]:
    """Pids of running ``sleep 20`` processes."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmd = open(f"/proc/{entry}/cmdline", "rb").read()
            except OSError:
                continue
            if cmd == b"sleep\x0020\x00" and alive(int(entry)):
                found.append(int(entry))
    return found


# -- the dxp agent ---------------------------------------------------------------------------

DXP_NONUL = """\
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
buf = b""
while b"\\0" not in buf:
    buf += s.recv(4096)
s.sendall(b"A" + b"fake".ljust(32) + b"0\\0")
try:
    while True:
        s.sendall(b"C" + b"x" * 65536); time.sleep(0.01)
except OSError:
    time.sleep(30)
"""


def test_dxp_agent_refuses_a_message_over_the_cap(tmp_path):
    script = tmp_path / "dxp_nonul.py"
    script.write_text(DXP_NONUL)
    agent = make(f"dxp:cmd={sys.executable} {script} {{port}},time=0.2,grace=5")
    started = time.monotonic()
    with pytest.raises(EngineError) as err:
        agent.select_move(Board("international"))
    assert time.monotonic() - started < 4
    text = str(err.value)
    assert f"sent a DXP message longer than {DXP_MESSAGE_LIMIT} bytes: 'Cxxx" in text
    assert len(text) < 600 and agent._process is None


# -- drl-hub, DXP -----------------------------------------------------------------------------


def _listen(*extra: str) -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen(
        [*DRL_HUB, "--agent", "alphabeta:depth=1", "--dxp", "--listen", "0", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    line = proc.stderr.readline()
    match = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
    assert match, line
    return proc, int(match.group(1))


def _finish(proc: subprocess.Popen, timeout: float = 20) -> tuple[int, str]:
    try:
        _, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, err


class _Peer:
    """A DXP initiator written by hand: NUL-ended messages over a socket."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.buf = b""

    def send(self, message: str) -> None:
        self.sock.sendall(message.encode() + b"\0")

    def receive(self) -> str:
        while b"\0" not in self.buf:
            data = self.sock.recv(4096)
            assert data, "drl-hub closed the connection"
            self.buf += data
        raw, _, self.buf = self.buf.partition(b"\0")
        return raw.decode()

    def reply(self) -> str:
        """The next message other than CHAT."""
        while (msg := self.receive()).startswith("C"):
            pass
        return msg

    def close(self) -> None:
        self.sock.close()


def _req(colour: str = "Z", minutes: str = "005", moves: str = "050") -> str:
    return f"R01{'peer':<32}{colour}{minutes}{moves}A"


def test_drl_hub_listen_honours_timeout_for_the_peer_and_its_first_message():
    lonely, lonely_port = _listen("--timeout", "1")  # nobody connects
    silent, silent_port = _listen("--timeout", "1")
    peer = _Peer(silent_port)  # connects, then says nothing
    started = time.monotonic()
    try:
        code, err = _finish(lonely)
        code2, err2 = _finish(silent)
    finally:
        peer.close()
    assert time.monotonic() - started < 10
    assert code == 2 and f"no DXP peer connected to 127.0.0.1:{lonely_port} within 1 s" in err
    assert code2 == 2 and f"on 127.0.0.1:{silent_port}" in err2
    assert "no DXP message within 1.0 s while waiting for the peer's first message" in err2


def test_drl_hub_drops_a_peer_whose_message_exceeds_the_cap():
    proc, port = _listen("--timeout", "20")
    peer = _Peer(port)
    started = time.monotonic()
    try:
        for _ in range(50):  # 3 MB without a NUL
            peer.sock.sendall(b"C" + b"x" * 60_000)
    except OSError:
        pass  # drl-hub already dropped the connection
    try:
        code, err = _finish(proc)
    finally:
        peer.close()
    assert code == 2 and time.monotonic() - started < 15
    assert f"DXP message longer than {DXP_MESSAGE_LIMIT} bytes: 'Cxxx" in err
    assert "connection dropped" in err and len(err) < 1000


def test_drl_hub_follower_refuses_bad_clocks_and_a_gamereq_during_a_game():
    proc, port = _listen("--timeout", "20")
    peer = _Peer(port)
    try:
        for minutes, moves in (("abc", "050"), ("-01", "050"), ("005", "x1z")):
            peer.send(_req("Z", minutes, moves))
            assert peer.reply() == "A" + "drl".ljust(32) + "2"  # refused, willing to play
        peer.send(_req("Z", "999", "000"))  # the largest clock and no move limit
        assert peer.reply() == "A" + "drl".ljust(32) + "0"
        peer.send("M0000322800")  # we play White: 32-28
        first = peer.reply()
        assert first.startswith("M"), first
        peer.send(_req("W"))  # mid-game: refused, and the game goes on
        assert peer.reply() == "A" + "drl".ljust(32) + "2"
        board = Board("international")
        board.push("32-28")
        frm, to = int(first[5:7]), int(first[7:9])
        board.push(next(m for m in board.legal_moves if (m.start + 1, m.end + 1) == (frm, to)))
        ours = board.legal_moves[0]
        caps = "".join(f"{c + 1:02d}" for c in ours.captures)
        peer.send(f"M0000{ours.start + 1:02d}{ours.end + 1:02d}{len(ours.captures):02d}{caps}")
        assert peer.reply().startswith("M")  # drl-hub answered in the same game
        peer.send("E01")
        assert peer.reply() == "E01"
    finally:
        peer.close()
    code, err = _finish(proc)
    assert code == 0, err
    assert "clock field minutes='abc' is not 3 digits" in err
    assert "during a game refused" in err and "Traceback" not in err


def test_drl_hub_input_that_ends_inside_an_over_long_line():
    """The last, unterminated line is capped too: one error with its size, status 0."""
    out = _drl_hub(["--agent", "random"], b"hub\n" + b"z" * (HUB_LINE_LIMIT + 10))
    lines = out.stdout.decode().splitlines()
    assert out.returncode == 0 and lines[-1].startswith("error message=")
    assert f"({HUB_LINE_LIMIT + 10} bytes)" in lines[-1]
