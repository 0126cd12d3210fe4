"""torch's FakeTensor statistics, logged at exit, stay out of the commands' output."""

from __future__ import annotations

import logging

import pytest


def test_torch_exit_statistics_are_not_logged_under_an_info_root(monkeypatch, caplog, capfd):
    import torch._subclasses.fake_tensor as fake_tensor

    from drl.cli._torch_logs import quiet_torch_exit_logs

    logger = logging.getLogger("torch._subclasses.fake_tensor")
    monkeypatch.setattr(logger, "level", logging.NOTSET)
    monkeypatch.setattr(logging.getLogger("torch"), "level", logging.INFO)  # as under Hydra
    monkeypatch.delenv("TORCH_LOGS", raising=False)
    with caplog.at_level(logging.INFO):
        fake_tensor.dump_cache_stats()
        said = caplog.text + "".join(capfd.readouterr())
        assert "FakeTensor cache stats" in said  # what an interrupted eval printed
        caplog.clear()
        quiet_torch_exit_logs()
        fake_tensor.dump_cache_stats()
    assert "FakeTensor" not in caplog.text + "".join(capfd.readouterr())


@pytest.mark.parametrize("module", ["drl.cli.eval", "drl.cli.train", "drl.cli.play"])
def test_every_hydra_command_quiets_them_on_its_way_out(module):
    import importlib
    import inspect

    source = inspect.getsource(importlib.import_module(module).main)
    assert "quiet_torch_exit_logs()" in source
