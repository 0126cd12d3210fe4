"""Checkpoints that lie: a digest that matches a malformed payload, sizes that do not fit
the weights, overflowing weights, a stored budget out of range; and checkpoints shared
without their digest, and the versions every checkpoint records."""

from __future__ import annotations

import copy
import re
import warnings

import pytest
import torch

from drl.agents import make
from drl.encode import N_CHANNELS, num_actions
from drl.nn import TrainingDiverged, build, describe
from drl.nn.checkpoint import (
    CheckpointError,
    describe_checkpoint,
    load_checkpoint,
    load_source,
    save_checkpoint,
)


def _sparse_payload(fill: float | None = None) -> dict:
    torch.manual_seed(0)
    net = build(
        "sparse",
        in_channels=N_CHANNELS,
        board_size=8,
        num_actions=num_actions(8),
        hidden=8,
        hidden2=4,
    )
    if fill is not None:
        with torch.no_grad():
            for p in net.parameters():
                p.fill_(fill)
    return {
        "model": net.state_dict(),
        **describe(net),
        "counters": {"iteration": 3},
        "variant": "english",
        "config_yaml": "search:\n  num_simulations: 8\n",
    }


def _save(tmp_path, payload, name="x") -> str:
    return str(save_checkpoint(tmp_path / name, 1, payload))


