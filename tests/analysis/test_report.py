"""The analysis report and drl-analyze: a self-contained page, escaped text, every run's
row, dashes for what is missing, one-line errors."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from drl.analysis.report import comparison_rows, write_report
from tests.analysis.report_fixtures import summary


def test_the_page_fetches_nothing_and_holds_its_pictures(tmp_path):
    paths = write_report([summary("a"), summary("b", "give_and_take", taker=True)], tmp_path)
    page = paths["html"].read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page)
    assert "<link" not in page and not re.search(r"<script[^>]+src=", page)
    assert page.count('src="data:image/png;base64,') >= 3  # the comparison plots
    assert page.count('class="game"') == 2
    for name in ("index.html", "report.md", "summary.json", "outcomes.png", "material.png"):
        assert (tmp_path / name).stat().st_size > 0
    assert [s["name"] for s in json.loads(paths["summary"].read_text())] == ["a", "b"]


def test_text_from_a_summary_is_escaped(tmp_path):
    s = summary("<script>alert(1)</script>")
    s["sample_games"][0]["title"] = "</script><b>x"
    page = write_report([s], tmp_path, extra_tables=[("t", [{"c": "<img src=x>"}])])[
        "html"
    ].read_text()
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)" in page
    assert "<img src=x>" not in page and "</script><b>x" not in page


def test_the_markdown_has_a_row_per_run_and_dashes_for_missing_parts(tmp_path):
    bare = {"name": "bare", "variant": "losing"}  # nothing analysed
    md = write_report([summary("full"), bare], tmp_path)["markdown"].read_text()
    rows = [ln for ln in md.splitlines() if ln.startswith("| full |") or ln.startswith("| bare |")]
    assert len(rows) == 2
    assert rows[1].count("—") >= 10
    row = comparison_rows([summary("full")])[0]
    assert row["first-mover score"] == "0.55 [0.40, 0.70]"
    assert row["king in men (all)"] == "2.50 [2.00, 3.10]"
    assert row["king in men (opening)"] == "—"  # that phase is absent from the fixture
    assert row["Taker score"] == "—"


def test_each_sample_position_is_drawn_once_per_ply(tmp_path):
    s = summary("a")
    page = write_report([s], tmp_path)["html"].read_text()
    data = re.search(r'<script type="application/json" class="boards">(.*?)</script>', page, re.S)
    boards = json.loads(data.group(1))
    assert len(boards["boards"]) == len(s["sample_games"][0]["fens"])
    drawn = ["\n".join(boards["lines"][k] for k in ids) for ids in boards["boards"]]
    assert all(d.startswith("<svg") and d.endswith("</svg>") for d in drawn)
    assert len(set(drawn)) == len(drawn)  # every ply changes the board


def test_an_empty_list_is_refused(tmp_path):
    with pytest.raises(ValueError, match="non-empty"):
        write_report([], tmp_path)


def _cli(*args, **kw):
    return subprocess.run(
        [sys.executable, "-m", "drl.cli.analyze", *args],
        capture_output=True,
        text=True,
        timeout=120,
        **kw,
    )


@pytest.mark.parametrize(
    "args, words",
    [
        (["/no/such/run", "--out", "{tmp}/r"], "no such run folder"),
        (["{tmp}", "--out", "{tmp}/r", "--games", "0"], "outside"),
        (["{tmp}", "--out", "{tmp}/r", "--sims", "many"], "not a whole number"),
        (["--out", "{tmp}/r"], "at least one RUN"),
        (["--summaries", "{tmp}/missing.json", "--out", "{tmp}/r"], "cannot read"),
        (["{tmp}", "--out", "/proc/drl-report"], "cannot write"),
    ],
)
def test_bad_input_is_one_line_and_status_2(tmp_path, args, words):
    proc = _cli(*[a.format(tmp=tmp_path) for a in args])
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert words in lines[-1] and "Traceback" not in proc.stderr
    assert len(lines) == 1


@pytest.mark.parametrize(
    "part, value",
    [
        ("outcomes", 5),
        ("self_play", "x"),
        ("sample_games", "abc"),
        ("sample_games", [5]),
        ("style", [1]),
    ],
)
def test_a_summary_with_a_part_of_the_wrong_type_is_one_line(tmp_path, part, value):
    bad = {**summary("a"), part: value}
    path = tmp_path / "s.json"
    path.write_text(json.dumps([summary("ok"), bad]))
    proc = _cli("--summaries", str(path), "--out", str(tmp_path / "r"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert f"summary 2: {part} must be" in proc.stderr.strip().splitlines()[-1]


def test_a_bad_run_is_refused_before_any_game_is_played(tmp_path, monkeypatch):
    from drl.cli import analyze as cli

    (tmp_path / "good").mkdir()
    (tmp_path / "bad").mkdir()
    played = []

    def load(source):
        if Path(source).name == "bad":
            raise ValueError("no good checkpoint in bad")
        return Path(source), {}

    monkeypatch.setattr("drl.analysis.load_source", load)
    monkeypatch.setattr("drl.analysis.analyze_run", lambda s, **kw: played.append(s))
    with pytest.raises(SystemExit) as stop:
        cli.main([str(tmp_path / "good"), str(tmp_path / "bad"), "--out", str(tmp_path / "r")])
    assert stop.value.code == 2 and played == []


def test_the_cli_analyses_each_run_and_writes_the_report(tmp_path, monkeypatch, capsys):
    from drl.cli import analyze as cli

    (tmp_path / "english" / "run").mkdir(parents=True)
    ckpt = tmp_path / "russian" / "agent.pt"
    ckpt.parent.mkdir()
    ckpt.write_bytes(b"x")
    seen = []

    def fake(source, **kw):
        seen.append((Path(source), kw["simulations"], kw["games"]))
        return summary("ignored")

    monkeypatch.setattr("drl.analysis.analyze_run", fake)
    monkeypatch.setattr("drl.analysis.load_source", lambda s: (Path(s), {}))
    cli.main(
        [
            str(tmp_path / "english" / "run"),
            str(ckpt),
            "--out",
            str(tmp_path / "r"),
            "--sims",
            "5",
            "--games",
            "3",
        ]
    )
    assert [s[1:] for s in seen] == [(5, 3), (5, 3)]
    names = [s["name"] for s in json.loads((tmp_path / "r" / "summary.json").read_text())]
    # a folder called run is named by its parent, an agent.pt by its folder
    assert names == ["english", "russian"]
    assert "report:" in capsys.readouterr().out
    # re-rendering from the summaries plays nothing
    seen.clear()
    cli.main(["--summaries", str(tmp_path / "r" / "summary.json"), "--out", str(tmp_path / "r2")])
    assert seen == [] and (tmp_path / "r2" / "index.html").exists()
    # "--out=~/x" reaches the program unexpanded: it is expanded, never a folder called "~"
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    cli.main(["--summaries=~/r/summary.json", "--out=~/r3"])
    assert (tmp_path / "r3" / "index.html").exists() and not (tmp_path / "~").exists()


def test_legends_name_only_the_series_that_exist():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from drl.analysis.report.plots import _bars

    english = summary("english-run")
    blocks = english["outcomes"]
    fig, ax = plt.subplots()
    _bars(
        ax,
        ["english-run"],
        {
            "first mover": [blocks["first_mover"]["score"]],
            "Taker": [(blocks.get("taker") or {}).get("score")],
            "draw rate": [blocks["draw_rate"]],
        },
        "score",
    )
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["first mover", "draw rate"]
    plt.close(fig)


def test_each_run_table_has_one_class_of_its_own(tmp_path):
    # "First moves" once gave the table the classes "first" and "moves": it took the
    # sample games' move-list style (monospace, 22em wide, its own scroll bar).
    page = write_report([summary("english-run")], tmp_path)["html"].read_text()
    classes = re.findall(r'<table class="([^"]*)"', page)
    assert "first-moves" in classes and "material-values" in classes
    assert all(" " not in c for c in classes), classes
