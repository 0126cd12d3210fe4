"""train.max_minutes: a run ends at its wall-time budget, counting earlier sessions, and
every metrics line carries the run's training wall and CPU minutes."""

import json

from drl.nn.checkpoint import list_checkpoints, load_checkpoint
from drl.train.loop import train


def _iteration_lines(run_dir):
    lines = [json.loads(x) for x in (run_dir / "metrics.jsonl").read_text().splitlines()]
    return [m for m in lines if "learner/steps" in m]


def test_a_run_stops_at_its_time_budget_and_a_resume_counts_the_earlier_time(tmp_path, tiny):
    run = tmp_path / "run"
    budget = 0.03  # 1.8 s: a few tiny iterations
    first = train(tiny(iterations=10_000, max_minutes=budget), run)
    assert 1 <= first.iterations < 10_000
    lines = _iteration_lines(run)
    assert [m["iteration"] for m in lines] == list(range(1, first.iterations + 1))
    cpu = [m["cpu_minutes"] for m in lines]
    wall = [m["wall_minutes"] for m in lines]
    assert all(b > a for a, b in zip(cpu, cpu[1:], strict=False)) and cpu[0] > 0
    assert all(b > a for a, b in zip(wall, wall[1:], strict=False))
    assert wall[-1] >= budget and (len(wall) == 1 or wall[-2] < budget)
    counters = load_checkpoint(first.checkpoint)["counters"]
    assert counters["iteration"] == first.iterations
    assert counters["wall_minutes"] >= wall[-1] and counters["cpu_minutes"] >= cpu[-1]

    # The budget is spent: a second start with the same one trains nothing more.
    again = train(tiny(iterations=10_000, max_minutes=budget), run)
    assert again.iterations == first.iterations

    # A larger budget goes on, its clock starting from the earlier sessions' time.
    more = train(tiny(iterations=first.iterations + 1, max_minutes=10.0), run)
    assert more.iterations == first.iterations + 1
    last = _iteration_lines(run)[-1]
    assert last["wall_minutes"] > counters["wall_minutes"]
    assert last["cpu_minutes"] > counters["cpu_minutes"]
    assert list_checkpoints(run / "checkpoints")[-1] == more.checkpoint


def test_no_budget_runs_every_iteration(tmp_path, tiny):
    assert train(tiny(iterations=2, max_minutes=0.0), tmp_path / "run").iterations == 2


def test_a_budgeted_run_shows_its_budget_not_the_iteration_cap(tmp_path, tiny, capsys):
    """With a time budget the iteration cap is not what ends the run: the progress bar
    has no total (no ETA in hours for a run of minutes) and shows the budget spent."""
    train(tiny(iterations=10_000, max_minutes=0.02), tmp_path / "run", progress=True)
    err = capsys.readouterr().err
    assert "budget=" in err and "/0.02 min" in err
    assert "/40000" not in err  # 10,000 iterations of 4 games: the old total


def test_network_batch_metrics_are_logged_only_for_a_batched_network():
    """The sparse network runs inside the search (no network calls to time or fill): its
    runs log no batch fill or network time share rather than a meaningless 0 or
    million."""
    from drl.train.loop import _selfplay_scalars
    from drl.train.selfplay import SelfPlayStats

    inline = _selfplay_scalars(SelfPlayStats(leaf_evals=5000, seconds=2.0), 0.0, 64)
    assert "selfplay/batch_fill" not in inline and "selfplay/net_time_fraction" not in inline
    assert inline["selfplay/evals_per_s"] == 2500
    batched = _selfplay_scalars(SelfPlayStats(leaf_evals=640, net_batches=20, seconds=2.0), 1.5, 64)
    assert batched["selfplay/batch_fill"] == 0.5 and batched["selfplay/net_time_fraction"] == 0.75
