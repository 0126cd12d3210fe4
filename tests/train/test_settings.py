"""The training configuration is converted once into TrainSettings, which the loop reads."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest
from omegaconf import OmegaConf

from drl.nn import make_config
from drl.rules import Variant
from drl.train.config import (
    loss_config,
    network_config,
    search_config,
    selfplay_config,
    train_settings,
)
from tests.tiny_configs import tiny_config
from tests.train.test_config_schema import _compose


def test_settings_hold_what_the_conversions_give():
    cfg = OmegaConf.to_object(
        _compose("search=puct", "model=medium", "variant=international", "train.lr=0.5")
    )
    s = train_settings(cfg)
    assert s.search == search_config(cfg)
    assert s.selfplay == selfplay_config(cfg)
    assert s.loss == loss_config(cfg)
    assert (s.arch, s.net_fields) == network_config(cfg, 10)
    assert s.board_size == 10 and s.loop.lr == 0.5
    assert s.variants == (Variant.parse("international"),) == (s.variant,)
    assert s.net_config == make_config(s.arch, **s.net_fields)
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


def test_a_training_start_parses_the_variant_and_builds_each_setting_once(tmp_path, monkeypatch):
    """Following ``cfg`` from ``drl.train.loop.train`` to the loop: one conversion."""
    import drl.train.loop as loop
    from drl.nn import NetConfig
    from drl.search import SearchConfig
    from drl.train.config import LoopCfg, RuntimeCfg, TrainEvalCfg
    from drl.train.learner import LossConfig
    from drl.train.selfplay import SelfPlayConfig

    cfg = tiny_config(variant="give_and_take")  # built before counting starts
    calls: Counter[str] = Counter()
    made: dict[str, list] = {}
    parse = Variant.parse.__func__  # type: ignore[attr-defined]

    def counted_parse(cls, text):
        calls["Variant.parse"] += 1
        return parse(cls, text)

    monkeypatch.setattr(Variant, "parse", classmethod(counted_parse))
    classes = [SearchConfig, SelfPlayConfig, LossConfig, LoopCfg, TrainEvalCfg, RuntimeCfg]
    for cls in [*classes, NetConfig]:
        init = cls.__init__

        def counted_init(self, *args, _init=init, _name=cls.__name__, **kwargs):
            calls[_name] += 1
            made.setdefault(_name, []).append(self)
            _init(self, *args, **kwargs)

        monkeypatch.setattr(cls, "__init__", counted_init)
    reached = []
    monkeypatch.setattr(loop, "_train", lambda s, run_dir, lock=None: reached.append(s))
    loop.train(cfg, tmp_path / "run")
    assert dict(calls) == {
        "Variant.parse": 1,
        "SearchConfig": 1,
        "SelfPlayConfig": 1,
        "LossConfig": 1,
        "LoopCfg": 1,
        "TrainEvalCfg": 2,  # train.eval and train.final_eval
        "RuntimeCfg": 1,
        "NetConfig": 1,
    }
    (s,) = reached  # the loop gets the objects built, not copies made again
    assert s.search is made["SearchConfig"][0] and s.loop is made["LoopCfg"][0]
    assert s.net_config is made["NetConfig"][0]
    assert [s.loop.eval, s.loop.final_eval] == made["TrainEvalCfg"]
    # settings already converted (as drl-train passes them) are not converted again
    calls.clear()
    loop.train(s, tmp_path / "run2")
    assert not calls and reached[-1] is s
