"""Every notebook under notebooks/ runs top to bottom without an error."""

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks():
    assert NOTEBOOKS, "notebooks/ holds no notebook"


@pytest.fixture
def tiny_study(tmp_path, monkeypatch):
    """Summaries for ``cross_variant.ipynb``: two hand-made ones (a Give and Take agent with
    a Taker, an English one with parts missing), read instead of the committed study."""
    import json

    def rate(v):
        return {"value": v, "ci95": [v - 0.1, v + 0.1], "n": 20}

    gt = {
        "name": "gt",
        "variant": "give_and_take",
        "outcomes": {
            "first_mover": {"score": rate(0.5)},
            "taker": {"score": rate(0.6)},
            "draw_rate": rate(0.2),
        },
        "material": {
            "groups": {
                "all": {
                    ph: {"king_in_men": rate(2.0)}
                    for ph in ("all", "opening", "middlegame", "endgame")
                }
            }
        },
        "style": {
            "groups": {
                "all": {
                    "offer_rate": rate(0.3),
                    "king_usage": rate(0.5),
                    "capture_length": {"multi_rate": rate(0.1)},
                }
            }
        },
    }
    english = {
        "name": "english",
        "variant": "english",
        "outcomes": {"first_mover": {"score": rate(0.45)}, "taker": None},
    }
    path = tmp_path / "summary.json"
    path.write_text(json.dumps([gt, english]))
    monkeypatch.setenv("DRL_CROSS_VARIANT_SUMMARY", str(path))
    return path


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path, tiny_study):
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    client.execute()  # raises CellExecutionError naming the failing cell
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not any(o.get("output_type") == "error" for o in outputs)
    assert outputs, f"{path.name} produced no output"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebooks_are_committed_with_their_outputs(path):
    # A reader on GitHub sees the tables and figures without running anything.
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]
    assert code and all(c.get("execution_count") for c in code), "a cell was not run"
    outputs = [o for c in code for o in c.get("outputs", [])]
    assert not any(o.get("output_type") == "error" for o in outputs)
    plots = [c for c in code if "plt.subplots" in c.source]
    for cell in plots:
        assert any("image/png" in o.get("data", {}) for o in cell.outputs), cell.source[:80]


def test_the_cross_variant_figures_pair_each_variants_agents(tiny_study, tmp_path, monkeypatch):
    # Two studies of the same agents: one group per agent, one bar per study in it.
    import json

    both = json.loads(tiny_study.read_text())
    for study in ("6min", "strong"):
        (tmp_path / study).mkdir()
        (tmp_path / study / "summary.json").write_text(json.dumps(both))
    monkeypatch.setenv(
        "DRL_CROSS_VARIANT_SUMMARY",
        f"{tmp_path / '6min' / 'summary.json'}:{tmp_path / 'strong' / 'summary.json'}",
    )
    path = next(p for p in NOTEBOOKS if p.stem == "cross_variant")
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(
        nbformat.v4.new_code_cell(
            "print([[t.get_text() for t in a.get_xticklabels()] for a in fig.axes][0]);"
            "print(fig.axes[0].get_legend_handles_labels()[1])"
        )
    )
    client = nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    client.execute()
    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs)
    ticks, legend = text.splitlines()[:2]
    assert ticks == "['gt']"  # the last figure: style (the English agent has none)
    assert legend == "['6min', 'strong']"
