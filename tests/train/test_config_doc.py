"""Every training key has its meaning, taken from the code's dataclasses, on the site's
page of keys and in drl-train --help."""

import subprocess
import sys
from dataclasses import dataclass

from drl.train.config_doc import attribute_docs, config_keys, keys_markdown


@dataclass
class _Documented:
    """A class.

    Attributes:
        alpha: the first
            one, on two lines.
        beta, gamma: shared.

    Raises:
        ValueError: not an attribute.
    """

    alpha: int = 0
    beta: int = 0
    gamma: int = 0


def test_attribute_entries_are_read_from_the_docstring():
    assert attribute_docs(_Documented) == {
        "alpha": "the first one, on two lines.",
        "beta": "shared.",
        "gamma": "shared.",
    }


def test_every_key_has_a_meaning_and_its_default():
    keys = {k.key: k for k in config_keys()}
    assert not [k for k, v in keys.items() if not v.meaning], "undocumented keys"
    assert keys["train.lr"].default == 0.002
    assert "learning rate" in keys["train.lr"].meaning
    assert keys["variant.max_plies"].default == 200
    assert keys["model.hidden"].meaning.startswith("H1")  # the sparse network's own class
    assert keys["train.final_eval.games"].meaning
    # the overrides give the defaults shown
    long_keys = {k.key: k.default for k in config_keys(["train=long"])}
    assert long_keys["train.max_minutes"] == 55


def test_the_markdown_table_has_no_rest_markup():
    table = keys_markdown()
    assert "| `train.scale_to_budget` | `true` |" in table
    assert ":func:" not in table and ":class:" not in table and "``" not in table


def test_drl_train_help_lists_the_keys_with_their_meaning():
    out = subprocess.run(
        [sys.executable, "-c", "from drl.cli.train import main; main()", "--help"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert "== Keys: default and meaning ==" in out.stdout
    assert "  train.max_minutes=12.0\n      training wall-time budget" in out.stdout
