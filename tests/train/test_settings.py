"""The training configuration is converted once into TrainSettings, which the loop reads."""

from __future__ import annotations

import dataclasses

import pytest
from omegaconf import OmegaConf

from drl.rules import Variant
from drl.train.config import (
    loss_config,
    network_config,
    search_config,
    selfplay_config,
    train_settings,
    validate,
)
from tests.tiny_configs import tiny_config
from tests.train.test_config_schema import _compose


def test_settings_hold_what_the_conversions_give():
    cfg = OmegaConf.to_object(
        _compose("search=puct", "model=medium", "variant=international", "train.lr=0.5")
    )
    validate(cfg)
    s = train_settings(cfg)
    assert s.search == search_config(cfg)
    assert s.selfplay == selfplay_config(cfg)
    assert s.loss == loss_config(cfg)
    assert (s.arch, s.net_fields) == network_config(cfg, 10)
    assert s.board_size == 10 and s.loop.lr == 0.5
    assert s.variants == (Variant.parse("international"),)
    assert s.model == OmegaConf.to_container(OmegaConf.structured(cfg.model))
    assert OmegaConf.create(s.config_yaml) == OmegaConf.structured(cfg)


def test_settings_are_frozen_copies_of_the_config():
    cfg = tiny_config(variant="give_and_take")
    s = train_settings(cfg)
    assert [v.taker for v in s.variants] == ["black", "white"]  # both Taker colours
    cfg.train.iterations = 99
    cfg.train.eval.baselines.append("greedy")
    cfg.runtime.actors = 3
    assert s.loop.iterations == 2 and s.loop.eval.baselines == ["random"]
    assert s.runtime.actors == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.seed = 1  # type: ignore[misc]
    cfg.variant.alternate_roles = False
    assert len(train_settings(cfg).variants) == 1
