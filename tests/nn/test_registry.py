"""Network registry: build by name, a new architecture in one call, checkpoints rebuilt
and refused with errors that name both sides."""

from dataclasses import dataclass

import numpy as np
import pytest
import torch
from torch import nn

import drl.nn.registry as registry
from drl.nn import (
    NetOutput,
    PolicyValueModel,
    PolicyValueNet,
    build,
    check_compatible,
    describe,
    load,
    register_arch,
    registered_archs,
)
from drl.train.buffer import SampleBatch
from drl.train.learner import LossConfig, train_step

SMALL = dict(in_channels=5, board_size=8, num_actions=896, channels=8, blocks=1)


@dataclass(frozen=True)
class ToyConfig:
    in_channels: int
    board_size: int
    num_actions: int
    hidden: int = 16


class ToyNet(nn.Module):
    """A linear policy and value with no auxiliary heads."""

    def __init__(self, config: ToyConfig) -> None:
        super().__init__()
        self.config = config
        n = config.in_channels * config.board_size**2
        self.body = nn.Sequential(nn.Flatten(), nn.Linear(n, config.hidden), nn.ReLU())
        self.policy = nn.Linear(config.hidden, config.num_actions)
        self.value = nn.Linear(config.hidden, 1)

    def forward(self, obs):
        h = self.body(obs)
        return NetOutput(self.policy(h), torch.tanh(self.value(h)).squeeze(1))


@pytest.fixture
def toy(monkeypatch):
    """Register ``toy`` for one test only."""
    monkeypatch.setattr(registry, "_ARCHS", dict(registry._ARCHS))
    register_arch("toy", ToyNet, ToyConfig)
    return "toy"


def _payload(net):
    return {"model": net.state_dict(), **describe(net)}


def test_resnet_is_registered_and_built_by_default():
    assert "resnet" in registered_archs()
    net = build(**SMALL)
    assert isinstance(net, PolicyValueNet) and net.arch == "resnet"
    assert isinstance(net, PolicyValueModel)
    assert describe(net)["net_config"]["channels"] == 8


def test_unknown_arch_lists_the_registered_ones(toy):
    with pytest.raises(
        ValueError,
        match=r"unknown network architecture 'transformer'; "
        r"registered: resnet, sparse, toy",
    ):
        build("transformer", **SMALL)


def test_bad_fields_are_named():
    with pytest.raises(ValueError, match=r"has no config field\(s\) \['chanels'\]"):
        build("resnet", in_channels=5, board_size=8, num_actions=896, chanels=3)
    with pytest.raises(ValueError, match=r"needs the config field\(s\) \['num_actions'\]"):
        build("resnet", in_channels=5, board_size=8)


def test_register_rejects_duplicates_and_config_without_input_fields(toy):
    with pytest.raises(ValueError, match="already registered"):
        register_arch("toy", ToyNet, ToyConfig)

    @dataclass
    class NoBoard:
        in_channels: int
        num_actions: int

    with pytest.raises(ValueError, match=r"lacks the fields \['board_size'\]"):
        register_arch("flat", ToyNet, NoBoard)


def test_a_registered_toy_arch_trains_one_learner_step(toy):
    torch.manual_seed(0)
    net = build(toy, in_channels=5, board_size=8, num_actions=896)
    assert isinstance(net, ToyNet) and net.arch == "toy"
    rng = np.random.default_rng(0)
    b = 6
    mask = np.zeros((b, 896), bool)
    mask[:, :4] = True
    policy = np.where(mask, 0.25, 0.0).astype(np.float32)
    batch = SampleBatch(
        obs=rng.standard_normal((b, 5, 8, 8)).astype(np.float32),
        mask=mask,
        policy=policy,
        policy_weight=np.ones(b, np.float32),
        value=np.linspace(-1, 1, b).astype(np.float32),
        pieces_left=np.full((b, 2), 0.5, np.float32),
        plies_left=np.full(b, 10.0, np.float32),
    )
    before = {k: v.clone() for k, v in net.state_dict().items()}
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    out = train_step(net, opt, batch, LossConfig())
    assert np.isfinite(out["loss"]) and out["aux_pieces_loss"] == 0.0
    assert any(not torch.equal(before[k], v) for k, v in net.state_dict().items())


def test_load_rebuilds_the_stored_arch(toy):
    torch.manual_seed(1)
    net = build(toy, in_channels=5, board_size=8, num_actions=896, hidden=4)
    again = load(_payload(net), board_size=8)
    assert isinstance(again, ToyNet) and again.config.hidden == 4 and not again.training
    x = torch.randn(2, 5, 8, 8)
    assert torch.equal(net.eval()(x).policy_logits, again(x).policy_logits)


def test_old_checkpoint_without_arch_loads_as_resnet():
    net = build(**SMALL)
    payload = _payload(net)
    del payload["arch"]
    assert isinstance(load(payload), PolicyValueNet)


def test_checkpoint_of_another_board_size_is_refused():
    ten = build(in_channels=5, board_size=10, num_actions=1800, channels=8, blocks=1)
    with pytest.raises(
        ValueError,
        match=r"checkpoint holds arch 'resnet' for 10x10 boards; "
        r"this game is played on 8x8 boards",
    ):
        load(_payload(ten), board_size=8)
    eight = describe(build(**SMALL))
    with pytest.raises(
        ValueError,
        match=r"checkpoint holds arch 'resnet' for 10x10 boards; "
        r"this run is arch 'resnet' for 8x8 boards",
    ):
        check_compatible(_payload(ten), eight["arch"], eight["net_config"])


def test_checkpoint_of_another_arch_or_size_is_refused(toy):
    toy_net = build(toy, in_channels=5, board_size=8, num_actions=896)
    want = describe(build(**SMALL))
    with pytest.raises(
        ValueError,
        match=r"holds arch 'toy' for 8x8 boards; this run is arch "
        r"'resnet' for 8x8 boards",
    ):
        check_compatible(_payload(toy_net), want["arch"], want["net_config"])
    wider = _payload(build(**{**SMALL, "channels": 16}))
    with pytest.raises(ValueError, match=r"channels=16; this run asks for channels=8"):
        check_compatible(wider, want["arch"], want["net_config"])


def test_weights_that_do_not_fit_the_stored_config_are_named():
    payload = _payload(build(**SMALL))
    payload["net_config"] = {**payload["net_config"], "channels": 16}
    with pytest.raises(
        ValueError,
        match=r"weights do not fit its arch 'resnet' with "
        r"net_config .*'channels': 16",
    ):
        load(payload)


def test_checkpoint_of_an_unregistered_arch_is_named():
    payload = {**_payload(build(**SMALL)), "arch": "mystery"}
    with pytest.raises(
        ValueError,
        match=r"unknown network architecture 'mystery'; "
        r"registered: resnet",
    ):
        load(payload)
