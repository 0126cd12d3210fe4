"""Checkpoints: atomic, verified, the newest K kept, damaged ones fall back."""

import logging

import pytest
import torch

from drl.nn.checkpoint import (
    CheckpointError,
    list_checkpoints,
    load_checkpoint,
    load_latest,
    save_checkpoint,
)


def _payload(step):
    return {
        "model": {"w": torch.full((3,), float(step))},
        "net_config": {"c": 1},
        "counters": {"learner_steps": step},
    }


def test_round_trip_and_keep_last_k(tmp_path):
    for step in (10, 20, 30, 40):
        save_checkpoint(tmp_path, step, _payload(step), keep=2)
    paths = list_checkpoints(tmp_path)
    assert [p.name for p in paths] == ["ckpt-00000030.pt", "ckpt-00000040.pt"]
    got = load_checkpoint(paths[-1])
    assert got["counters"]["learner_steps"] == 40
    assert torch.equal(got["model"]["w"], torch.full((3,), 40.0))
    assert not list(tmp_path.glob("*.tmp"))


def test_truncated_checkpoint_gives_a_clear_error_and_falls_back(tmp_path, caplog):
    save_checkpoint(tmp_path, 1, _payload(1))
    p2 = save_checkpoint(tmp_path, 2, _payload(2))
    data = p2.read_bytes()
    p2.write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="truncated or corrupt"):
        load_checkpoint(p2)
    with caplog.at_level(logging.WARNING):
        path, payload = load_latest(tmp_path)
    assert path.name == "ckpt-00000001.pt" and payload["counters"]["learner_steps"] == 1
    assert "ckpt-00000002.pt" in caplog.text
    assert len(caplog.records) == 1 and "using ckpt-00000001.pt instead" in caplog.text


def test_corrupt_bytes_are_detected(tmp_path):
    p = save_checkpoint(tmp_path, 5, _payload(5))
    data = bytearray(p.read_bytes())
    data[len(data) // 2] ^= 0xFF
    p.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="truncated or corrupt"):
        load_checkpoint(p)


def test_missing_digest_and_garbage(tmp_path):
    p = save_checkpoint(tmp_path, 5, _payload(5))
    (tmp_path / "ckpt-00000005.pt.sha256").unlink()
    with pytest.raises(CheckpointError, match="sha256"):
        load_checkpoint(p)
    assert load_checkpoint(p, verify=False)["counters"]["learner_steps"] == 5
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"\x00" * 50)
    with pytest.raises(CheckpointError, match="truncated or corrupt"):
        load_checkpoint(junk, verify=False)
    with pytest.raises(CheckpointError, match="does not exist"):
        load_checkpoint(tmp_path / "nope.pt")


def test_quarantine_sets_aside_only_past_a_good_checkpoint(tmp_path):
    save_checkpoint(tmp_path, 1, _payload(1))
    p2 = save_checkpoint(tmp_path, 2, _payload(2))
    p2.write_bytes(b"broken")
    path, _ = load_latest(tmp_path, quarantine=True)
    assert path.name == "ckpt-00000001.pt"
    assert (tmp_path / "ckpt-00000002.pt.corrupt").exists() and not p2.exists()


def test_all_bad_is_an_error_every_time_and_nothing_is_renamed(tmp_path):
    # Renaming them all would make the next load see an empty folder and start afresh.
    p = save_checkpoint(tmp_path, 3, _payload(3))
    p.write_bytes(b"broken")
    for _ in range(2):
        with pytest.raises(CheckpointError, match="(?s)no good checkpoint.*ckpt-00000003.pt"):
            load_latest(tmp_path, quarantine=True)
    assert p.exists() and not list(tmp_path.glob("*.corrupt"))
    assert load_latest(tmp_path / "missing") is None


def test_when_none_is_good_the_error_alone_names_them(tmp_path, caplog):
    # A warning per damaged checkpoint before the error said everything twice.
    for step in (1, 2):
        save_checkpoint(tmp_path, step, _payload(step)).write_bytes(b"broken")
    with caplog.at_level(logging.WARNING), pytest.raises(CheckpointError) as info:
        load_latest(tmp_path)
    assert "ckpt-00000001.pt" in str(info.value) and "ckpt-00000002.pt" in str(info.value)
    assert caplog.records == []


def test_a_folder_where_a_checkpoint_file_is_expected_is_named_as_a_folder(tmp_path):
    (tmp_path / "ckpt-00000001.pt").mkdir()
    with pytest.raises(CheckpointError, match="is a folder, not a checkpoint file"):
        load_checkpoint(tmp_path / "ckpt-00000001.pt")
    with pytest.raises(CheckpointError, match="is a folder, not a checkpoint file"):
        load_latest(tmp_path)


def test_paths_given_with_a_tilde_are_expanded(tmp_path, monkeypatch):
    from drl.nn.checkpoint import load_source

    monkeypatch.setenv("HOME", str(tmp_path))
    save_checkpoint(tmp_path / "run" / "checkpoints", 4, _payload(4))
    for given in ("~/run", "~/run/checkpoints", "~/run/checkpoints/ckpt-00000004.pt"):
        path, payload = load_source(given)
        assert path == tmp_path / "run" / "checkpoints" / "ckpt-00000004.pt"
        assert payload["counters"]["learner_steps"] == 4
    with pytest.raises(CheckpointError, match="no checkpoint in"):
        load_source(tmp_path)
    with pytest.raises(CheckpointError, match="does not exist"):
        load_source("~/nothing")


def test_checkpoint_numbers_are_checked(tmp_path):
    with pytest.raises(ValueError, match="number must be >= 0"):
        save_checkpoint(tmp_path, -1, _payload(1))


def test_payload_needs_required_keys(tmp_path):
    with pytest.raises(ValueError, match="counters"):
        save_checkpoint(tmp_path, 1, {"model": {}, "net_config": {}})


def test_network_round_trips_through_a_checkpoint_file(tmp_path):
    from drl.nn import build, describe, load

    torch.manual_seed(0)
    net = build("resnet", in_channels=5, board_size=8, num_actions=896, channels=8, blocks=1)
    path = save_checkpoint(
        tmp_path, 1, {"model": net.state_dict(), **describe(net), "counters": {}}
    )
    payload = load_checkpoint(path)
    assert payload["arch"] == "resnet"
    again = load(payload, board_size=8)
    x = torch.randn(2, 5, 8, 8)
    assert torch.equal(net.eval()(x).value, again(x).value)
    with pytest.raises(ValueError, match="for 8x8 boards; this game is played on 10x10"):
        load(payload, board_size=10)
