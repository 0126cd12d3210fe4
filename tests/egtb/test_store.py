"""Files and commands: atomic checksummed files, damage, extension, refusals, counters, CLI."""

from __future__ import annotations

import os

import numpy as np
import pytest

from drl import egtb
from drl.cli.egtb import main
from drl.egtb import EgtbError, build, egtb_dir, open_database, probe
from drl.rules import core
from drl.rules.board import Board

QUIET = {"progress": False, "log": lambda msg: None}


def _all_codes(db) -> np.ndarray:
    return np.concatenate([db.codes(sid) for sid in range(len(db.layout.table))])


def test_database_folder_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("DRL_EGTB_DIR", str(tmp_path / "x"))
    assert egtb_dir() == tmp_path / "x"
    monkeypatch.delenv("DRL_EGTB_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert egtb_dir() == tmp_path / "cache" / "drl" / "egtb"


def test_extending_a_database_keeps_it_and_matches_a_fresh_build(tmp_path):
    small = build("english", 2, directory=tmp_path / "a", **QUIET)
    assert small.pieces == 2
    grown = build("english", 3, directory=tmp_path / "a", **QUIET)
    fresh = build("english", 3, directory=tmp_path / "b", **QUIET)
    assert grown.path == small.path  # one file per rules, replaced by the larger one
    assert np.array_equal(_all_codes(grown), _all_codes(fresh))
    assert [r["positions"] for r in grown.stats()] == [120, 6972, 261_224]
    assert build("english", 2, directory=tmp_path / "a", **QUIET).pieces == 3  # nothing rebuilt
    assert open_database("english", 4, directory=tmp_path / "a") is None


def test_a_damaged_file_is_set_aside_and_rebuilt(tmp_path, capsys):
    db = build("give_and_take", 2, directory=tmp_path, **QUIET)
    before = _all_codes(db)
    path = db.path
    data = bytearray(path.read_bytes())
    data[-10] ^= 0xFF
    path.write_bytes(bytes(data))
    os.utime(path, ns=(1, 1))
    again = build("give_and_take", 2, directory=tmp_path, progress=False)
    assert "damaged database" in capsys.readouterr().err
    assert list(tmp_path.glob("*.corrupt"))
    assert np.array_equal(_all_codes(again), before)


def test_a_cut_file_is_never_read(tmp_path):
    db = build("english", 1, directory=tmp_path, **QUIET)
    path = db.path
    path.write_bytes(path.read_bytes()[:100])
    os.utime(path, ns=(2, 2))
    assert open_database("english", directory=tmp_path) is None
    assert not path.exists()


def test_refusals(monkeypatch, tmp_path):
    import shutil

    from drl.egtb import database

    class Tiny:
        free = 1000

    monkeypatch.setattr(database.shutil, "disk_usage", lambda p: Tiny())
    with pytest.raises(EgtbError, match="not enough disk space"):
        build("english", 2, directory=tmp_path, **QUIET)
    assert not list(tmp_path.iterdir())
    monkeypatch.setattr(database.shutil, "disk_usage", shutil.disk_usage)
    with pytest.raises(EgtbError, match="role_swap_after_captures"):
        build("give_and_take:role_swap_after_captures=2", 2, directory=tmp_path, **QUIET)
    with pytest.raises(EgtbError, match="pieces"):
        build("english", 0, directory=tmp_path, **QUIET)
    with pytest.raises(EgtbError, match="unknown variant"):
        build("chess", 2, directory=tmp_path, **QUIET)


def test_estimate_counts_what_is_left(tmp_path):
    full = egtb.estimate("english", 3)
    rest = egtb.estimate("english", 3, done=2)
    assert full.entries > rest.entries > 0 and full.file_bytes > full.entries
    assert "positions" in str(full)


def test_exact_values_respect_the_counters(built):
    """A database win counts only where no counter can draw the game first."""
    db = built("english", 3)
    board = Board("english", fen="B:WK30,K31:BK4")  # Black loses in 30 plies
    state = np.array(board.state)
    assert str(db.exact(state)) == "loss 30"
    state[core.ST_NOPROG] = 80 - 30
    assert str(db.exact(state)) == "loss 30"
    state[core.ST_NOPROG] = 80 - 29  # the 40-move rule would draw first
    assert db.exact(state) is None
    drawn = np.array(Board("english", fen="W:WK1:BK32").state)
    drawn[core.ST_NOPROG] = 79
    assert str(db.exact(drawn)) == "draw"  # the counters only add draws


def test_russian_endgame_rule_limits_exact_values(built):
    db = built("russian", 3)
    state = np.array(Board("russian", fen="W:WKa1:Bd4").state)
    assert str(db.exact(state)) == "win 1"
    long_win = [s for s in _wins(db) if s[1] > 10]
    assert long_win and db.exact(long_win[0][0]) is None  # longer than the 5-move classes


def _wins(db):
    from drl.egtb._index import BINOM, unrank

    out = []
    layout = db.layout
    for sid in range(len(layout.table)):
        codes = db.codes(sid)
        for idx in np.flatnonzero((codes >= 2) & (codes % 2 == 0))[-20:]:
            bm, bk, wm, wk, turn, ok = unrank(sid, int(idx), layout.geo, layout.table, BINOM)
            state = core.make_state(bm, bk, wm, wk, turn, db.variant.params)
            out.append((state, (int(codes[idx]) - 2) // 2))
    return out


def test_probe_builds_what_it_needs(tmp_path):
    results = probe("english", ["W:W18:B14", "B:WK1,K2:BK32"], directory=tmp_path, progress=False)
    assert [str(r) for r in results] == ["win 1", "loss 30"]
    assert open_database("english", 3, directory=tmp_path) is not None


def test_cli_build_stats_probe(tmp_path, capsys):
    args = ["--dir", str(tmp_path), "--quiet"]
    assert main(["build", "english", "--pieces", "2", *args]) == 0
    out = capsys.readouterr()
    assert "english" in out.out and "positions" in out.err
    assert main(["stats", "english", "--pieces", "2", *args]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split()[:2] == ["1", "120"] and lines[2].split()[1] == "6,972"
    assert main(["probe", "english", "W:W18:B14", "B:W18:B14", "W:WK1:BK32", *args]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[:2] for line in lines] == [["win", "1"], ["win", "1"], ["draw", "0"]]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["probe", "english", "W:W18:BX"], "FEN"),
        (["build", "english", "--pieces", "0"], "pieces"),
        (["stats", "nonsense", "--pieces", "2"], "unknown variant"),
    ],
)
def test_cli_errors_are_one_line(tmp_path, capsys, argv, message):
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--dir", str(tmp_path), "--quiet"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
