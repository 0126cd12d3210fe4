"""drl._system: the CPUs a process may use."""

from __future__ import annotations

import os

from drl._system import usable_cpus


def test_usable_cpus_follows_the_affinity_mask(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 3, 5}, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert usable_cpus() == 3


def test_usable_cpus_without_an_affinity_mask_counts_the_machine(monkeypatch):
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 6)
    assert usable_cpus() == 6
    monkeypatch.setattr(os, "cpu_count", lambda: None)  # unknown
    assert usable_cpus() == 1


def test_a_script_without_a_main_guard_is_stopped_in_its_worker_with_the_advice(tmp_path):
    """A spawned worker imports the script again: a training or evaluation started at
    the script's top level must not start again there, and the advice names the guard."""
    import subprocess
    import sys

    script = tmp_path / "unguarded.py"
    script.write_text(
        "import multiprocessing as mp\n"
        "from drl._system import check_not_in_worker_import\n"
        "check_not_in_worker_import('drl.train')\n"
        "def noop():\n"
        "    pass\n"
        "p = mp.get_context('spawn').Process(target=noop)\n"
        "p.start(); p.join()\n"
        "print('worker exit code', p.exitcode)\n"
    )
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert "worker exit code 1" in out.stdout, out
    assert "drl.train was called while a worker process imported the script" in out.stderr
    assert 'if __name__ == "__main__":' in out.stderr
