"""Each setting is checked once, by the dataclass that holds it (``__post_init__``);
``train_settings`` and ``drl-train`` report that check under the config key."""

from __future__ import annotations

import math
import subprocess
import sys
import typing

import pytest
from omegaconf import OmegaConf

from drl.nn import NetConfig
from drl.search import SearchConfig
from drl.train.config import (
    DEVICES,
    Config,
    LoopCfg,
    RuntimeCfg,
    TrainEvalCfg,
    config_error,
    register_configs,
    train_settings,
)
from drl.train.learner import LossConfig
from drl.train.selfplay import SelfPlayConfig


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: SearchConfig(c_puct=-1.0), "c_puct=-1.0: must be >= 0"),
        (lambda: SearchConfig(fpu_reduction=math.nan), "fpu_reduction=nan: must be a finite"),
        (lambda: SearchConfig(gumbel_c_visit=0.0), "gumbel_c_visit=0.0: must be > 0"),
        (lambda: SearchConfig(gumbel_c_scale=-0.1), "gumbel_c_scale=-0.1: must be >= 0"),
        (
            lambda: SearchConfig(temperature_plies=2**31),
            "temperature_plies=2147483648: must lie in",
        ),
        (lambda: SearchConfig(root_selection="ucb"), "root_selection='ucb': must be puct or"),
        (lambda: SelfPlayConfig(max_plies=2**31), "max_plies=2147483648: must lie in [1, "),
        (lambda: LossConfig(grad_clip=-1.0), "grad_clip=-1.0: must be >= 0 (0 = no clipping)"),
        (lambda: LoopCfg(optimizer="adam"), "optimizer='adam': must be adamw or sgd"),
        (lambda: LoopCfg(momentum=1.0), "momentum=1.0: must lie in [0, 1)"),
        (lambda: LoopCfg(replay_window=2**63), "replay_window=9223372036854775808: must"),
        (lambda: TrainEvalCfg(openings=1001), "openings=1001: must lie in [0, 1000]"),
        (lambda: RuntimeCfg(name="spark"), "name='spark': must be local or ray"),
        (lambda: RuntimeCfg(cpus_per_actor=0.0), "cpus_per_actor=0.0: must lie in (0, 1024]"),
        (lambda: Config(device="gpu"), "device='gpu': must be auto, cpu or cuda"),
        (lambda: Config(seed=2**63), "seed=9223372036854775808: must lie in [0, "),
    ],
)
def test_each_dataclass_checks_its_own_settings(make, message):
    with pytest.raises(ValueError) as err:
        make()
    assert str(err.value).startswith(message)


def test_choices_are_literals_and_strings_for_hydra():
    assert typing.get_args(typing.get_type_hints(LoopCfg)["optimizer"]) == ("adamw", "sgd")
    assert typing.get_args(typing.get_type_hints(SearchConfig)["root_selection"]) == (
        "puct",
        "gumbel",
    )
    assert DEVICES == ("auto", "cpu", "cuda")
    register_configs()
    cfg = OmegaConf.structured(Config)
    cfg.device = "cpu"
    cfg.runtime.name = "ray"
    cfg.train.optimizer = "sgd"
    cfg.search.root_selection = "puct"
    built = OmegaConf.to_object(cfg)
    assert (built.device, built.runtime.name, built.train.optimizer) == ("cpu", "ray", "sgd")


def test_train_settings_reports_a_value_set_after_construction_under_its_key(tiny):
    cfg = tiny()
    cfg.runtime.actors = 0
    with pytest.raises(ValueError, match=r"^config runtime\.actors=0: must lie in \[1, 1024\]$"):
        train_settings(cfg)
    cfg = tiny()
    cfg.train.final_eval.simulations = 0
    with pytest.raises(ValueError, match=r"^config train\.final_eval\.simulations=0: must lie"):
        train_settings(cfg)


def test_config_error_names_the_key():
    keys = {"channels": ("model.channels", 0)}
    err = config_error(ValueError("channels=0: must be >= 1"), keys, "model")
    assert str(err) == "config model.channels=0: must be >= 1"
    err = config_error(ValueError("NetConfig.channels must lie in [1, 1024]"), keys, "model")
    assert str(err) == "config model.channels=0: NetConfig.channels must lie in [1, 1024]"
    assert str(config_error(ValueError("odd"), keys, "model")) == "config model: odd"
    with pytest.raises(ValueError, match=r"NetConfig\.channels must lie in \[1, 1024\]"):
        NetConfig(in_channels=1, board_size=8, num_actions=1, channels=0)


@pytest.mark.parametrize(
    "override, line",
    [
        # a node OmegaConf builds itself (its check runs as the config is read)
        ("runtime.actors=0", "config runtime.actors=0: must lie in [1, 1024]"),
        # a group built into the code's dataclass by train_settings
        ("search.c_puct=-1", "config search.c_puct=-1.0: must be >= 0"),
    ],
)
def test_drl_train_names_the_key_of_a_bad_value_in_one_line(tmp_path, override, line):
    run = tmp_path / "run"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "drl.cli.train",
            "variant=english",
            override,
            f"run_dir={run}",
            f"hydra.run.dir={tmp_path / 'hydra'}",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [f"drl-train: {line}"]
    assert not run.exists()
