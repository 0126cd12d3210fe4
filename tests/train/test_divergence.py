"""Diverged training is caught where it first appears: a non-finite loss term or gradient
in the learner, a non-finite network output in the evaluator (before the search sees
it), a damaged replay shard on loading, and settings that diverge by construction in the
config; the run folder stays resumable."""

import math

import numpy as np
import pytest
import torch

from drl.encode.actions import num_actions
from drl.encode.planes import N_CHANNELS
from drl.nn import NetOutput, NetworkEvaluator, TrainingDiverged, build
from drl.rules import Variant
from drl.search import SearchConfig
from drl.train.buffer import SampleBatch
from drl.train.learner import LossConfig, train_step
from drl.train.selfplay import SelfPlayActor, SelfPlayConfig

A8 = num_actions(8)


def _net(seed=0):
    torch.manual_seed(seed)
    return build(
        "resnet",
        in_channels=N_CHANNELS,
        board_size=8,
        num_actions=A8,
        channels=8,
        blocks=1,
        policy_channels=2,
        value_channels=1,
        value_hidden=16,
    )


def _sample(b=16, seed=0, **replace):
    rng = np.random.default_rng(seed)
    mask = np.zeros((b, A8), bool)
    mask[:, :5] = True
    policy = np.where(mask, 0.2, 0.0).astype(np.float32)
    fields = dict(
        obs=rng.integers(0, 2, (b, N_CHANNELS, 8, 8)).astype(np.float32),
        mask=mask,
        policy=policy,
        policy_weight=np.ones(b, np.float32),
        value=rng.choice([-1.0, 0.0, 1.0], b).astype(np.float32),
        pieces_left=np.full((b, 2), 0.5, np.float32),
        plies_left=np.full(b, 30.0, np.float32),
    )
    fields.update(replace)
    return SampleBatch(**fields)


def _state(net):
    return {k: v.detach().clone() for k, v in net.state_dict().items()}


def _same(a, b):
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


# -- learner --------------------------------------------------------------------------


def test_nan_target_is_named_and_never_reaches_the_weights():
    net = _net()
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
    train_step(net, opt, _sample(), LossConfig())
    before, opt_before = _state(net), opt.state_dict()["state"][0]["exp_avg"].clone()
    value = np.zeros(16, np.float32)
    value[3] = np.nan
    with pytest.raises(TrainingDiverged, match="loss term value_loss is nan") as info:
        train_step(net, opt, _sample(value=value), LossConfig())
    assert info.value.what == "loss term value_loss" and info.value.lr == 1e-3
    assert "lr 0.001" in str(info.value) and "Hint: lower train.lr" in str(info.value)
    # weights, batch-norm statistics and optimiser state are as before the call
    assert _same(_state(net), before)
    assert torch.equal(opt.state_dict()["state"][0]["exp_avg"], opt_before)
    train_step(net, opt, _sample(), LossConfig())  # and training goes on from there


def test_huge_learning_rate_is_caught_at_the_first_non_finite_loss():
    net = _net()
    opt = torch.optim.AdamW(net.parameters(), lr=1e20, weight_decay=0.0)
    with pytest.raises(TrainingDiverged) as info:
        for step in range(1, 11):
            before = _state(net)
            train_step(net, opt, _sample(seed=step), LossConfig())
    err = info.value
    assert err.what.startswith("loss term ") and err.lr == 1e20
    assert str(err).startswith("training diverged (lr 1e+20): loss term ")
    assert step == 2  # the first step takes the weights to about 1e20, the second overflows
    assert _same(_state(net), before)
    assert all(torch.isfinite(p).all() for p in net.parameters())


class _SqrtValue(torch.nn.Module):
    """A finite loss whose gradient is infinite: value = sqrt(s) at s = 0."""

    arch = "test"
    config = None

    def __init__(self):
        super().__init__()
        self.s = torch.nn.Parameter(torch.zeros(()))
        self.w = torch.nn.Parameter(torch.zeros(A8))

    def forward(self, obs):
        b = len(obs)
        return NetOutput(policy_logits=self.w.expand(b, A8), value=torch.sqrt(self.s).expand(b))


@pytest.mark.parametrize("grad_clip", [5.0, 0.0])
def test_infinite_gradient_with_a_finite_loss_is_refused(grad_clip):
    net = _SqrtValue()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    with pytest.raises(TrainingDiverged, match="gradient norm is inf") as info:
        train_step(
            net, opt, _sample(value=np.ones(16, np.float32)), LossConfig(grad_clip=grad_clip)
        )
    assert info.value.what == "gradient norm" and "lr 0.1" in str(info.value)
    assert float(net.s.detach()) == 0.0 and torch.all(net.w.detach() == 0)


# -- evaluator ------------------------------------------------------------------------


@pytest.mark.parametrize("output", ["value", "policy_logits"])
def test_nan_network_output_is_named_by_the_evaluator_not_the_search(output):
    net = _net()
    with torch.no_grad():
        head = net.value_out if output == "value" else net.policy_fc
        head.bias.fill_(math.nan)
    obs = np.zeros((3, N_CHANNELS, 8, 8), np.float32)
    with pytest.raises(TrainingDiverged, match=f"network output {output} is not finite"):
        NetworkEvaluator(net)(obs, np.ones((3, A8), bool))
    # self-play (search + network) stops at the same place, not at an "illegal step"
    actor = SelfPlayActor(
        [Variant.parse("english")],
        SearchConfig(num_simulations=4),
        SelfPlayConfig(games_in_flight=2, max_plies=20),
        seed=0,
    )
    with pytest.raises(TrainingDiverged, match=f"network output {output}") as info:
        actor.play(NetworkEvaluator(net), 1)
    assert info.value.what == f"network output {output}"
