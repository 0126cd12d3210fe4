"""Whatever file of a run folder is deleted, the run loses no game and plays none twice:
the lock holds without ``.lock``, the session number never goes back without
``sessions.jsonl``, a folder whose checkpoints are gone is refused rather than started
afresh, a PDN whose shard is gone is kept, a finished run is not run again, and no write
cut short (a full disk, a kill) leaves a ``.tmp`` behind."""

from __future__ import annotations

import errno
import json
import logging
import os
import shutil
from pathlib import Path

import pytest

import drl.train.loop as loop_mod
from drl._atomic import write_atomic
from drl.nn.checkpoint import CheckpointError
from drl.rules.pdn import read_games
from drl.train.buffer import ReplayBuffer
from drl.train.config import Config
from drl.train.loop import train
from drl.train.run_folder import RunFolderError, lock_run_dir
from tests.train.test_run_folder_faults import Crash, _crash_at_shard


def _english(tiny, **train_fields) -> Config:
    cfg = tiny(variant="english", **train_fields)
    cfg.tensorboard = False
    cfg.train.final_eval.games = 0
    return cfg


def _files(run: Path, sub: str) -> dict[str, bytes]:
    d = run / sub
    return {p.name: p.read_bytes() for p in sorted(d.iterdir())} if d.is_dir() else {}


def _all_games(run: Path) -> list[tuple[int, tuple[str, ...]]]:
    return [
        (int(g.tags["Round"]), tuple(g.moves))
        for p in sorted((run / "games").glob("selfplay-*.pdn"))
        for g in read_games(p)
    ]


def _tmp_files(run: Path) -> list[str]:
    return sorted(str(p.relative_to(run)) for p in run.rglob("*.tmp"))


# -- F1: the lock does not live in a file that can be deleted -------------------------------


def test_deleting_the_lock_file_does_not_unlock_the_folder(tmp_path):
    run = tmp_path / "run"
    with lock_run_dir(run) as held:
        started = json.loads((run / ".lock").read_text())["started"]
        (run / ".lock").unlink()
        with pytest.raises(RunFolderError, match=rf"{run} is in use.*pid {os.getpid()}"):
            lock_run_dir(run)
        assert not (run / ".lock").exists()  # the refused process wrote nothing
        held.check()  # the holder writes its .lock again
        # ... as it was: the refusal names when the holder took the folder, not the rewrite
        assert json.loads((run / ".lock").read_text()) == {"pid": os.getpid(), "started": started}
        (run / ".lock").write_text("{}")  # replaced by another file
        with pytest.raises(RunFolderError, match="in use"):
            lock_run_dir(run)
        held.check()
    lock_run_dir(run).release()  # free again once released


def test_without_a_folder_lock_a_replaced_lock_file_stops_the_holder(tmp_path, monkeypatch):
    import drl.train.run_folder.lock as rf

    monkeypatch.setattr(rf, "_lock_folder", lambda d: None)  # a file system without it
    run = tmp_path / "run"
    with lock_run_dir(run) as held:
        (run / ".lock").unlink()
        with pytest.raises(RunFolderError, match="deleted or replaced.*stopping"):
            held.check()


def test_a_trainer_whose_lock_file_is_deleted_keeps_a_second_one_out(tmp_path, tiny, monkeypatch):
    run = tmp_path / "run"
    seen = []

    def second_start(*_args):
        (run / ".lock").unlink()
        try:
            train(_english(tiny, iterations=1), run)
        except RunFolderError as err:
            seen.append(str(err))
        else:
            seen.append("started")

    cfg = _english(tiny, iterations=1, games_per_iteration=4)
    orig = loop_mod.renumber_games
    calls = [0]

    def renumber(*args, **kw):  # the second start comes while the first is playing
        calls[0] += 1
        if calls[0] == 1:
            second_start()
        return orig(*args, **kw)

    monkeypatch.setattr(loop_mod, "renumber_games", renumber)
    result = train(cfg, run)
    assert len(seen) == 1 and f"in use by another training process (pid {os.getpid()}" in seen[0]
    assert result.games == 4 and result.session == 0
    assert json.loads((run / ".lock").read_text())["pid"] == os.getpid()


# -- F2: games or metrics without a checkpoint are refused, never started afresh ------------


@pytest.mark.parametrize("left", ["games", "metrics.jsonl", "eval", "replay-set-aside"])
def test_work_without_a_checkpoint_is_refused_and_left_as_it_is(tmp_path, tiny, left):
    done = tmp_path / "done"
    cfg = _english(tiny, iterations=1)
    cfg.train.eval.every, cfg.train.eval.games = 1, 2  # an eval/ folder too
    cfg.train.iterations = 2
    train(cfg, done)
    run = tmp_path / "run"
    run.mkdir()
    if left == "replay-set-aside":
        (run / "replay").mkdir()
        for p in (done / "replay").glob("shard-*.npz"):
            shutil.copy(p, run / "replay" / (p.name + ".corrupt"))
    elif (done / left).is_dir():
        shutil.copytree(done / left, run / left)
    else:
        shutil.copy(done / left, run / left)
    before = {str(p.relative_to(run)): p.read_bytes() for p in run.rglob("*") if p.is_file()}
    for _ in range(2):
        with pytest.raises(CheckpointError, match="(?s)holds .* but no good checkpoint"):
            train(_english(tiny, iterations=1), run)
    after = {
        str(p.relative_to(run)): p.read_bytes()
        for p in run.rglob("*")
        if p.is_file() and p.name != ".lock"
    }
    assert after == before


