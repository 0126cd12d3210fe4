"""analyze_run on a tiny trained run, and the errors for what it cannot analyse."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace

import pytest

from drl.analysis import MaterialSettings, analyze_run, load_source
from drl.analysis.run import ANALYSIS_SETTINGS


@pytest.fixture(scope="module")
def summary(tiny_run, tmp_path_factory):
    run, _ = tiny_run
    human = tmp_path_factory.mktemp("games")
    return analyze_run(
        run,
        simulations=4,
        games=4,
        human_games_dir=human,
        settings=replace(ANALYSIS_SETTINGS, openings=2, max_plies=40, seed=3),
        material=MaterialSettings(n_boot=200),
    )


def test_analyze_run_gives_the_whole_summary(tiny_run, summary):
    run, ckpt = tiny_run
    json.dumps(summary)
    for key in (
        "name",
        "source",
        "checkpoint",
        "variant",
        "iteration",
        "games_trained",
        "simulations",
        "outcomes",
        "material",
        "openings",
        "style",
        "sample_games",
    ):
        assert key in summary, key
    assert summary["checkpoint"] == str(ckpt) and summary["name"] == run.name
    assert summary["variant"] == "give_and_take" and summary["simulations"] == 4
    assert summary["iteration"] == 1 and summary["games_trained"] >= 4
    out = summary["outcomes"]
    assert out["games"] == 4
    # one game per opening, the Taker's colour alternating
    assert out["taker"]["by_color"]["black"]["score"]["n"] == 2
    assert out["taker"]["by_color"]["white"]["score"]["n"] == 2
    assert out["length"]["max"] <= 40
    assert set(summary["style"]["groups"]) >= {"all", "taker", "giver"}
    # every position before a ply is a candidate probe
    assert summary["material"]["counts"]["positions"] == round(out["length"]["mean"]["value"] * 4)
    assert summary["material"]["groups"]["all"]["all"]["probes"] > 0
    assert len(summary["sample_games"]) == 3
    for g in summary["sample_games"]:
        assert len(g["fens"]) == len(g["moves"]) + 1 and g["pdn"]
    assert summary["endgame"] is None  # no endgame database on disk in the tests


def test_opening_preferences_in_give_and_take(summary):
    entries = summary["openings"]["entries"]
    assert [e["mover_role"] for e in entries] == ["taker", "giver"]
    for e in entries:
        assert e["human"] is None and "give_and_take" in e["human_reason"]
        assert sorted(e["prior"]) == sorted(e["legal"]) == sorted(e["search"])
        assert sum(e["prior"].values()) == pytest.approx(1.0, abs=1e-5)
        assert sum(e["search"].values()) == pytest.approx(1.0, abs=1e-5)


def test_missing_folder(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        analyze_run(tmp_path / "nowhere")


def test_folder_without_checkpoint(tmp_path):
    (tmp_path / "checkpoints").mkdir()
    with pytest.raises(ValueError, match="no checkpoint in"):
        analyze_run(tmp_path)


def test_corrupt_checkpoint(tiny_run, tmp_path):
    _, ckpt = tiny_run
    bad = tmp_path / "checkpoints"
    bad.mkdir()
    shutil.copy(ckpt, bad / ckpt.name)
    shutil.copy(ckpt.with_name(ckpt.name + ".sha256"), bad / (ckpt.name + ".sha256"))
    data = bytearray((bad / ckpt.name).read_bytes())
    data[len(data) // 2] ^= 0xFF
    (bad / ckpt.name).write_bytes(bytes(data))
    with pytest.raises(ValueError, match="corrupt"):
        load_source(tmp_path)
    with pytest.raises(ValueError, match="corrupt"):
        analyze_run(bad / ckpt.name)


def test_unknown_variant(tiny_run):
    _, ckpt = tiny_run
    with pytest.raises(ValueError, match="unknown variant"):
        analyze_run(ckpt, variant="checkers9", games=1, simulations=1)


def test_bad_counts(tiny_run):
    _, ckpt = tiny_run
    with pytest.raises(ValueError, match="simulations"):
        analyze_run(ckpt, simulations=0)


@pytest.mark.filterwarnings("ignore:.*was trained on")
def test_another_variant_of_the_same_board_with_recorded_games(tiny_run, tmp_path):
    _, ckpt = tiny_run
    (tmp_path / "english").mkdir()
    (tmp_path / "english" / "g.pdn").write_text(
        '[Event "a"]\n1. 11-15 22-18 *\n\n[Event "b"]\n1. 11-15 23-19 *\n\n'
        '[Event "c"]\n1. 9-13 22-18 *\n\n[Event "d"]\n1. 22-18 *\n'
    )
    s = analyze_run(
        ckpt,
        variant="english",
        games=2,
        simulations=2,
        human_games_dir=tmp_path,
        settings=replace(ANALYSIS_SETTINGS, openings=2, max_plies=20),
        material=MaterialSettings(n_boot=50),
    )
    assert s["variant"] == "english" and s["trained_on"] == "give_and_take"
    (entry,) = s["openings"]["entries"]
    assert entry["mover_role"] is None
    assert entry["human"]["counts"] == {"11-15": 2, "9-13": 1}
    assert entry["human"]["skipped_bad"] == 1
    for kind in ("prior", "search"):
        d = entry["divergence"][kind]
        assert 0.0 <= d["js_distance"] <= 1.0
        assert d["human_top"] == ["11-15"]
        assert d["top_agreement"] == ("11-15" in d["model_top"])
    assert s["outcomes"]["taker"] is None
    assert set(s["style"]["groups"]) == {"all", "first", "second"}


@pytest.mark.filterwarnings("ignore:.*was trained on")
def test_both_givers_reports_the_first_mover_only(tiny_run):
    _, ckpt = tiny_run
    s = analyze_run(
        ckpt,
        variant="give_and_take:objectives=give/give",
        games=2,
        simulations=2,
        settings=replace(ANALYSIS_SETTINGS, openings=2, max_plies=20),
        material=MaterialSettings(n_boot=50),
    )
    out = s["outcomes"]
    assert out["taker"] is None and "both players are Givers" in out["taker_note"]
    assert out["first_mover"]["score"]["n"] == 2
    assert set(s["material"]["groups"]) <= {"all", "giver"}
    assert s["openings"]["entries"][0]["human"] is None


@pytest.mark.parametrize(
    ("source", "name"),
    [
        ("experiments/english/run", "english"),
        ("runs/english-20260101", "english-20260101"),
        ("experiments/english/agent.pt", "english"),
        ("runs/english-20260101/checkpoints/ckpt-00000024.pt", "english-20260101"),
        ("models/best-english.pt", "best-english"),
    ],
)
def test_a_run_is_named_by_what_names_it(tmp_path, source, name):
    from drl.cli.analyze import run_name

    path = tmp_path / source
    if path.suffix:
        path.parent.mkdir(parents=True)
        path.write_bytes(b"")
    else:
        path.mkdir(parents=True)
    assert run_name(path) == name
