"""DXP over real sockets on 127.0.0.1: the ``dxp`` agent against ``drl-hub --dxp``, two
``drl-hub`` processes against each other, and a misbehaving DXP engine."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from drl.agents import make
from drl.agents.engines.dxp import clock_for, game_request, move_message, parse_move_message
from drl.agents.engines.process import EngineError
from drl.rules import Board, Color
from tests.agents.engine_procs import DRL_HUB, hub_cmd, no_leftover_processes, wait_gone

pytestmark = pytest.mark.usefixtures("no_leftover_processes")
_ = no_leftover_processes

FOLLOWER = hub_cmd("--agent", "alphabeta:depth=1", "--dxp", "--connect") + " {host}:{port}"


def test_messages_have_the_dxp_layout():
    board = Board("international", fen="W:W28:B23")
    move = board.legal_moves[0]
    assert move_message(move) == "M0000281901" + "23"
    assert parse_move_message("M0000281901" + "23") == (28, 19, frozenset({23}))
    with pytest.raises(ValueError):
        parse_move_message("M00002819022")
    req = game_request(Color.WHITE, 1, 50, None)
    assert req == "R01" + "drl".ljust(32) + "W001050A"
    assert len(game_request(Color.BLACK, 1, 50, Board("international"))) == 43 + 51
    minutes, moves = clock_for(0.5)
    assert abs(minutes * 60 / moves - 0.5) < 0.05


def test_dxp_agent_plays_drl_hub_follower_game_after_game():
    agent = make(f"dxp:cmd={FOLLOWER},time=1")
    other = make("alphabeta:depth=1")
    with agent:
        for game in range(2):  # a new GAMEREQ per game (reset), same connection
            agent.reset(seed=game)
            board = Board("international")
            while board.outcome() is None and board.ply < 30:
                player = agent if board.ply % 2 == game else other
                move = player.select_move(board)
                board.push(move)  # checked: raises on an illegal move
            assert board.ply == 30 or board.outcome() is not None
        assert agent.engine_name == "drl"
        # a position that does not follow from the last: a new GAMEREQ from it
        board = Board("international", fen="B:W28,33:B19,23")
        assert agent.select_move(board) in board.legal_moves
        pid = agent._process.pid
    assert wait_gone(pid)


def test_dxp_refuses_8x8_variants():
    agent = make(f"dxp:cmd={FOLLOWER}")
    with pytest.raises(ValueError, match="International draughts"):
        agent.check_variant("english")
    with pytest.raises(ValueError, match="needs \\{port\\}"):
        make("dxp:cmd=/bin/true")


def test_two_drl_hubs_play_over_dxp():
    initiator = subprocess.Popen(
        [
            *DRL_HUB,
            "--agent",
            "alphabeta:depth=1",
            "--dxp",
            "--listen",
            "0",
            "--initiate",
            "--games",
            "2",
            "--time",
            "0.5",
            "--max-plies",
            "20",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = initiator.stderr.readline()
        port = re.search(r"listening on 127\.0\.0\.1:(\d+)", line).group(1)
        follower = subprocess.run(
            [*DRL_HUB, "--agent", "random", "--dxp", "--connect", f"127.0.0.1:{port}"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        out, err = initiator.communicate(timeout=60)
    finally:
        initiator.kill()
        initiator.wait()
        initiator.stdout.close()
        initiator.stderr.close()
    assert follower.returncode == 0 and initiator.returncode == 0, follower.stderr + err
    assert "Traceback" not in follower.stderr + err
    assert re.search(r"game 1: drl \(white\) vs drl: [01.5]+ after \d+ plies", out)
    assert "game 2: drl (black)" in out and "drl scored" in out


FAKE_CLIENT = """\
import socket, sys, time
port = int(sys.argv[1]); mode = sys.argv[2]
s = socket.create_connection(("127.0.0.1", port))
buf = b""
while b"\\0" not in buf:
    buf += s.recv(4096)
s.sendall(b"A" + b"fake".ljust(32) + b"0\\0")
if mode == "illegal":
    s.sendall(b"M0000111500\\0")
elif mode == "garbage":
    s.sendall(b"Mhello\\0")
elif mode == "silent":
    time.sleep(60)
elif mode == "exit":
    sys.exit(4)
time.sleep(60)
"""


@pytest.mark.parametrize(
    "mode, message",
    [
        ("illegal", "sent 'M0000111500': not a legal move"),
        ("garbage", "sent 'Mhello', which is not a DXP move"),
        ("silent", "no DXP message within 0.6 s"),
        ("exit", "the DXP connection was closed"),
    ],
)
def test_misbehaving_dxp_engine_gives_a_clear_error_and_is_stopped(tmp_path, mode, message):
    script = tmp_path / "fake_dxp.py"
    script.write_text(FAKE_CLIENT)
    agent = make(f"dxp:cmd={sys.executable} {script} {{port}} {mode},time=0.1,grace=0.5")
    board = Board("international")
    with pytest.raises(EngineError) as err:
        agent.select_move(board)
    text = str(err.value)
    assert message in text and "(fake)" in text and board.fen() in text
    assert agent._process is None
