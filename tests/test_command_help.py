"""Every command's ``--help`` lists only what that command accepts: ``drl-eval`` shares
its config folder with ``drl-train`` but lists none of training's config groups, and
each group or option its help names is taken by the command."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from drl._paths import config_dir

CONFIGS = Path(config_dir())


def _help(module: str, *args: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", module, *args], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def _run(module: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", module, *args], capture_output=True, text=True, timeout=300
    )


def test_drl_eval_help_lists_only_its_own_groups_and_keys():
    text = _help("drl.cli.eval", "--help")
    assert text.startswith("drl-eval:")
    for group in ("model", "runtime", "search", "train"):  # drl-train's groups
        assert not re.search(rf"^{group}:", text, re.M), f"{group} is listed"
    (variants,) = re.findall(r"== variant .*==\n(.*)\n", text)
    assert variants.split(", ") == sorted(p.stem for p in (CONFIGS / "variant").glob("*.yaml"))
    # What it lists it takes: every key of the config, and a variant from the list.
    refused = _run("drl.cli.eval", "model=small")
    assert refused.returncode != 0 and "model" in refused.stderr


def test_drl_play_help_names_the_command_and_its_keys():
    text = _help("drl.cli.play", "--help")
    assert text.startswith("drl-play:")
    assert "Configuration groups" not in text  # it has none
    for key in ("ckpt", "variant", "color", "role", "sims", "fen", "pdn", "device"):
        assert re.search(rf"^{key}:", text, re.M), key