def test_a_pdn_whose_shard_was_deleted_is_kept_and_its_numbers_are_not_reused(tmp_path, tiny):
    run = tmp_path / "run"
    train(_english(tiny, iterations=1, shard_games=2), run)  # shards 0, 1: games 0..3
    (run / "replay" / "shard-000001.npz").unlink()
    kept = (run / "games" / "selfplay-000001.pdn").read_bytes()
    result = train(_english(tiny, iterations=2, shard_games=2), run)
    assert (run / "games" / "selfplay-000001.pdn").read_bytes() == kept
    assert result.iterations == 2
    games = _all_games(run)
    rounds = [r for r, _ in games]
    assert sorted(rounds) == list(range(1, 9)), rounds  # no Round given twice
    moves = [m for _, m in games]
    assert len(set(moves)) == len(moves)
    new = ReplayBuffer.shard_files(run / "replay")
    assert [p.name for p in new][-2:] == ["shard-000002.npz", "shard-000003.npz"]


def test_old_shards_deleted_to_free_space_do_not_change_the_games_per_iteration(
    tmp_path, tiny, monkeypatch, caplog
):
    run = tmp_path / "run"
    cfg = _english(tiny, iterations=1, shard_games=2)
    train(cfg, run)  # shards 0, 1: games 0..3
    cfg.train.iterations = 2
    _crash_at_shard(monkeypatch, 2)  # iteration 2: shard 2 (games 4, 5), then a kill
    with pytest.raises(Crash):
        train(cfg, run)
    monkeypatch.undo()
    (run / "replay" / "shard-000000.npz").unlink()  # an old shard, deleted to free space
    with caplog.at_level(logging.WARNING, logger="drl.train.run_folder"):
        result = train(cfg, run)
    games = _all_games(run)
    assert sorted(r for r, _ in games) == list(range(1, 9))  # 2 more, not 4
    assert result.games == 6 and result.iterations == 2
    # ... and the start says what the learner lost with it
    assert "holds 1 of the 2 replay shards written before ckpt-00000001.pt (1 missing" in (
        caplog.text
    )


# -- F3: the session number cannot go back --------------------------------------------------


def test_deleting_sessions_jsonl_does_not_reuse_a_session_or_replay_its_games(
    tmp_path, tiny, monkeypatch
):
    run = tmp_path / "run"
    cfg = _english(tiny, iterations=1, games_per_iteration=8, shard_games=2)
    _crash_at_shard(monkeypatch, 3)  # session 0: two shards (4 games), no checkpoint 1
    with pytest.raises(Crash):
        train(cfg, run)
    (run / "sessions.jsonl").unlink()
    monkeypatch.undo()
    _crash_at_shard(monkeypatch, 2)  # session 1: one shard (2 games)
    with pytest.raises(Crash):
        train(cfg, run)
    (run / "sessions.jsonl").unlink()
    monkeypatch.undo()
    result = train(cfg, run)
    assert result.session == 2
    sessions = [
        json.loads(ln)["session"] for ln in (run / "sessions.jsonl").read_text().splitlines()
    ]
    assert sessions == [2]
    moves = [m for _, m in _all_games(run)]
    assert len(moves) == 8 and len(set(moves)) == len(moves), "games were played twice"
    import numpy as np

    by_shard = [int(np.load(p)["session"]) for p in ReplayBuffer.shard_files(run / "replay")]
    assert by_shard == [0, 0, 1, 2]
    assert {g.tags["Session"] for g in read_games(run / "games" / "selfplay-000002.pdn")} == {"1"}


@pytest.mark.parametrize(
    ("name", "line"),
    [
        ("sessions.jsonl", '{"session": 99999999999999999999999}'),
        ("sessions.jsonl", '{"session": Infinity}'),
        ("sessions.jsonl", '{"session": -5}'),
        ("sessions.jsonl", "[1, 2]"),
        ("metrics.jsonl", '{"iteration": Infinity}'),
        ("metrics.jsonl", '{"iteration": 1e400, "final_eval/x": 1}'),
        ("metrics.jsonl", '{"iteration": NaN}'),
    ],
)
def test_numbers_no_run_writes_in_its_logs_are_skipped_as_damaged_lines(tmp_path, tiny, name, line):
    # They crashed every later start with an OverflowError traceback.
    run = tmp_path / "run"
    train(_english(tiny, iterations=1), run)
    with open(run / name, "a", encoding="utf-8") as fh:
        fh.write(line + "\n")
    result = train(_english(tiny, iterations=2), run)
    # the damaged line still counts as a start (the number never goes back), no more
    assert result.iterations == 2 and result.session in (1, 2)
    moves = [m for _, m in _all_games(run)]
    assert len(set(moves)) == len(moves)


