"""drl-eval starts (reads and checks its config) without importing torch."""

import subprocess
import sys


def test_drl_eval_config_loads_without_torch(tmp_path):
    # --cfg job composes and prints the config, then exits before any game is played
    proc = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            "-m",
            "drl.cli.eval",
            "--cfg",
            "job",
            "variant=give_and_take:max_capture=true",
            f"hydra.run.dir={tmp_path}",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "give_and_take:max_capture=true" in proc.stdout
    imported = {
        line.rsplit("|", 1)[-1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:")
    }
    assert {"drl.cli._configs", "hydra"} <= imported  # the list is the real one
    assert not {m for m in imported if m == "torch" or m.startswith("torch.")}


def test_the_shared_config_modules_import_without_torch():
    code = (
        "import sys, drl.cli.eval, drl.nn, drl.nn.registry; "
        "drl.nn.make_config('resnet', in_channels=1, board_size=8, num_actions=896); "
        "print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == "False"
