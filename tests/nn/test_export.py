"""``drl-export``: the exported model gives the network's outputs."""

from __future__ import annotations

import warnings

import pytest
import torch

from drl.encode import N_CHANNELS, num_actions
from drl.nn import build, describe
from drl.nn.checkpoint import save_checkpoint
from drl.nn.export import export_network, load_exported


def _nets():
    torch.manual_seed(1)
    sparse = build(
        "sparse",
        in_channels=N_CHANNELS,
        board_size=8,
        num_actions=num_actions(8),
        hidden=16,
        hidden2=8,
    )
    resnet = build(
        "resnet",
        in_channels=N_CHANNELS,
        board_size=10,
        num_actions=num_actions(10),
        channels=4,
        blocks=1,
        policy_channels=1,
        value_channels=1,
        value_hidden=4,
    )
    return {"sparse": sparse.eval(), "resnet": resnet.eval()}


def _positions(net, batch):
    cfg = net.config
    gen = torch.Generator().manual_seed(7)
    return (
        torch.rand((batch, cfg.in_channels, cfg.board_size, cfg.board_size), generator=gen) < 0.3
    ).float()


@pytest.mark.parametrize("fmt", ["torch-export", "torchscript"])
@pytest.mark.parametrize("arch", ["sparse", "resnet"])
def test_the_exported_model_gives_the_networks_outputs(tmp_path, arch, fmt):
    net = _nets()[arch]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        path = export_network(net, tmp_path / f"net.{fmt}", fmt)
        model = load_exported(path, fmt)
    for batch in (1, 3, 17):  # another batch size than the one it was traced with
        x = _positions(net, batch)
        with torch.no_grad():
            logits, value = model(x)
            want = net(x)
        assert logits.shape == (batch, net.config.num_actions) and value.shape == (batch,)
        torch.testing.assert_close(logits, want.policy_logits)
        torch.testing.assert_close(value, want.value)


def test_onnx_without_its_packages_is_one_clear_error(tmp_path):
    try:
        import onnx  # noqa: F401
        import onnxscript  # noqa: F401
    except ImportError:
        with pytest.raises(ValueError, match="pip install onnx onnxscript"):
            export_network(_nets()["sparse"], tmp_path / "x.onnx", "onnx")
    else:  # pragma: no cover - where onnx is installed
        export_network(_nets()["sparse"], tmp_path / "x.onnx", "onnx")
        assert (tmp_path / "x.onnx").stat().st_size > 0


def test_drl_export_writes_a_checkpoint_and_says_what(tmp_path, capsys):
    from drl.cli.export import main

    net = _nets()["sparse"]
    payload = {
        "model": net.state_dict(),
        **describe(net),
        "counters": {"iteration": 2},
        "variant": "english",
    }
    ckpt = save_checkpoint(tmp_path / "run" / "checkpoints", 2, payload)
    main([str(tmp_path / "run"), str(tmp_path / "out" / "english.pt2")])
    said = capsys.readouterr().out
    assert f"checkpoint {ckpt}" in said and "drl " in said and "code " in said
    assert "policy_logits float32[B, 896]" in said
    model = load_exported(tmp_path / "out" / "english.pt2")
    x = _positions(net, 4)
    with torch.no_grad():
        torch.testing.assert_close(model(x)[1], net(x).value)
    with pytest.raises(SystemExit) as info:
        main([str(tmp_path / "nothing"), str(tmp_path / "x.pt2")])
    assert info.value.code == 2
    assert "does not exist" in capsys.readouterr().err
