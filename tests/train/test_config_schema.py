"""The Hydra schema is derived from the code's dataclasses: every default lives there once,
the YAML files only state what differs, and a new field or architecture just appears."""

import dataclasses
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from omegaconf import OmegaConf
from torch import nn

import drl.nn.registry as registry
from drl.cli._configs import VariantCfg, config_dir
from drl.cli.eval import EvalConfig
from drl.nn import INPUT_FIELDS, NetConfig, NetOutput, register_arch
from drl.nn.config import SparseConfig
from drl.search import SearchConfig
from drl.train.config import (
    Config,
    LoopCfg,
    RuntimeCfg,
    loss_config,
    model_node,
    network_config,
    register_configs,
    search_config,
    selfplay_config,
    train_settings,
)
from drl.train.learner import LossConfig
from drl.train.loop import build_network
from drl.train.selfplay import SelfPlayConfig

CONFIGS = Path(config_dir())
LABELS = {"name", "spec"}  # say which option a file is, never a default


def _compose(*overrides, name="config"):
    register_configs()
    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=str(CONFIGS), version_base="1.3"):
        return compose(config_name=name, overrides=list(overrides))


def _defaults(cls):
    out = {}
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            out[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            out[f.name] = f.default_factory()
    return out


def _code_defaults():
    """``(group, key) -> default`` from the dataclasses the code uses."""
    out = {}
    out.update({("search", k): v for k, v in _defaults(SearchConfig).items()})
    out.update({("model", k): v for k, v in _defaults(SparseConfig).items()})
    for cls in (LoopCfg, SelfPlayConfig, LossConfig):
        out.update({("train", k): v for k, v in _defaults(cls).items() if k != "max_plies"})
    out[("variant", "max_plies")] = SelfPlayConfig.max_plies
    out.update({("runtime", k): v for k, v in _defaults(RuntimeCfg).items() if k != "name"})
    return out


def _plain(value):
    if dataclasses.is_dataclass(value):
        return OmegaConf.to_container(OmegaConf.structured(value))
    return value


def test_composed_defaults_are_the_code_defaults():
    # the groups whose options add nothing: model=sparse, search=gumbel, train=default
    cfg = _compose()
    assert cfg.model.name == "sparse" and cfg.search.name == "gumbel"
    assert cfg.train.name == "default" and cfg.runtime.name == "local"
    for (group, key), default in _code_defaults().items():
        got = OmegaConf.to_container(cfg[group])[key]
        assert got == _plain(default), f"{group}.{key}: composed {got!r}, code {default!r}"
    # model=small (the residual network) adds nothing to NetConfig's defaults either
    small = OmegaConf.to_container(_compose("model=small").model)
    for key, default in _defaults(NetConfig).items():
        assert small[key] == _plain(default), f"model.{key}: composed {small[key]!r}"


def test_schema_fields_are_the_code_fields():
    cfg = Config()
    names = {
        g: {
            f.name
            for f in dataclasses.fields(getattr(cfg, g) if g != "model" else model_node("resnet"))
        }
        for g in ("search", "train", "model")
    }
    assert names["search"] - {"name"} == {f.name for f in dataclasses.fields(SearchConfig)}
    assert names["model"] - {"name", "arch"} == (
        {f.name for f in dataclasses.fields(NetConfig)} - set(INPUT_FIELDS)
    )
    code = set().union(
        *({f.name for f in dataclasses.fields(c)} for c in (LoopCfg, SelfPlayConfig, LossConfig))
    )
    assert names["train"] - {"name"} == code - {"max_plies"}


def test_conversions_pass_every_field():
    cfg = OmegaConf.to_object(
        _compose(
            "search=puct",
            "model=medium",
            "train.lr=0.5",
            "search.temperature=0.5",
            "variant=international",
            "train.aux_loss_weight=0.3",
        )
    )
    train_settings(cfg)
    s = search_config(cfg)
    assert (s.root_selection, s.num_simulations, s.temperature) == ("puct", 64, 0.5)
    assert search_config(cfg, simulations=7).num_simulations == 7
    sp = selfplay_config(cfg)
    assert sp.max_plies == 300
    assert loss_config(cfg).aux_loss_weight == 0.3
    arch, fields = network_config(cfg, 10)
    assert arch == "resnet" and fields["channels"] == 64 and fields["num_actions"] == 1800


def _yaml_files():
    return sorted(p for p in CONFIGS.rglob("*.yaml"))


def _schema_defaults(path: Path):
    """The schema defaults a config file is merged onto (as plain containers)."""
    rel = path.relative_to(CONFIGS)
    if rel == Path("config.yaml"):
        return OmegaConf.to_container(OmegaConf.structured(Config()))
    if rel == Path("eval.yaml"):
        return OmegaConf.to_container(OmegaConf.structured(EvalConfig()))
    group = rel.parts[0]
    node = {"model": model_node("resnet")(), "variant": VariantCfg()}.get(group)
    if node is None:
        node = getattr(Config(), group)
    return OmegaConf.to_container(OmegaConf.structured(node))


def _restated(data, defaults, prefix=""):
    out = []
    for key, value in data.items():
        if key in ("defaults", "hydra") or (not prefix and key in LABELS):
            continue
        default = defaults.get(key, object())
        if isinstance(value, dict) and isinstance(default, dict):
            out += _restated(value, default, f"{prefix}{key}.")
        elif value == default:
            out.append(f"{prefix}{key}: {value!r}")
    return out


@pytest.mark.parametrize("path", _yaml_files(), ids=lambda p: str(p.relative_to(CONFIGS)))
def test_config_files_state_only_what_differs_from_the_defaults(path):
    data = yaml.safe_load(path.read_text()) or {}
    restated = _restated(data, _schema_defaults(path))
    assert not restated, (
        f"{path.relative_to(CONFIGS)} repeats code defaults (delete these lines): {restated}"
    )


def test_restating_a_default_is_flagged():
    assert _restated(
        {"name": "x", "c_puct": 1.5, "num_simulations": 64},
        _schema_defaults(CONFIGS / "search" / "puct.yaml"),
    ) == ["c_puct: 1.5"]


@pytest.mark.parametrize(
    "override, says",
    [
        ("model.chanels=3", "chanels"),
        ("search.c_pcut=1", "c_pcut"),
        ("train.iteratons=3", "iteratons"),
        ("model=huge", "huge"),
    ],
)
def test_typos_are_rejected_when_composing(override, says):
    with pytest.raises(Exception, match=says):
        _compose(override)


def test_the_documented_command_line_composes():
    cfg = OmegaConf.to_object(
        _compose("variant=english", "model=medium", "search=puct", "train.iterations=50")
    )
    train_settings(cfg)
    assert (
        cfg.variant.spec,
        cfg.model.channels,
        cfg.search.root_selection,
        cfg.train.iterations,
    ) == ("english", 64, "puct", 50)


def test_train_settings_reports_code_range_checks_by_key():
    cfg = OmegaConf.to_object(_compose("model=small", "model.channels=0"))
    with pytest.raises(
        ValueError, match=r"config model.channels=0: NetConfig.channels must lie in \[1, 1024\]"
    ):
        train_settings(cfg)
    cfg = OmegaConf.to_object(_compose("model.hidden=0"))
    with pytest.raises(
        ValueError, match=r"config model.hidden=0: SparseConfig.hidden must lie in \[1, 4096\]"
    ):
        train_settings(cfg)
    cfg = OmegaConf.to_object(_compose("search.dirichlet_alpha=0"))
    with pytest.raises(ValueError, match=r"config search.dirichlet_alpha=0.0: must be > 0"):
        train_settings(cfg)
    cfg = OmegaConf.to_object(_compose("model.arch=transformer"))
    with pytest.raises(ValueError, match=r"model.arch='transformer'.*registered: resnet"):
        train_settings(cfg)


@dataclass(frozen=True)
class WideConfig:
    in_channels: int
    board_size: int
    num_actions: int
    width: int = 12


class WideNet(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.fc = nn.Linear(config.in_channels * config.board_size**2, config.num_actions)

    def forward(self, obs):
        return NetOutput(self.fc(obs.flatten(1)), obs.new_zeros(len(obs)))


def test_a_registered_arch_is_a_model_option_with_its_own_fields(monkeypatch):
    monkeypatch.setattr(registry, "_ARCHS", dict(registry._ARCHS))
    register_arch("wide", WideNet, WideConfig)
    cfg = OmegaConf.to_object(_compose("model=wide", "model.width=5"))
    train_settings(cfg)
    assert (cfg.model.arch, cfg.model.width) == ("wide", 5)
    net = build_network(cfg, 8)
    assert isinstance(net, WideNet) and net.config.width == 5
    with pytest.raises(Exception, match="channels"):
        _compose("model=wide", "model.channels=8")
