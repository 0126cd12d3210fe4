"""Policy-value network: shapes, ranges, masking, learning a fixed target."""

import numpy as np
import pytest
import torch

from drl.nn import (
    NetConfig,
    NetworkEvaluator,
    PolicyValueNet,
    UniformEvaluator,
    masked_log_softmax,
    masked_softmax,
    policy_entropy,
)


def _net(aux=True, blocks=1):
    torch.manual_seed(0)
    return PolicyValueNet(
        NetConfig(
            in_channels=5, board_size=8, num_actions=896, channels=8, blocks=blocks, aux_heads=aux
        )
    )


def test_output_shapes_and_ranges():
    net = _net().eval()
    out = net(torch.randn(3, 5, 8, 8) * 10)
    assert out.policy_logits.shape == (3, 896)
    assert out.value.shape == (3,)
    assert torch.all(out.value.abs() <= 1)
    assert out.pieces_left.shape == (3, 2)
    assert torch.all((out.pieces_left >= 0) & (out.pieces_left <= 1))
    assert out.plies_left.shape == (3,) and torch.all(out.plies_left >= 0)


def test_no_aux_heads():
    out = _net(aux=False).eval()(torch.zeros(2, 5, 8, 8))
    assert out.pieces_left is None and out.plies_left is None


def test_wrong_observation_shape_is_named():
    with pytest.raises(ValueError, match=r"\[B, 5, 8, 8\]"):
        _net()(torch.zeros(2, 4, 8, 8))


def test_bad_config_rejected():
    with pytest.raises(ValueError, match="channels"):
        NetConfig(in_channels=5, board_size=8, num_actions=896, channels=0)


def test_masked_softmax_puts_no_mass_on_illegal_steps():
    logits = torch.tensor([[5.0, 1.0, 9.0, 0.0], [0.0, 0.0, 0.0, 0.0]])
    mask = torch.tensor([[True, True, False, False], [False, False, False, True]])
    p = masked_softmax(logits, mask)
    assert torch.all(p[~mask] == 0)
    assert torch.allclose(p.sum(-1), torch.ones(2))
    # e^5 / (e^5 + e^1) by hand
    assert p[0, 0].item() == pytest.approx(np.exp(5) / (np.exp(5) + np.exp(1)), rel=1e-6)
    assert p[1, 3].item() == pytest.approx(1.0)
    assert torch.isfinite(masked_log_softmax(logits, mask)).all()
    ent = policy_entropy(logits, mask)
    assert ent[1].item() == pytest.approx(0.0, abs=1e-6)
    assert ent[0].item() > 0


def test_masked_softmax_rejects_empty_row():
    with pytest.raises(ValueError, match="no legal action"):
        masked_log_softmax(torch.zeros(1, 3), torch.zeros(1, 3, dtype=torch.bool))


def test_network_learns_a_masked_target():
    net = _net()
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    x = torch.randn(8, 5, 8, 8)
    mask = torch.zeros(8, 896, dtype=torch.bool)
    mask[:, 10:14] = True
    target = torch.zeros(8, 896)
    target[:, 12] = 1.0
    z = torch.linspace(-1, 1, 8)
    for _ in range(60):
        out = net(x)
        loss = -(target * masked_log_softmax(out.policy_logits, mask)).sum(-1).mean()
        loss = loss + ((out.value - z) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    net.eval()
    with torch.no_grad():
        out = net(x)
        p = masked_softmax(out.policy_logits, mask)
    assert p[:, 12].min().item() > 0.9
    assert torch.allclose(out.value, z, atol=0.3)


def test_evaluators_shapes_and_counters():
    net = _net()
    ev = NetworkEvaluator(net)
    obs = np.zeros((4, 5, 8, 8), np.float32)
    mask = np.ones((4, 896), bool)
    out = ev(obs, mask)
    assert out.logits.shape == (4, 896) and out.logits.dtype == np.float32
    assert out.value.shape == (4,)
    assert ev.positions == 4 and ev.calls == 1 and ev.seconds > 0
    assert not net.training
    u = UniformEvaluator()(obs, mask)
    assert np.all(u.logits == 0) and np.all(u.value == 0)