MALFORMED = {
    "net_config a list": ("net_config", lambda p: p.update(net_config=[1, 2, 3])),
    "model a list": ("model", lambda p: p.update(model=[1, 2])),
    "a weight not a tensor": ("model", lambda p: p["model"].update({"fc1.weight": "w"})),
    "config_yaml not YAML": ("config_yaml", lambda p: p.update(config_yaml="search: [a\n: :")),
    "config_yaml a list": ("config_yaml", lambda p: p.update(config_yaml="- 1\n- 2\n")),
    "config_yaml not text": ("config_yaml", lambda p: p.update(config_yaml=[1])),
    "search a string": ("search", lambda p: p.update(config_yaml="search: hello\n")),
    "arch not text": ("arch", lambda p: p.update(arch=7)),
    "variant not text": ("variant", lambda p: p.update(variant=["english"])),
    "counters a list": ("counters", lambda p: p.update(counters=[1])),
    "a size as text": ("hidden", lambda p: p["net_config"].update(hidden="8")),
    "a size as a bool": ("hidden2", lambda p: p["net_config"].update(hidden2=True)),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
@pytest.mark.parametrize("kind", ["az:ckpt={},sims=2,device=cpu", "alphabeta:depth=1,ckpt={}"])
def test_every_malformed_field_is_one_error_naming_the_file_and_the_key(tmp_path, case, kind):
    key, spoil = MALFORMED[case]
    payload = _sparse_payload()
    spoil(payload)
    path = _save(tmp_path, payload)
    with pytest.raises(CheckpointError) as info:
        make(kind.format(path))
    message = str(info.value)
    assert path in message and key in message
    assert "valid agents" not in message and "\n" not in message


def test_a_stored_network_larger_than_its_weights_is_refused_before_it_is_built(
    tmp_path, monkeypatch
):
    """The largest residual config the limits allow, stored beside small sparse weights:
    the shapes are compared on the meta device; no real tensor of it is ever made."""
    from drl.nn import registry

    real = registry._ARCHS["resnet"]
    devices = []

    def spy(config):
        device = torch.empty(0).device.type
        devices.append(device)
        if device != "meta":
            raise AssertionError("the stored network was built before its shapes were checked")
        return real.factory(config)

    monkeypatch.setitem(registry._ARCHS, "resnet", registry._Arch(spy, real.config_cls))
    payload = _sparse_payload()
    payload["arch"] = "resnet"
    payload["net_config"] = {
        "in_channels": N_CHANNELS,
        "board_size": 8,
        "num_actions": 896,
        "channels": 1024,
        "blocks": 256,
        "policy_channels": 1024,
        "value_channels": 1024,
        "value_hidden": 65536,
        "aux_heads": True,
    }
    path = _save(tmp_path, payload)
    for spec in (f"az:ckpt={path},sims=2,device=cpu", f"alphabeta:depth=1,ckpt={path}"):
        with pytest.raises(CheckpointError, match=r"model: the weights do not fit its arch"):
            make(spec)
    assert devices and set(devices) == {"meta"}


def test_weights_that_overflow_are_refused_by_every_agent_that_uses_them(tmp_path):
    # every weight 1e30 is finite, but the hidden layers overflow: alpha-beta's compiled
    # forward reads only the value, which tanh keeps finite
    path = _save(tmp_path, _sparse_payload(fill=1e30))
    for spec in (f"az:ckpt={path},sims=2,device=cpu", f"alphabeta:depth=1,ckpt={path}"):
        with pytest.raises(
            TrainingDiverged,
            match=r"x/ckpt-00000001\.pt: network output \w+ "
            "is not finite",
        ):
            make(spec)


def test_a_stored_search_setting_out_of_range_is_named(tmp_path):
    payload = _sparse_payload()
    payload["config_yaml"] = "search:\n  c_puct: -3\n"
    path = _save(tmp_path, payload)
    with pytest.raises(CheckpointError, match=r"config_yaml search: c_puct=-3"):
        make(f"az:ckpt={path},sims=2,device=cpu")


def test_a_stored_budget_outside_the_spec_range_is_refused_unless_replaced(tmp_path):
    payload = _sparse_payload()
    payload["config_yaml"] = "search:\n  num_simulations: 10000000\n"
    path = _save(tmp_path, payload)
    with pytest.raises(CheckpointError, match=r"search\.num_simulations=10000000 .*1\.\.100000"):
        make(f"az:ckpt={path},device=cpu")
    assert make(f"az:ckpt={path},sims=3,device=cpu").player.search.num_simulations == 3


def test_a_missing_checkpoint_is_named_without_the_catalogue_of_agents(tmp_path):
    with pytest.raises(CheckpointError) as info:
        make(f"az:ckpt={tmp_path}/nothing.pt")
    assert "does not exist" in str(info.value)
    assert "valid agents" not in str(info.value) and "\n" not in str(info.value)


def test_a_checkpoint_copied_without_its_digest_loads_with_a_warning(tmp_path):
    path = _save(tmp_path, _sparse_payload())
    lone = tmp_path / "agent.pt"
    lone.write_bytes(open(path, "rb").read())
    with pytest.warns(UserWarning, match=r"has no agent\.pt\.sha256"):
        found, payload = load_source(lone)
    assert found == lone and payload["counters"]["iteration"] == 3
    with pytest.warns(UserWarning, match="sha256"):
        agent = make(f"alphabeta:depth=1,ckpt={lone}")
    assert agent.name.startswith("alphabeta")
    # in a run folder a checkpoint without its digest is still a write cut short
    with pytest.raises(CheckpointError, match="has no"):
        load_checkpoint(lone)


def test_a_digest_that_disagrees_is_still_refused(tmp_path):
    path = _save(tmp_path, _sparse_payload())
    with open(path + ".sha256", "w") as fh:
        fh.write("0" * 64 + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(CheckpointError, match="truncated or corrupt"):
            load_source(path)


def test_a_digest_free_file_that_does_not_load_is_refused_without_a_warning(tmp_path):
    lone = tmp_path / "agent.pt"
    lone.write_bytes(b"\x00" * 64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(CheckpointError, match="truncated or corrupt"):
            load_source(lone)


def test_a_digest_free_file_with_a_flipped_weight_byte_is_refused(tmp_path):
    """Without a digest, the archive's own CRC-32s still catch damage inside a weight,
    which torch reads without complaint."""
    import zipfile

    path = _save(tmp_path, _sparse_payload())
    data = bytearray(open(path, "rb").read())
    with zipfile.ZipFile(path) as archive:
        entry = max(archive.infolist(), key=lambda i: i.file_size)  # the largest weight
    at = entry.header_offset  # the local header gives the lengths before the entry's bytes
    names, extra = (int.from_bytes(data[at + k : at + k + 2], "little") for k in (26, 28))
    data[at + 30 + names + extra + entry.file_size // 2] ^= 0xFF
    lone = tmp_path / "agent.pt"
    lone.write_bytes(bytes(data))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(CheckpointError, match="CRC-32"):
            load_source(lone)


def test_every_checkpoint_records_the_drl_and_code_versions(tmp_path):
    import drl
    from drl.nn.versions import code_version

    payload = load_checkpoint(_save(tmp_path, _sparse_payload()))
    assert payload["drl_version"] == drl.__version__
    assert payload["code_version"] == code_version()
    assert payload["code_version"] == "unknown" or re.fullmatch(
        r"[0-9a-f]{40}(\+dirty)?", payload["code_version"]
    )
    line = describe_checkpoint("x.pt", payload)
    assert f"drl {drl.__version__}" in line and f"code {payload['code_version']}" in line
    old = copy.copy(payload)
    del old["drl_version"], old["code_version"]
    assert "drl unknown, code unknown" in describe_checkpoint("x.pt", old)


def test_the_code_version_is_unknown_outside_a_git_checkout(monkeypatch, tmp_path):
    from drl.nn import versions

    monkeypatch.setattr(versions, "_PACKAGE", tmp_path)
    versions.code_version.cache_clear()
    try:
        assert versions.code_version() == "unknown"
    finally:
        versions.code_version.cache_clear()


def test_drl_web_and_drl_analyze_name_a_malformed_checkpoint(tmp_path, caplog):
    import logging
    from types import SimpleNamespace

    from drl.analysis import analyze_run
    from drl.rules import Variant
    from drl.web.game import GameError, _build_agent

    payload = _sparse_payload()
    payload["config_yaml"] = "search: hello\n"
    path = _save(tmp_path, payload)
    game = SimpleNamespace(variant=Variant.parse("english"))
    # the page is told the file cannot be read; the server's log names the key
    with caplog.at_level(logging.WARNING, logger="drl.web"), pytest.raises(GameError):
        _build_agent(make, f"az:ckpt={path}", game)
    assert f"{path}: config_yaml key search must be a mapping" in caplog.text
    with pytest.raises(ValueError, match=re.escape(path) + r": config_yaml key search"):
        analyze_run(path, games=2, simulations=2)
