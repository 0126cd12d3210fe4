"""The Hydra configs are found in a checkout and shipped in the wheel's data files."""

import sys
from pathlib import Path

from drl.cli._configs import config_dir

ROOT = Path(__file__).resolve().parents[1]

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, installed with the dev extra
    import tomli as tomllib


def test_config_dir_holds_the_main_configs():
    path = Path(config_dir())
    assert (path / "config.yaml").is_file() and (path / "eval.yaml").is_file()


def test_every_config_file_is_shipped_as_data():
    spec = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["data-files"]
    shipped = {f for patterns in spec.values() for pattern in patterns for f in ROOT.glob(pattern)}
    on_disk = set((ROOT / "configs").rglob("*.yaml"))
    assert on_disk - shipped == set(), "config files missing from [tool.setuptools.data-files]"
