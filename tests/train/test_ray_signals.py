"""Starting Ray keeps the caller's SIGINT and SIGTERM handlers.

``ray.init`` installs a SIGTERM handler of its own in the driver and leaves it there
after ``ray.shutdown()``. A stand-in ``ray`` module that does the same checks that
:class:`~drl.train.runtime.RayRuntime` puts the caller's handlers back, with or without
Ray installed.
"""

from __future__ import annotations

import signal
import sys
from unittest import mock

import pytest


def _fake_ray() -> mock.MagicMock:
    ray = mock.MagicMock(name="ray")
    ray.is_initialized.return_value = False

    def init(**_kwargs):
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(signal.SIGTERM))
        signal.signal(signal.SIGINT, lambda *_: None)

    ray.init.side_effect = init
    return ray


@pytest.mark.parametrize("handler", ["custom", "default"])
def test_ray_runtime_restores_the_callers_signal_handlers(tiny, handler):
    from drl.train.config import search_config, selfplay_config
    from drl.train.loop import build_network, run_variants
    from drl.train.runtime import RayRuntime

    def ours(*_):
        raise KeyboardInterrupt

    mine = ours if handler == "custom" else signal.SIG_DFL
    cfg = tiny()
    variants = run_variants(cfg)
    net = build_network(cfg, variants[0].board_size)
    old_term = signal.signal(signal.SIGTERM, mine)
    old_int = signal.getsignal(signal.SIGINT)
    try:
        ray = _fake_ray()
        modules = {"ray": ray, "ray._private": ray._private}
        with mock.patch.dict(sys.modules, modules):
            rt = RayRuntime(variants, search_config(cfg), selfplay_config(cfg), net, actors=1)
            rt.close()
        assert signal.getsignal(signal.SIGTERM) is mine
        assert signal.getsignal(signal.SIGINT) is old_int
    finally:
        signal.signal(signal.SIGTERM, old_term)
        signal.signal(signal.SIGINT, old_int)
