"""The guard that drops compiled code built from sources that have since changed."""

from drl.agents import _numba_cache


def test_stale_cache_files_are_removed_only_when_sources_change(tmp_path, monkeypatch):
    src = tmp_path / "rules"
    src.mkdir()
    (src / "core.py").write_text("A = 1\n")
    cache = tmp_path / "__pycache__"
    cache.mkdir()
    monkeypatch.setattr(_numba_cache, "_SOURCES", (src,))
    monkeypatch.setattr(_numba_cache, "_STAMP", cache / "stamp")

    def run():
        monkeypatch.setattr(_numba_cache, "_checked", False)
        (cache / "f-1.py311.nbi").write_text("index")
        (cache / "f-1.py311.1.nbc").write_text("code")
        _numba_cache.check()
        return sorted(p.name for p in cache.glob("*.nb?"))

    assert run() == []                      # no stamp yet: cleared
    assert run() == ["f-1.py311.1.nbc", "f-1.py311.nbi"]  # unchanged sources: kept
    (src / "core.py").write_text("A = 2\n")
    assert run() == []                      # a rules file changed: cleared
