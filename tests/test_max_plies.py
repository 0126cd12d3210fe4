"""One default cap on a game's plies (200) across training, evaluation, the envs and the
commands: the tables of every published result use it."""

from __future__ import annotations

import inspect

import pytest

from drl._configs import DEFAULT_MAX_PLIES, VariantCfg


def test_the_default_is_200():
    assert DEFAULT_MAX_PLIES == 200


def _defaults():
    from drl.envs import DraughtsEnv
    from drl.envs.pettingzoo import raw_env
    from drl.envs.vector import DraughtsVectorEnv
    from drl.eval.config import EvalConfig
    from drl.eval.settings import MatchSettings
    from drl.eval.tasks import GameTask, match_tasks
    from drl.train.config import Config
    from drl.train.evaluate import EVALUATION_SETTINGS
    from drl.train.selfplay import SelfPlayConfig

    def arg(fn):
        return inspect.signature(fn).parameters["max_plies"].default

    return {
        "training (variant.max_plies)": VariantCfg().max_plies,
        "training (drl.train Config)": Config().variant.max_plies,
        "self-play": SelfPlayConfig().max_plies,
        "evaluation during training": EVALUATION_SETTINGS.max_plies,
        "drl-eval": EvalConfig().max_plies,
        "match settings": MatchSettings().max_plies,
        "game task": arg(GameTask),
        "match_tasks": inspect.signature(match_tasks).parameters["settings"].default.max_plies,
        "DraughtsEnv": arg(DraughtsEnv),
        "DraughtsVectorEnv": arg(DraughtsVectorEnv),
        "PettingZoo raw_env": arg(raw_env),
    }


@pytest.mark.parametrize("where", list(_defaults()))
def test_every_default_cap_is_the_same(where):
    assert _defaults()[where] == DEFAULT_MAX_PLIES


@pytest.mark.parametrize("command", ["drl.cli.analyze", "drl.cli.hub"])
def test_the_commands_cap_games_at_the_same_default(command, monkeypatch):
    import argparse
    import importlib

    seen = {}
    parse = argparse.ArgumentParser.parse_args

    def capture(self, args=None, namespace=None):
        seen["args"] = parse(self, ["r", "--out", "o"] if "analyze" in command else [], namespace)
        raise SystemExit(0)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", capture)
    module = importlib.import_module(command)
    with pytest.raises(SystemExit):
        module.main([])
    assert seen["args"].max_plies == DEFAULT_MAX_PLIES
