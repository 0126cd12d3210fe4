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
    with pytest.raises(ValueError, match="network is for 8x8 boards; international"):
        agent.select_move(Board("international"))


def test_a_missing_checkpoint_is_one_clear_error(tmp_path):
    with pytest.raises(ValueError, match="no checkpoint|not found|No such|does not exist"):
        make(f"alphabeta:depth=2,ckpt={tmp_path / 'nothing.pt'}")
