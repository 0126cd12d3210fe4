"""The sparse network: its torch twin and the compiled forward pass agree, and the search
with the network inside builds the same trees as the batched search through the twin.

Positions come from random play in every preset and the Give and Take variations
(both roles, multi-jumps in progress included); the twin reads the stored planes, the
compiled pass reads the bitboards.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from drl import nn as drl_nn
from drl.encode.actions import num_actions
from drl.encode.features import MAX_ACTIVE, active_features, num_features, plane_index
from drl.encode.planes import CH_OWN_GIVE, N_CHANNELS
from drl.encode.sparse_net import evaluate_position, logit, make_scratch
from drl.game import kernels as G
from drl.nn import NetworkEvaluator, TrainingDiverged
from drl.rules import Variant
from drl.rules.core import MOVE_WIDTH, STATE_SIZE, initial_state
from drl.search import BatchedMCTS, Roots, SearchConfig

VARIANTS = [
    "english",
    "russian",
    "brazilian",
    "international",
    "giveaway",
    "losing",
    "give_and_take",
    "give_and_take:taker=white",
    "give_and_take:max_capture=true",
    "give_and_take:objectives=give/give",
    "give_and_take:promotion_mid_capture=continue_as_king",
    "give_and_take:board_size=10",
]
POSITIONS = 1000


def random_positions(variant: Variant, count: int, seed: int = 0) -> np.ndarray:
    """``int64[count, POS_SIZE]`` positions of random games, one per step (multi-jumps in
    progress included), games restarted when over or past 150 plies."""
    params = np.ascontiguousarray(variant.params)
    rng = np.random.default_rng(seed)
    moves, played = G.move_buffer(), np.zeros(MOVE_WIDTH, np.int64)
    mask = np.zeros(num_actions(variant.board_size), np.bool_)
    pos, hist = G.new_pos(), np.zeros(512, np.int64)
    out = []
    while len(out) < count:
        if G.is_over(pos) or pos[9] >= 150 or not out:
            hist[:] = 0
            G.start(pos, initial_state(params), params, moves, hist)
        out.append(pos.copy())
        G.generate(pos, params, moves)
        G.legal_mask(pos, params, moves, mask)
        G.step(pos, params, moves, hist, int(rng.choice(np.flatnonzero(mask))), played)
    return np.stack(out)


def sparse_net(board_size: int, seed: int = 0) -> torch.nn.Module:
    """A sparse network whose weights are far from zero (so values and logits vary)."""
    torch.manual_seed(seed)
    net = drl_nn.build(
        "sparse",
        in_channels=N_CHANNELS,
        board_size=board_size,
        num_actions=num_actions(board_size),
        hidden=64,
        hidden2=16,
    )
    with torch.no_grad():
        for p in net.parameters():
            p.normal_(0.0, 0.3)
    return net.eval()


def planes(pos: np.ndarray, params: np.ndarray, n: int) -> np.ndarray:
    obs = np.zeros((len(pos), N_CHANNELS, n, n), np.float32)
    for i, p in enumerate(pos):
        G.observe(p, params, -1, obs[i])
    return obs


def compiled(pos, params, weights, board_size):
    """Dense features, values and {step: logit} per position, from the compiled code."""
    scratch = make_scratch(weights)
    moves, steps = G.move_buffer(), np.zeros(2048, np.int64)
    feats = np.zeros((len(pos), num_features(board_size)), np.float32)
    values = np.zeros(len(pos), np.float32)
    legal = []
    for i, p in enumerate(pos):
        args = (
            p[:STATE_SIZE],
            params,
            p[G.G_PREFIX : G.G_PREFIX + G.MAX_STEPS],
            p[G.G_PLEN],
            p[G.G_REPS],
        )
        k = active_features(*args, scratch.idx, scratch.val)
        assert k <= MAX_ACTIVE
        feats[i, scratch.idx[:k]] = scratch.val[:k]
        values[i] = evaluate_position(*args, weights, scratch)
        G.generate(p, params, moves)
        n = G.legal_step_list(p, params, moves, steps)
        legal.append({int(a): logit(weights, scratch, a) for a in steps[:n]})
    return feats, values, legal


@pytest.mark.parametrize("spec", VARIANTS)
def test_twin_and_compiled_forward_agree(spec):
    v = Variant.parse(spec)
    n, params = v.board_size, np.ascontiguousarray(v.params)
    pos = random_positions(v, POSITIONS)
    mid_capture = pos[:, G.G_PLEN] > 0
    assert mid_capture.sum() >= 5, "random play gave too few multi-jumps in progress"
    net = sparse_net(n)
    obs = planes(pos, params, n)
    feats, values, legal = compiled(pos, params, net.compiled_weights(), n)

    gathered = obs.reshape(len(obs), -1)[:, plane_index(n)]
    np.testing.assert_array_equal(gathered, feats)
    with torch.no_grad():
        out = net(torch.from_numpy(obs))
    np.testing.assert_allclose(values, out.value.numpy(), atol=1e-4, rtol=0)
    assert np.std(values) > 0.05, "the test network's values do not vary"
    logits = out.policy_logits.numpy()
    mask = np.zeros(num_actions(n), np.bool_)
    moves = G.move_buffer()
    for i, row in enumerate(legal):
        G.generate(pos[i], params, moves)
        G.legal_mask(pos[i], params, moves, mask)
        assert sorted(row) == np.flatnonzero(mask).tolist()  # the list form of the mask
        got = np.array(list(row.values()), np.float32)
        np.testing.assert_allclose(got, logits[i, list(row)], atol=1e-4, rtol=0)
    if v.is_asymmetric and v.objectives == ("take", "give"):
        own_give = obs[:, CH_OWN_GIVE, 0, 1]
        assert {0.0, 1.0} <= set(own_give.tolist()), "both roles to move"


class _Planes:
    """The same network through the batched path (no compiled_weights)."""

    def __init__(self, evaluator: NetworkEvaluator) -> None:
        self.evaluator = evaluator

    def __call__(self, obs, mask):
        return self.evaluator(obs, mask)


def _roots(spec: str, count: int) -> tuple[Roots, int]:
    v = Variant.parse(spec)
    pos = random_positions(v, 400, seed=3)
    live = [p for p in pos if not G.is_over(p)]
    pick = [p for p in live if p[G.G_PLEN] > 0][: count // 2]
    pick += live[:: max(1, len(live) // (count - len(pick)))][: count - len(pick)]
    roots = Roots(
        states=np.stack([p[:STATE_SIZE] for p in pick]),
        prefixes=np.stack([p[G.G_PREFIX : G.G_PREFIX + G.MAX_STEPS] for p in pick]),
        prefix_lens=np.array([p[G.G_PLEN] for p in pick]),
        repetitions=np.array([p[G.G_REPS] for p in pick]),
        params=np.stack([v.params] * len(pick)),
        history=np.zeros((len(pick), 1), np.int64),
        history_len=np.zeros(len(pick), np.int64),
    )
    return roots, v.board_size


@pytest.mark.parametrize("mode", ["puct", "gumbel"])
@pytest.mark.parametrize("spec", ["give_and_take", "international"])
def test_search_with_the_network_inside_builds_the_batched_trees(spec, mode):
    roots, n = _roots(spec, 12)
    ev = NetworkEvaluator(sparse_net(n))
    cfg = SearchConfig(num_simulations=40, root_selection=mode)
    inline = BatchedMCTS(cfg, len(roots.states), n, edge_capacity=8)  # grows mid-search
    batched = BatchedMCTS(cfg, len(roots.states), n)
    a = inline.run(roots, ev, np.random.default_rng(5), explore=True)
    b = batched.run(roots, _Planes(ev), np.random.default_rng(5), explore=True)
    assert inline.edge_capacity > 8
    assert a.net_batches == 0 and b.net_batches > 1
    assert a.leaf_evals == b.leaf_evals
    np.testing.assert_array_equal(a.visits, b.visits)
    np.testing.assert_allclose(a.q, b.q, atol=1e-5)
    np.testing.assert_allclose(a.root_value, b.root_value, atol=1e-5)
    np.testing.assert_array_equal(inline.tree.num_nodes, batched.tree.num_nodes)


def test_weights_are_exported_again_after_they_change():
    net = sparse_net(8)
    first = net.compiled_weights()
    again = net.compiled_weights()
    assert all(x is not y for x, y in zip(first, again, strict=True))  # never shared
    first.w1[:] = 123.0  # a caller writing into its export changes nobody else's
    assert not (net.compiled_weights().w1 == 123.0).any()
    # every way of writing the parameters is seen, .data and fused steps included
    net.fc1.weight.data.mul_(0)
    assert not net.compiled_weights().w1.any()
    net.fc2.weight.data = torch.ones_like(net.fc2.weight)
    assert (net.compiled_weights().w2 == 1).all()
    first = net.compiled_weights()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    out = net(torch.zeros(2, N_CHANNELS, 8, 8))
    (out.value.sum() + out.policy_logits.sum()).backward()
    opt.step()
    second = net.compiled_weights()
    assert second is not first
    assert not np.array_equal(second.b1, first.b1)
    other = sparse_net(8, seed=1)
    net.load_state_dict(other.state_dict())
    np.testing.assert_array_equal(net.compiled_weights().w1, other.compiled_weights().w1)


def test_diverged_weights_stop_the_search_with_a_named_error():
    net = sparse_net(8)
    with torch.no_grad():
        net.fc2.weight[0, 0] = float("nan")
    with pytest.raises(TrainingDiverged, match="weight w2 of the network is not finite"):
        NetworkEvaluator(net).compiled_weights()


def test_finite_weights_whose_outputs_overflow_stop_the_inline_search():
    """Weights that pass the finite check can still overflow float32 inside the forward
    pass: the compiled search names the diverged output instead of failing later (an
    'illegal step' from NaN priors)."""
    net = sparse_net(8)
    with torch.no_grad():
        net.fc1.weight.fill_(3e38)
        net.fc1.bias.fill_(3e38)
        net.fc2.weight.fill_(1.0)
    roots, n = _roots("english", 2)
    mcts = BatchedMCTS(SearchConfig(num_simulations=8), len(roots.states), n)
    with pytest.raises(TrainingDiverged, match="network output (value|policy_logits) is not"):
        mcts.run(roots, NetworkEvaluator(net), np.random.default_rng(0))


def test_checkpoint_round_trip_keeps_the_compiled_network():
    net = sparse_net(10)
    payload = {**drl_nn.describe(net), "model": net.state_dict()}
    back = drl_nn.load(payload)
    assert back.arch == "sparse" and back.config == net.config
    for x, y in zip(net.compiled_weights(), back.compiled_weights(), strict=True):
        np.testing.assert_array_equal(x, y)


def test_bad_sizes_are_named():
    with pytest.raises(ValueError, match=r"SparseConfig.hidden must lie in \[1, 4096\]"):
        drl_nn.build("sparse", in_channels=N_CHANNELS, board_size=8, num_actions=896, hidden=0)
    with pytest.raises(ValueError, match="has 896 step actions"):
        drl_nn.build("sparse", in_channels=N_CHANNELS, board_size=8, num_actions=1800)