# -- F11: a finished run is not run again ----------------------------------------------------


def test_rerunning_a_finished_run_does_nothing(tmp_path, tiny, monkeypatch):
    run = tmp_path / "run"
    cfg = tiny(variant="english", iterations=1)
    cfg.tensorboard = False
    cfg.train.final_eval.games = 2
    first = train(cfg, run)
    assert first.final_eval and not first.finished_before
    before = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file() and p.name != ".lock"}

    def no_eval(*_a, **_k):
        raise AssertionError("the finished run was evaluated again")

    monkeypatch.setattr(loop_mod, "_evaluate", no_eval)
    again = train(cfg, run)
    assert again.finished_before and again.iterations == 1 and again.games == 4
    after = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file() and p.name != ".lock"}
    assert after == before  # no session line, no second final_eval line
    lines = (run / "metrics.jsonl").read_text().splitlines()
    assert sum("final_eval/" in ln for ln in lines) == 1


def test_a_run_killed_in_its_final_evaluation_only_evaluates(tmp_path, tiny):
    run = tmp_path / "run"
    cfg = tiny(variant="english", iterations=1)
    cfg.tensorboard = False
    cfg.train.final_eval.games = 0
    train(cfg, run)  # as if killed before the final evaluation
    cfg.train.final_eval.games = 2
    result = train(cfg, run)
    assert not result.finished_before and result.final_eval and result.games == 4
    assert train(cfg, run).finished_before


# -- F12: no write cut short leaves a .tmp ---------------------------------------------------


def _enospc_for(suffix: str, monkeypatch) -> None:
    """``os.fsync`` fails with ENOSPC for files whose name ends with ``suffix``."""
    real = os.fsync

    def fsync(fd):
        if os.readlink(f"/proc/self/fd/{fd}").endswith(suffix):
            raise OSError(errno.ENOSPC, "No space left on device")
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)


def test_a_failed_atomic_write_leaves_no_tmp_and_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "f"
    target.write_bytes(b"old")
    _enospc_for(".tmp", monkeypatch)
    with pytest.raises(OSError, match="No space"):
        write_atomic(target, b"new")
    assert target.read_bytes() == b"old" and not list(tmp_path.glob("*.tmp"))


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
@pytest.mark.parametrize("suffix", ["ckpt-00000001.pt.tmp", "npz.tmp", "pdn.tmp", "jsonl.tmp"])
def test_a_full_disk_leaves_no_tmp_file(tmp_path, tiny, monkeypatch, suffix):
    run = tmp_path / "run"
    cfg = _english(tiny, iterations=2)
    _enospc_for(suffix, monkeypatch)
    if suffix == "jsonl.tmp":  # metrics trimmed on resume: give it something to trim
        monkeypatch.undo()
        train(_english(tiny, iterations=1), run)
        with open(run / "metrics.jsonl", "a") as fh:
            fh.write('{"iteration": 7}\n')
        _enospc_for(suffix, monkeypatch)
    with pytest.raises(OSError, match="No space"):
        train(cfg, run)
    assert _tmp_files(run) == []


def test_tmp_files_left_by_a_kill_go_at_the_next_start_even_if_it_fails(
    tmp_path, tiny, monkeypatch
):
    run = tmp_path / "run"
    train(_english(tiny, iterations=1), run)
    left = [
        "checkpoints/ckpt-00000002.pt.tmp",
        "config.yaml.tmp",
        "metrics.jsonl.tmp",
        "eval/final.json.tmp",
        "replay/shard-000009.npz.tmp",
        "games/selfplay-000009.pdn.tmp",
    ]
    for name in left:
        (run / name).parent.mkdir(exist_ok=True)
        (run / name).write_bytes(b"cut short")
    _enospc_for("config.yaml.tmp", monkeypatch)  # the disk is still full
    with pytest.raises(Exception, match="No space"):
        train(_english(tiny, iterations=2), run)
    assert _tmp_files(run) == []
    monkeypatch.undo()
    assert train(_english(tiny, iterations=2), run).games == 8


def test_a_pdn_written_before_a_kill_whose_shard_was_saved_is_completed(tmp_path, tiny):
    run = tmp_path / "run"
    train(_english(tiny, iterations=1, shard_games=2), run)
    pdn = run / "games" / "selfplay-000001.pdn"
    pdn.rename(pdn.with_name(pdn.name + ".tmp"))  # killed between the shard and the PDN
    train(_english(tiny, iterations=2, shard_games=2), run)
    assert pdn.exists() and not _tmp_files(run)
    assert sorted(r for r, _ in _all_games(run)) == list(range(1, 9))
