"""Names that moved keep working from their old places: ``from old import name`` gives the
same object as the new place, with a DeprecationWarning that names the new place."""

from __future__ import annotations

import importlib
import warnings

import pytest

# (old module, name, new module, new name)
MOVED = [
    ("drl.game", "StepGame", "drl.envs", "StepGame"),
    ("drl.game.game", "StepGame", "drl.envs", "StepGame"),
    ("drl.game.game", "action_index", "drl.encode.actions", "action_index"),
    *[
        ("drl.game.kernels", n, "drl.envs._kernels", n)
        for n in (
            "W_AGENT",
            "W_PLY_LIMIT",
            "W_PLY0",
            "W_SIZE",
            "random_replies",
            "game_step",
            "observe_into",
            "below_limit",
        )
    ],
    ("drl.train.config", "EvalCfg", "drl.train.config", "TrainEvalCfg"),
    ("drl.train.evaluate", "play_lockstep", "drl.train.evaluate", "play_against_baseline"),
    ("drl.cli.eval", "VariantNode", "drl._configs", "VariantCfg"),
    ("drl.cli.eval", "SPRTNode", "drl.eval.sprt", "SPRTSettings"),
]


@pytest.mark.parametrize(("old", "name", "new", "new_name"), MOVED)
def test_an_old_name_gives_the_new_object_and_says_where_it_is(old, name, new, new_name):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        namespace: dict = {}
        exec(f"from {old} import {name} as value", namespace)  # the form users write
    assert namespace["value"] is getattr(importlib.import_module(new), new_name)
    messages = [str(w.message) for w in caught if w.category is DeprecationWarning]
    assert any(new_name in m for m in messages), messages


@pytest.mark.parametrize("old", sorted({m[0] for m in MOVED}))
def test_an_unknown_name_is_still_an_attribute_error(old):
    with pytest.raises(AttributeError, match="no_such_name"):
        importlib.import_module(old).no_such_name  # noqa: B018
