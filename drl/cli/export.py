"""``drl-export``: write a trained network as a file that runs without drl.

    drl-export experiments/long-english/agent.pt english.pt2
    drl-export runs/english english.ts --format torchscript

CHECKPOINT is a checkpoint file or a run folder (its newest good checkpoint). The model
takes drl's observation planes ``float32[B, C, n, n]`` and returns ``policy_logits``
``float32[B, A]`` and ``value`` ``float32[B]`` (see :mod:`drl.nn.export`). Before it
writes, the command checks that the written model gives the network's outputs on sample
positions.

Exit status: 0 written, 2 bad arguments or input (one line on stderr).
"""

from __future__ import annotations

import argparse
import sys
import warnings

__all__ = ["main"]

PROG = "drl-export"


def _fail(message: str) -> None:
    print(f"{PROG}: {message}", file=sys.stderr)
    raise SystemExit(2)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        _fail(f"{message} (see --help)")


def main(argv: list[str] | None = None) -> None:
    """Console entry point (``drl-export``)."""
    from drl.nn.export import FORMATS

    ap = _Parser(prog=PROG, description=__doc__.split("\n\n")[0])
    ap.add_argument("checkpoint", help="a checkpoint file or a run folder")
    ap.add_argument("out", help="the file to write")
    ap.add_argument("--format", choices=list(FORMATS), default="torch-export")
    args = ap.parse_args(argv)

    import torch

    from drl.agents.az import check_outputs, load_network
    from drl.nn.checkpoint import describe_checkpoint
    from drl.nn.export import _example, export_network, load_exported

    try:
        path, payload, net, _ = load_network(args.checkpoint, "cpu")
        check_outputs(net, f"checkpoint {path}")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # TorchScript's notice
            out = export_network(net, args.out, args.format)
            if args.format != "onnx":
                sample = _example(net, batch=5)
                with torch.no_grad():
                    got = load_exported(out, args.format)(sample)
                    want = net(sample)
                pairs = zip(
                    ("policy_logits", "value"), got, (want.policy_logits, want.value), strict=True
                )
                for name, a, b in pairs:
                    if not torch.allclose(a, b, rtol=1e-5, atol=1e-5):
                        _fail(f"{out}: the exported {name} differs from the network's")
    except (ValueError, RuntimeError, OSError) as err:
        _fail(str(err).strip().splitlines()[0])
    cfg = net.config
    print(describe_checkpoint(path, payload))
    print(
        f"wrote {out} ({args.format}): obs float32[B, {cfg.in_channels}, {cfg.board_size}, "
        f"{cfg.board_size}] -> policy_logits float32[B, {cfg.num_actions}], value float32[B]"
    )


if __name__ == "__main__":
    main()
