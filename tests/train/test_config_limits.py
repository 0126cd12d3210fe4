"""Every number of the training config has an upper bound, checked before the run folder
is touched: ints by their range (the machine's integer types, the network's sizes), the
counts that size arrays also against the memory available, with the limit named."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys

import pytest

from drl.train.config import (
    MEMORY_KEYS,
    check_memory,
    memory_estimate,
    model_node,
    setting,
    train_settings,
    with_setting,
)
from drl.train.loop import train


def _set(cfg, key, value):
    node = cfg
    *path, last = key.split(".")
    for part in path:
        node = getattr(node, part)
    setattr(node, last, value)


def _numbers(node, prefix=""):
    """``(dotted key, value)`` of every int and float leaf of a config dataclass."""
    out = []
    for f in dataclasses.fields(node):
        value = getattr(node, f.name)
        key = f"{prefix}{f.name}"
        if dataclasses.is_dataclass(value):
            out += _numbers(value, key + ".")
        elif isinstance(value, int | float) and not isinstance(value, bool):
            out.append((key, value))
    return out


def _int_keys(cfg):
    return [k for k, v in _numbers(cfg) if isinstance(v, int)]


@pytest.mark.parametrize("arch", ["resnet", "sparse"])
def test_every_int_key_refuses_a_huge_value_by_name(tiny, arch):
    base = tiny(variant="english")
    if arch == "sparse":
        base.model = model_node("sparse")()
    keys = _int_keys(base)
    assert {"seed", "train.games_in_flight", "variant.max_plies"} <= set(keys)
    assert any(k.startswith("model.") for k in keys)
    for key in keys:
        cfg = tiny(variant="english")
        cfg.model = dataclasses.replace(base.model)
        _set(cfg, key, 10**30)
        with pytest.raises(ValueError, match=rf"^config {re.escape(key)}={10**30}: "):
            train_settings(cfg)


def test_the_model_sizes_have_tops(tiny):
    cfg = tiny(variant="english")
    cfg.model.blocks = 100_000  # took gigabytes and minutes to build
    with pytest.raises(ValueError, match=r"config model.blocks=100000: .*must lie in \[0, 256\]"):
        train_settings(cfg)


@pytest.mark.parametrize(
    "key, value",
    [
        ("train.games_in_flight", 10**9),
        ("variant.max_plies", 10**9),
        ("search.num_simulations", 10**9),
        ("train.replay_window", 10**13),
    ],
)
def test_counts_that_allocate_are_refused_with_a_limit_from_memory(tiny, key, value):
    cfg = tiny(variant="english")
    _set(cfg, key, value)
    with pytest.raises(ValueError, match=rf"^config {key}={value}: must be <= \d+ on this machine"):
        train_settings(cfg)
    with pytest.raises(ValueError) as info:
        train_settings(cfg)
    assert "is available (" in str(info.value) and "selfplay" in str(info.value)


def test_the_memory_limit_is_the_largest_value_that_fits(tiny):
    s = with_setting(train_settings(tiny(variant="english")), "train.games_in_flight", 10**6)
    room = 2**30
    with pytest.raises(ValueError, match=r"test figure") as info:
        check_memory(s, available=(room, "test figure"))
    msg = str(info.value)
    assert msg.startswith("config train.games_in_flight=1000000: must be <= ")
    limit = int(msg.split("must be <= ")[1].split()[0])
    need = lambda n: sum(memory_estimate(with_setting(s, "train.games_in_flight", n)).values())  # noqa: E731
    assert need(limit) <= room < need(limit + 1)
    check_memory(with_setting(s, "train.games_in_flight", limit), available=(room, "test figure"))


def test_every_key_that_sizes_arrays_changes_the_estimate(tiny):
    cfg = tiny(variant="english")
    cfg.train.eval.every = 1
    s = train_settings(cfg)
    base = sum(memory_estimate(s).values())
    for key in (*MEMORY_KEYS, "model.channels", "model.blocks"):
        more = sum(memory_estimate(with_setting(s, key, int(setting(s, key)) * 4 + 4)).values())
        assert more > base, key


def test_a_setting_is_read_and_replaced_by_its_config_key(tiny):
    cfg = tiny(variant="english")
    s = train_settings(cfg)
    for key, value in _numbers(cfg):
        if key.split(".")[0] in ("seed", "threads", "runtime"):
            continue  # not sized by memory: read from the settings' own fields
        assert setting(s, key) == value, key
    t = with_setting(s, "train.eval.games", 12)
    assert (t.loop.eval.games, s.loop.eval.games) == (12, cfg.train.eval.games)
    assert with_setting(s, "variant.max_plies", 9).selfplay.max_plies == 9
    assert with_setting(s, "model.channels", 4).net_config.channels == 4
    with pytest.raises(ValueError, match="batch_size"):
        with_setting(s, "train.batch_size", 0)
    with pytest.raises(KeyError):
        with_setting(s, "train.no_such_key", 1)


@pytest.mark.parametrize(
    "key, value",
    [("seed", 10**23), ("train.games_in_flight", 10**9), ("variant.max_plies", 10**9)],
)
def test_train_refuses_before_the_run_folder_is_created(tmp_path, tiny, key, value):
    cfg = tiny(variant="english")
    _set(cfg, key, value)
    run = tmp_path / "run"
    with pytest.raises(ValueError, match=rf"^config {key}={value}: must"):
        train(cfg, run)
    assert not run.exists()


def test_drl_train_names_the_key_in_one_line_and_writes_nothing(tmp_path):
    run = tmp_path / "run"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "drl.cli.train",
            "variant=english",
            "model=tiny",
            "train=tiny",
            "train.games_in_flight=1000000000",
            f"run_dir={run}",
            f"hydra.run.dir={tmp_path / 'hydra'}",
            "progress=false",
            "tensorboard=false",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert lines[0].startswith("drl-train: config train.games_in_flight=1000000000: must be <=")
    assert not run.exists()
