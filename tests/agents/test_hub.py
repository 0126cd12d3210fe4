"""The ``hub`` agent and ``drl-hub`` driving each other over real pipes (Hub-1 and Hub-2),
and the agent's errors with misbehaving engines (small real scripts)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from drl.agents import make, parse_spec
from drl.agents.engines.process import EngineError
from drl.agents.engines.wire import HUB_VARIANTS
from drl.cli.eval import quote_overrides
from drl.eval.arena import play_match
from drl.eval.settings import MatchSettings
from drl.rules import Board
from tests.agents.engine_procs import DRL_HUB, alive, hub_cmd, no_leftover_processes, wait_gone

pytestmark = pytest.mark.usefixtures("no_leftover_processes")
_ = no_leftover_processes


def _play(agent, variant: str, plies: int, other=None) -> Board:
    """Play ``agent`` (both sides, or against ``other``) for ``plies``; each move is
    pushed with the board's legality check."""
    board = Board(variant)
    while board.outcome() is None and board.ply < plies:
        player = agent if other is None or board.ply % 2 == 0 else other
        move = player.select_move(board)
        assert move in board.legal_moves
        board.push(move)
    return board


@pytest.mark.parametrize("proto", ["1", "2"])
def test_hub_agent_plays_drl_hub_in_international(proto):
    spec = f"hub:cmd={hub_cmd('--agent', 'alphabeta:depth=1')},depth=2,proto={proto}"
    with make(spec) as agent:
        board = _play(agent, "international", 40, other=make("alphabeta:depth=1"))
        assert board.ply == 40 or board.outcome() is not None
        assert agent._version == int(proto)
        assert agent.engine_name == "drl"
        pid = agent._engine.pid
    assert wait_gone(pid)


@pytest.mark.parametrize("name", list(HUB_VARIANTS))
def test_hub_agent_plays_every_variant_drl_hub_declares(name):
    """Hub-2 sets the variant (``set-param name=variant``) before ``init``."""
    variant = HUB_VARIANTS[name]
    with make(f"hub:cmd={hub_cmd('--agent', 'alphabeta:depth=1')},depth=1") as agent:
        agent.check_variant(variant)
        board = _play(agent, variant, 16)
        assert board.ply == 16 or board.outcome() is not None
        assert agent._version == 2


def test_hub_agent_in_the_arena_and_its_engine_stops_after():
    spec = f"hub:cmd={hub_cmd('--agent', 'alphabeta:depth=1')},depth=1,proto=2"
    result = play_match(
        spec,
        "alphabeta:depth=1",
        "international",
        games=2,
        settings=MatchSettings(workers=1, max_plies=20, progress=False),
    )
    assert len(result.records) == 2
    assert all(r.plies <= 20 for r in result.records)


def test_hub1_refuses_8x8_and_drl_hub_refuses_scan_only_variants():
    hub1 = make(f"hub:cmd={hub_cmd()},proto=1")
    with pytest.raises(ValueError, match="Hub-1 is International"):
        hub1.check_variant("english")
    hub1.close()
    out = _drl_hub(["--agent", "random"], "hub\nset-param name=variant value=frisian\nquit\n")
    assert "error message=\"variant 'frisian' is not implemented by drl" in out.stdout


def _drl_hub(args, text, timeout=120):
    return subprocess.run(
        [*DRL_HUB, *args], input=text, capture_output=True, text=True, timeout=timeout
    )


def test_drl_hub_answers_bad_input_without_a_traceback():
    text = textwrap.dedent(
        """\
        hub
        init
        pos pos=Wbad
        pos wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww
        move 11-15
        level depth=x
        frobnicate now
        pos pos="W:W1:B2
        pos pos=Weeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee
        go think
        ping
        """
    )  # ends without quit: end of input also ends drl-hub
    out = _drl_hub(["--agent", "alphabeta:depth=1", "--protocol", "2"], text)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr + out.stdout
    lines = out.stdout.splitlines()
    assert lines[:4] == [lines[0], lines[1], "wait", "ready"] and lines[0].startswith("id ")
    errors = [ln for ln in lines if ln.startswith("error ")]
    assert len(errors) == 5, lines  # bad pos, illegal move, bad level, bad quote, game over
    assert "11-15" in errors[1] and "illegal" in errors[1]
    assert lines[-1] == "pong"
    assert "ignoring unknown command 'frobnicate now'" in out.stderr


