"""The package-wide guard that drops stale numba caches."""

from pathlib import Path

import pytest

from drl import _numba_cache


@pytest.fixture
def fake_package(tmp_path, monkeypatch):
    pkg = tmp_path / "drl"
    (pkg / "rules" / "__pycache__").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "rules" / "__init__.py").write_text("")
    (pkg / "rules" / "kernels.py").write_text("import numba\nfrom drl.rules.consts import N\n")
    (pkg / "rules" / "consts.py").write_text("N = 1\n")
    (pkg / "rules" / "pure.py").write_text("X = 1\n")
    monkeypatch.setattr(_numba_cache, "_PACKAGE", pkg)
    monkeypatch.setattr(_numba_cache, "_STAMP", pkg / "__pycache__" / "numba-sources.sha1")
    monkeypatch.setattr(_numba_cache, "_checked", False)
    return pkg


def _cache_file(pkg: Path) -> Path:
    path = pkg / "rules" / "__pycache__" / "kernels.f-1.py311.nbi"
    path.write_text("cached")
    return path


def _check_again(monkeypatch):
    monkeypatch.setattr(_numba_cache, "_checked", False)
    _numba_cache.check()


def test_sources_follow_imports_of_compiled_modules(fake_package):
    names = {p.name for p in _numba_cache._compiled_sources()}
    assert names == {"kernels.py", "consts.py"}


def test_edit_of_imported_constant_drops_cache(fake_package, monkeypatch):
    _numba_cache.check()
    cached = _cache_file(fake_package)
    _check_again(monkeypatch)
    assert cached.exists(), "unchanged sources must keep the cache"
    (fake_package / "rules" / "consts.py").write_text("N = 2\n")
    _check_again(monkeypatch)
    assert not cached.exists(), "a changed constant module must drop the cache"


def test_edit_of_unrelated_module_keeps_cache(fake_package, monkeypatch):
    _numba_cache.check()
    cached = _cache_file(fake_package)
    (fake_package / "rules" / "pure.py").write_text("X = 2\n")
    _check_again(monkeypatch)
    assert cached.exists()


def test_first_use_announces_compilation(fake_package, monkeypatch, capsys):
    _numba_cache.check()
    assert "compiling" in capsys.readouterr().err
    _check_again(monkeypatch)
    assert capsys.readouterr().err == "", "an up-to-date cache compiles nothing"


def _notices(delay):
    import io

    stream = io.StringIO()
    return _numba_cache._CompileNotices(stream, delay=delay), stream


def test_a_compile_is_announced_with_what_and_how_long():
    import re

    from numba import njit
    from numba.core import event

    notices, stream = _notices(delay=0.0)
    with event.install_listener("numba:compile", _numba_cache._listener(notices)):

        @njit
        def add(a, b):
            return a + b

        assert add(1, 2) == 3
        add(1, 2)  # compiled already: no second notice
    notices.finish()
    out = stream.getvalue()
    assert f"compiling the numba kernels of {__name__} " in out
    assert re.search(rf"compiled 1 kernel of {re.escape(__name__)} in \d+\.\d s", out), out
    assert out.count("compiling") == 1


def test_each_kernel_set_gets_its_own_notice():
    notices, stream = _notices(delay=0.0)
    for module in ("drl.rules.core", "drl.rules.core", "drl.search.kernels"):
        notices.on_event("start", module)
        notices.on_event("start", module)  # a callee compiled inside it
        notices.on_event("end", module)
        notices.on_event("end", module)
    notices.finish()
    lines = stream.getvalue().splitlines()
    assert [line.split(" in ")[0] for line in lines if "compiled" in line] == [
        "drl: compiled 2 kernels of drl.rules.core",
        "drl: compiled 1 kernel of drl.search.kernels",
    ]
    assert sum("compiling the numba kernels" in line for line in lines) == 2


def test_a_quick_compile_says_nothing():
    notices, stream = _notices(delay=60.0)
    notices.on_event("start", "drl.rules.core")
    notices.on_event("end", "drl.rules.core")
    notices.finish()
    assert stream.getvalue() == ""
