"""The Python API mirrors the command lines: drl.train, drl.evaluate, drl.agents.make."""

import pytest

import drl


def test_train_takes_drl_train_overrides_and_returns_a_one_line_result(tmp_path):
    run = drl.train(
        ["variant=english", "train=tiny", "tensorboard=false", "progress=false"],
        run_dir=tmp_path / "run",
    )
    text = repr(run)
    assert "\n" not in text and "GameRecord" not in text
    assert text.startswith(f"TrainResult(run_dir='{tmp_path / 'run'}', iterations=2, games=8")
    assert "final_eval=[random: " in text
    assert (tmp_path / "run" / "config.yaml").read_text().count("spec: english") == 1
    rows = run.metrics()
    assert [r["iteration"] for r in rows if "loss/loss" in r] == [1, 2]
    spec = run.agent(sims=4)
    assert spec == f"az:ckpt={run.checkpoint},sims=4"

    result = drl.evaluate([spec, "random"], "english", games=4, max_plies=60)
    line = repr(result)
    assert line.startswith("Evaluation(english, 4 games: az:ckpt=") and "\n" not in line
    table = {row["agent"]: row for row in result.table()}
    assert table["random"]["games"] == 4
    assert table["random"]["wins"] + table["random"]["losses"] + table["random"]["draws"] == 4
    assert drl.agents.make(spec).select_move(drl.rules.Board("english")) is not None


@pytest.mark.parametrize(
    ("overrides", "named"),
    [
        (["train.lr=-1"], "train.lr"),
        (["train.no_such_key=1"], "no_such_key"),
        (["model=no_such_model"], "no_such_model"),
    ],
)
def test_a_bad_override_is_a_value_error_naming_it(tmp_path, overrides, named):
    with pytest.raises(ValueError, match=named):
        drl.train(overrides, run_dir=tmp_path / "run")
    assert not (tmp_path / "run").exists(), "nothing is written for a bad config"


def test_overrides_must_be_a_list():
    with pytest.raises(TypeError, match="list"):
        drl.train("train=tiny")


def test_evaluate_plays_a_round_robin_of_search_agents():
    result = drl.evaluate(["alphabeta:depth=2", "random"], "give_and_take", games=4)
    assert result.agents == ("alphabeta:depth=2", "random")
    assert result.scores["alphabeta:depth=2"].games == 4
    assert result.scores["alphabeta:depth=2"].score + result.scores["random"].score == 1.0
    assert result.ratings.anchor == "random"


def test_the_api_names_resolve_lazily():
    import drl.train.loop  # the package stays callable once its modules are imported

    assert callable(drl.train)
    assert drl.evaluate is drl.eval.api.evaluate
    from drl.agents.registry import make

    assert drl.agents.make is make
    with pytest.raises(AttributeError):
        drl.no_such_name  # noqa: B018