def test_drl_hub_errors_follow_the_protocol_of_the_command_and_a_refused_pos_is_not_searched():
    over = "Wb" + "e" * 49  # White to move with no piece: nothing to search
    out = _drl_hub(["--agent", "alphabeta:depth=1"], f"pos pos={over}\ngo think\nquit\n")
    assert out.stdout.splitlines()[-1].startswith('error message="no move to search')
    out = _drl_hub(["--agent", "alphabeta:depth=1"], f"pos {over}\ngo\nquit\n")
    last = out.stdout.splitlines()[-1]
    assert last.startswith("error no move to search") and "message=" not in last
    # a refused position is not replaced by the previous one when the client says go
    short = "Wb" + "e" * 48
    for text in (f"pos pos={short}\ngo think\n", f"pos {short}\ngo\n"):
        out = _drl_hub(["--agent", "alphabeta:depth=1"], text + "quit\n")
        lines = out.stdout.splitlines()
        assert len(lines) == 2 and all(ln.startswith("error") for ln in lines), lines
        assert "last pos was refused" in lines[1]
    # and an accepted one after it is searched again
    start = "W" + "b" * 20 + "e" * 10 + "w" * 20
    out = _drl_hub(["--agent", "alphabeta:depth=1"], f"pos {short}\npos {start}\ngo\nquit\n")
    assert out.stdout.splitlines()[-1].startswith("move ")


@pytest.mark.parametrize("spec", ["hub:cwd=/tmp,depth=1", "dxp:time=1"])
def test_an_engine_spec_without_a_program_is_a_clear_error(spec):
    from drl.agents import make

    with pytest.raises(ValueError, match=r"cmd= \(the engine program\) is required"):
        make(spec)


def test_drl_hub_bad_arguments_exit_2_with_one_line():
    out = _drl_hub(["--agent", "nosuchagent"], "")
    assert out.returncode == 2 and out.stderr.startswith("drl-hub: unknown agent")
    assert "Traceback" not in out.stderr


def test_spec_values_with_commas_are_quoted():
    kind, values = parse_spec("hub:cmd=x,args='--agent alphabeta:depth=2,tt=16',depth=3")
    assert kind == "hub" and values["args"] == "--agent alphabeta:depth=2,tt=16"
    assert values["depth"] == 3
    argv = quote_overrides(
        ["agents=[hub:cmd=/tmp/scan/scan,cwd=/tmp/scan,depth=2,alphabeta:depth=4]"]
    )
    assert argv == ['agents=["hub:cmd=/tmp/scan/scan,cwd=/tmp/scan,depth=2","alphabeta:depth=4"]']
    argv = quote_overrides(["agents=[hub:cmd=x,args='-a 1,2',random]"])
    assert argv == ['agents=["hub:cmd=x,args=\'-a 1,2\'","random"]']


# -- misbehaving engines ------------------------------------------------------------------

FAKE = """\
import sys, time
mode = sys.argv[1]
for line in sys.stdin:
    cmd = line.split()[0] if line.split() else ""
    if cmd == "hub":
        print("name fake"); print("wait")
    elif cmd == "init":
        print("ready")
    elif cmd == "go":
        if mode == "illegal":
            print("move 11-15")
        elif mode == "garbage":
            print("move banana")
        elif mode == "silent":
            time.sleep(60)
        elif mode == "exit":
            sys.exit(3)
        elif mode == "error":
            print("error out of memory")
    elif cmd == "quit":
        break
    sys.stdout.flush()
"""


@pytest.mark.parametrize(
    "mode, message",
    [
        ("illegal", "replied 'move 11-15': not a legal move"),
        ("garbage", "replied 'move banana', which has no move drl can read"),
        ("silent", "no reply within 0.5 s"),
        ("exit", "exited with status 3"),
        ("error", "replied 'error out of memory'"),
    ],
)
def test_misbehaving_engine_gives_a_clear_error_and_is_stopped(tmp_path, mode, message):
    script = tmp_path / "fake_engine.py"
    script.write_text(FAKE)
    agent = make(f"hub:cmd={sys.executable} {script} {mode},time=0.2,grace=0.3,proto=1")
    board = Board("international")
    started = time.monotonic()
    with pytest.raises(EngineError) as err:
        agent.select_move(board)
    assert time.monotonic() - started < 10
    text = str(err.value)
    assert message in text
    assert "engine hub:cmd=" in text and "(fake)" in text  # the spec and the engine's name
    assert board.fen() in text
    assert agent._engine is None  # closed: no process left (checked by the fixture)


def test_missing_engine_program_is_a_clear_error():
    agent = make("hub:cmd=/nonexistent/engine,depth=1")
    with pytest.raises(EngineError, match="cannot start '/nonexistent/engine'"):
        agent.select_move(Board("international"))


def test_engine_dies_with_a_killed_drl_process():
    """SIGKILL of the process that started the engine leaves no engine behind."""
    code = textwrap.dedent(
        f"""\
        import sys, time
        from drl.agents import make
        from drl.rules import Board
        agent = make({f"hub:cmd={hub_cmd('--agent', 'random')},depth=1"!r})
        agent.select_move(Board("international"))
        print(agent._engine.pid, flush=True)
        time.sleep(60)
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        engine_pid = int(proc.stdout.readline())
        assert alive(engine_pid)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
    assert wait_gone(engine_pid), "the engine outlived the killed drl process"


def test_garbage_collected_agent_stops_its_engine():
    agent = make(f"hub:cmd={hub_cmd('--agent', 'random')},depth=1")
    agent.select_move(Board("international"))
    pid = agent._engine.pid
    del agent
    import gc

    gc.collect()
    assert wait_gone(pid)
