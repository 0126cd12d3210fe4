"""drl._atomic.set_aside: a damaged file is renamed out of the way, never lost."""

from __future__ import annotations

from drl._atomic import set_aside


def test_set_aside_keeps_every_earlier_set_aside_file(tmp_path):
    p = tmp_path / "shard-000001.npz"
    for content in (b"first", b"second", b"third"):
        p.write_bytes(content)
        target = set_aside(p)
    assert target == tmp_path / "shard-000001.npz.2.corrupt"
    assert not p.exists()
    assert (tmp_path / "shard-000001.npz.corrupt").read_bytes() == b"first"
    assert (tmp_path / "shard-000001.npz.1.corrupt").read_bytes() == b"second"
    assert (tmp_path / "shard-000001.npz.2.corrupt").read_bytes() == b"third"


def test_set_aside_with_overwrite_replaces_an_earlier_one(tmp_path):
    p = tmp_path / "ckpt-00000002.pt"
    (tmp_path / "ckpt-00000002.pt.corrupt").write_bytes(b"old")
    p.write_bytes(b"new")
    assert set_aside(p, overwrite=True) == tmp_path / "ckpt-00000002.pt.corrupt"
    assert not p.exists()
    assert [q.name for q in tmp_path.iterdir()] == ["ckpt-00000002.pt.corrupt"]
    assert (tmp_path / "ckpt-00000002.pt.corrupt").read_bytes() == b"new"
