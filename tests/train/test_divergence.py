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
from drl.nn import NetworkEvaluator, TrainingDiverged, build
from drl.rules import Variant
from drl.search import SearchConfig
from drl.train.buffer import SampleBatch
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
