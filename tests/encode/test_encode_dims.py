"""drl.encode.encoding: a board size's planes and actions, from one function."""

from __future__ import annotations

import dataclasses

import pytest

from drl.encode import N_CHANNELS, Encoding, encoding, num_actions


@pytest.mark.parametrize("size, actions", [(8, 896), (10, 1800)])
def test_encoding_of_a_board_size(size, actions):
    enc = encoding(size)
    assert enc == Encoding(channels=N_CHANNELS, board_size=size, actions=actions)
    assert enc.actions == num_actions(size)
    assert enc.as_dict() == {"board_size": size, "channels": N_CHANNELS, "actions": actions}
    assert enc.net_fields() == {
        "in_channels": N_CHANNELS,
        "board_size": size,
        "num_actions": actions,
    }
    with pytest.raises(dataclasses.FrozenInstanceError):
        enc.actions = 1  # type: ignore[misc]


def test_encoding_refuses_an_unknown_board_size():
    with pytest.raises(ValueError):
        encoding(9)
