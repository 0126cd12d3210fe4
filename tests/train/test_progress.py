"""What training shows: the iteration in the bar on a terminal, one plain line per
iteration elsewhere, and iterations sized by a short time budget."""

import io
from types import SimpleNamespace

from drl.train.config import LoopCfg
from drl.train.config.budget import scaled_to_budget
from drl.train.loop import train
from drl.train.progress import Progress, is_terminal


def _settings(**loop):
    return SimpleNamespace(variant_name="english", progress=True, loop=LoopCfg(**loop))


def test_off_a_terminal_each_iteration_is_one_plain_line():
    stream = io.StringIO()
    p = Progress(_settings(max_minutes=2), lambda: 0.5, 0, bar=False, stream=stream)
    p.postfix(loss="1.234")
    p.iteration_done(1, {"selfplay/games": 86, "replay/games": 86})
    p.iteration_done(2, {"selfplay/games": 86, "replay/games": 172})
    p.close()
    lines = stream.getvalue().splitlines()
    assert lines == [
        "english iteration 1: 86 games (86 in all), budget=0.5/2 min, loss=1.234",
        "english iteration 2: 86 games (172 in all), budget=0.5/2 min, loss=1.234",
    ]
    assert "\r" not in stream.getvalue()


def test_on_a_terminal_the_bar_names_the_iteration():
    p = Progress(_settings(max_minutes=0), lambda: 0.0, 3, bar=True)
    assert p.bar.desc.startswith("english it 4")
    p.iteration_done(4, {})
    assert p.bar.desc.startswith("english it 5")
    p.close()


def test_a_log_file_is_not_a_terminal(tmp_path):
    with open(tmp_path / "log", "w") as fh:
        assert not is_terminal(fh)


def test_training_to_a_pipe_prints_a_line_per_iteration(tmp_path, tiny, capsys):
    train(tiny(iterations=3), tmp_path / "run", progress=True)
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if " iteration " in line]
    assert [line.split(":")[0] for line in lines] == [
        f"give_and_take iteration {i}" for i in (1, 2, 3)
    ]
    assert "4 games (12 in all)" in lines[-1]
    assert "\r" not in err


def test_a_short_budget_makes_short_iterations():
    loop = scaled_to_budget(LoopCfg(max_minutes=2))
    assert (loop.games_per_iteration, loop.steps_per_iteration) == (86, 68)
    assert scaled_to_budget(LoopCfg(max_minutes=6)).games_per_iteration == 256
    # the defaults' budget and no budget keep the iterations as set
    for minutes in (12, 55, 0):
        assert scaled_to_budget(LoopCfg(max_minutes=minutes)).games_per_iteration == 512
    # never below 32 games, nor above what was set
    assert scaled_to_budget(LoopCfg(max_minutes=0.1)).games_per_iteration == 32
    small = scaled_to_budget(LoopCfg(max_minutes=0.1, games_per_iteration=4))
    assert small.games_per_iteration == 4 and small.steps_per_iteration == 400


def test_the_budget_scaling_reaches_the_training_loop():
    from drl.train.api import compose_config
    from drl.train.config import train_settings

    s = train_settings(compose_config(["train.max_minutes=2"]))
    assert s.loop.games_per_iteration == 86
    s = train_settings(compose_config(["train.max_minutes=2", "train.scale_to_budget=false"]))
    assert s.loop.games_per_iteration == 512


def test_the_budget_of_the_default_sizes_is_the_default_budget():
    from drl.train.config.budget import BUDGET_MINUTES

    assert LoopCfg().max_minutes == BUDGET_MINUTES
