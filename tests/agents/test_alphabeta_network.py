"""``alphabeta:...,ckpt=PATH``: alpha-beta whose quiet leaves are scored by a sparse
network's value inside the compiled search."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from drl import nn as drl_nn
from drl.agents import make
from drl.agents._alphabeta import NET_SCALE, WIN_BOUND
from drl.encode.actions import num_actions
from drl.encode.planes import N_CHANNELS, encode_planes
from drl.nn import TrainingDiverged
from drl.nn.checkpoint import save_checkpoint
from drl.rules import Board


def _checkpoint(tmp_path, arch="sparse", board_size=8, **sizes):
    torch.manual_seed(0)
    net = drl_nn.build(
        arch,
        in_channels=N_CHANNELS,
        board_size=board_size,
        num_actions=num_actions(board_size),
        **sizes,
    )
    with torch.no_grad():
        for p in net.parameters():
            p.normal_(0.0, 0.3)
    payload = {"model": net.state_dict(), **drl_nn.describe(net), "counters": {"iteration": 1}}
    return save_checkpoint(tmp_path / "ckpt", 1, payload), net.eval()


def test_depth_one_scores_are_the_networks_values(tmp_path):
    path, net = _checkpoint(tmp_path, hidden=32, hidden2=8)
    board = Board("english")  # no reply to a first move captures: every child is quiet
    values = []
    for move in board.legal_moves:
        board.push(move)
        obs = np.zeros((N_CHANNELS, 8, 8), np.float32)
        encode_planes(board.state, board.variant.params, np.zeros(1, np.int64), 0, 0, obs)
        with torch.no_grad():
            values.append(float(net(torch.from_numpy(obs[None])).value[0]))
        board.pop()
    agent = make(f"alphabeta:depth=1,ckpt={path}")
    agent.select_move(board)
    best = max(-NET_SCALE * v for v in values)
    assert abs(agent.last_score - best) <= 2  # float32 rounding on the way to an integer
    assert agent.last_score != make("alphabeta:depth=1").search(board)[1]


def test_a_deeper_search_with_the_network_plays_legal_moves(tmp_path):
    path, _ = _checkpoint(tmp_path, hidden=32, hidden2=8)
    agent = make(f"alphabeta:depth=4,ckpt={path}")
    board = Board("give_and_take")
    for _ in range(12):
        if board.is_game_over():
            break
        board.push(agent.select_move(board))
    assert board.ply > 0
    # a learned score stays within NET_SCALE; only a forced result lies beyond
    assert abs(agent.last_score) <= NET_SCALE or abs(agent.last_score) > WIN_BOUND


def test_a_residual_network_is_refused_by_name(tmp_path):
    path, _ = _checkpoint(tmp_path, arch="resnet", channels=4, blocks=1)
    with pytest.raises(ValueError, match="holds a 'resnet' network.*arch 'sparse'"):
        make(f"alphabeta:depth=2,ckpt={path}")


def test_a_network_of_another_board_size_is_refused(tmp_path):
    path, _ = _checkpoint(tmp_path, hidden=16, hidden2=4)
    agent = make(f"alphabeta:depth=2,ckpt={path}")
    with pytest.raises(ValueError, match="8x8.*international|international.*8x8"):
        agent.select_move(Board("international"))


def test_the_board_size_is_checked_before_a_forced_move(tmp_path):
    path, _ = _checkpoint(tmp_path, board_size=10, hidden=16, hidden2=4)
    agent = make(f"alphabeta:depth=2,ckpt={path}")
    board = Board("english", fen="W:W27,28,32:B18,19,23,24")
    assert len(board.legal_moves) == 1  # the forced capture
    with pytest.raises(ValueError, match="10x10.*english|english.*10x10"):
        agent.select_move(board)


@pytest.mark.parametrize("with_net", [False, True])
def test_a_forced_move_resets_every_search_statistic(tmp_path, with_net):
    spec = "alphabeta:depth=3"
    if with_net:
        spec += f",ckpt={_checkpoint(tmp_path, hidden=16, hidden2=4)[0]}"
    agent = make(spec)
    agent.select_move(Board("english"))
    assert agent.last_score != 0 and agent.last_depth == 3
    agent.select_move(Board("english", fen="W:W27,28,32:B18,19,23,24"))
    assert (agent.last_score, agent.last_depth, agent.last_nodes) == (0, 0, 0)


def test_a_network_trained_under_other_rules_is_announced(tmp_path):
    path, _ = _checkpoint(tmp_path, hidden=16, hidden2=4)  # no variant recorded: english
    torch_payload = torch.load(path, weights_only=False)
    torch_payload["variant"] = "english"
    path2 = save_checkpoint(tmp_path / "ckpt2", 1, torch_payload)
    agent = make(f"alphabeta:depth=1,ckpt={path2}")
    with pytest.warns(UserWarning, match="english"):
        agent.select_move(Board("give_and_take"))


def _doctored(tmp_path, change):
    path, net = _checkpoint(tmp_path, hidden=16, hidden2=4)
    with torch.no_grad():
        change(net)
    payload = {"model": net.state_dict(), **drl_nn.describe(net), "counters": {"iteration": 2}}
    return save_checkpoint(tmp_path / "bad", 2, payload)


def test_non_finite_weights_are_refused_when_the_agent_is_built(tmp_path):
    path = _doctored(tmp_path, lambda net: net.value_out.bias.fill_(float("nan")))
    with pytest.raises(TrainingDiverged, match="weight bv of checkpoint .* is not finite"):
        make(f"alphabeta:depth=3,ckpt={path}")


def test_a_value_that_overflows_stops_the_search_with_a_named_error(tmp_path, monkeypatch):
    def overflow(net):
        net.fc1.weight.fill_(3e38)
        net.fc1.bias.fill_(3e38)
        net.fc2.weight.fill_(1.0)

    path = _doctored(tmp_path, overflow)
    with pytest.raises(TrainingDiverged, match="network output .* is not finite"):
        make(f"alphabeta:depth=3,ckpt={path}")  # refused when built, as az refuses it
    # and should one overflow only away from the start position, the search stops at it
    import drl.agents.az

    monkeypatch.setattr(drl.agents.az, "check_outputs", lambda *args, **kwargs: None)
    agent = make(f"alphabeta:depth=3,ckpt={path}")
    with pytest.raises(TrainingDiverged, match="not finite at a leaf"):
        agent.select_move(Board("english"))


def test_a_missing_checkpoint_is_one_clear_error(tmp_path):
    with pytest.raises(ValueError, match="no checkpoint|not found|No such|does not exist"):
        make(f"alphabeta:depth=2,ckpt={tmp_path / 'nothing.pt'}")
