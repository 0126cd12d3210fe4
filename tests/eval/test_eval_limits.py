"""Counts that cannot be meant are refused at once, naming the key and the limit; a long
schedule is built as it is played (its openings are drawn as its games start)."""

import subprocess
import sys

import pytest

from drl.eval import arena, openings
from drl.eval.arena import match_tasks
from drl.eval.settings import MatchSettings
from drl.eval.sprt import SPRTSettings

HUGE = 10**22
# the documented limits (drl.eval.arena.MAX_*)
MAX_GAMES, MAX_OPENING_PLIES, MAX_PLIES, MAX_WORKERS = 1_000_000, 100, 100_000, 256


def test_the_limits_are_the_documented_ones():
    limits = (arena.MAX_GAMES, arena.MAX_OPENING_PLIES, arena.MAX_PLIES, arena.MAX_WORKERS)
    assert limits == (MAX_GAMES, MAX_OPENING_PLIES, MAX_PLIES, MAX_WORKERS)


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"games": HUGE}, "games=10000000000000000000000: must be between 1 and 1,000,000"),
        ({"openings": HUGE}, f"openings={HUGE}: must be between 0 and {MAX_OPENING_PLIES}"),
        ({"max_plies": HUGE}, f"max_plies={HUGE}: must be between 1 and {MAX_PLIES:,}"),
        ({"workers": HUGE}, f"workers={HUGE}: must be between 1 and {MAX_WORKERS}"),
        ({"format": "pool", "lives": HUGE}, f"lives={HUGE}: must be between 1 and 1,000"),
        (
            {"format": "pool", "pool_games_per_round": HUGE},
            f"pool_games_per_round={HUGE}: must be between 1 and 1,000,000",
        ),
        (
            {"format": "pool", "pool_games_per_round": MAX_GAMES},
            "pool_games_per_round=1000000: 3 agents over up to 50 rounds could play",
        ),
        ({"format": "sprt", "games": HUGE}, "games=10000000000000000000000: must be between"),
        ({"sprt.max_games": HUGE}, f"sprt.max_games={HUGE}: must be between 1 and 1,000,000"),
        ({"seed": -1}, "seed=-1: must be >= 0"),
        # every pair plays `games`: three agents play three times as many
        ({"games": MAX_GAMES}, "would play 3,000,000 games, more than the limit of 1,000,000"),
        ({"agents": ["mcts:sims=10000000", "random"]}, "agents: mcts: parameter sims=10000000"),
        ({"agents": ["mcts:rollout_limit=10000000", "random"]}, "above its maximum 100000"),
        ({"agents": ["alphabeta:depth=1000", "random"]}, "depth=1000 is above its maximum 63"),
        ({"agents": ["alphabeta:time=1e22", "random"]}, "time=1e22 is above its maximum 3600"),
        ({"agents": ["az:ckpt=x.pt,sims=1000000", "random"]}, "above its maximum 100000"),
    ],
)
def test_check_refuses_counts_naming_the_key_and_the_limit(changes, message):
    from drl._configs import VariantCfg
    from drl.cli.eval import EvalConfig
    from drl.eval.checks import check_config

    sprt = {k.split(".")[1]: changes.pop(k) for k in list(changes) if k.startswith("sprt.")}
    agents = changes.pop("agents", ["greedy", "random", "random:seed=1"])
    if changes.get("format") == "sprt" or sprt:
        agents = agents[:2]
    cfg = EvalConfig(variant=VariantCfg(), agents=agents, **changes)
    for k, v in sprt.items():
        setattr(cfg.sprt, k, v)
    with pytest.raises(ValueError) as err:
        check_config(cfg)
    assert message in str(err.value)


def test_check_accepts_the_limits():
    from drl._configs import VariantCfg
    from drl.cli.eval import EvalConfig
    from drl.eval.checks import check_config

    check_config(
        EvalConfig(
            variant=VariantCfg(),
            agents=["greedy", "random"],
            games=MAX_GAMES,
            openings=MAX_OPENING_PLIES,
            max_plies=MAX_PLIES,
            workers=MAX_WORKERS,
        )
    )


def test_the_command_line_refuses_a_huge_game_count(tmp_path):
    cmd = [sys.executable, "-m", "drl.cli.eval", f"games={HUGE}", f"hydra.run.dir={tmp_path}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    assert f"drl-eval: games={HUGE}: must be between 1 and 1,000,000" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "games.pdn").exists()


def test_the_library_refuses_huge_counts_naming_the_argument():
    from drl.eval.arena import play_match, run_games
    from drl.eval.formats import halftime_match, pool_tournament
    from drl.eval.sprt import play_sprt
    from drl.eval.tournament import play_tournament

    with pytest.raises(ValueError, match="games must be between 1 and 1,000,000"):
        match_tasks("greedy", "random", "english", HUGE)
    with pytest.raises(ValueError, match="games must be between"):
        play_match("greedy", "random", "english", HUGE, settings=MatchSettings(progress=False))
    with pytest.raises(ValueError, match="openings must be at most 100 plies"):
        match_tasks("greedy", "random", "english", 2, MatchSettings(openings=HUGE))
    with pytest.raises(ValueError, match="max_plies must be between 1 and 100,000"):
        match_tasks("greedy", "random", "english", 2, MatchSettings(max_plies=HUGE))
    with pytest.raises(ValueError, match="games_per_half must be between"):
        halftime_match(
            "greedy", "random", "give_and_take", HUGE, settings=MatchSettings(progress=False)
        )
    with pytest.raises(ValueError, match=r"games_per_pair \* 3 pairs must be between"):
        play_tournament(["greedy", "random", "random:seed=1"], "english", MAX_GAMES)
    with pytest.raises(ValueError, match="lives must be between 1 and 1,000"):
        pool_tournament(
            ["greedy", "random", "random:seed=1"],
            lives=HUGE,
            settings=MatchSettings(progress=False),
        )
    with pytest.raises(ValueError, match="max_games must be between"):
        play_sprt(
            "greedy",
            "random",
            "english",
            2,
            settings=MatchSettings(progress=False),
            test=SPRTSettings(max_games=HUGE),
        )
    with pytest.raises(ValueError, match="batch_games must be between"):
        play_sprt("greedy", "random", "english", HUGE, settings=MatchSettings(progress=False))
    with pytest.raises(ValueError, match="workers must be between 1 and 256"):
        run_games(match_tasks("greedy", "random", "english", 2), workers=HUGE, progress=False)


def test_openings_are_drawn_as_the_games_start(monkeypatch):
    drawn = []
    board = openings.Board

    def counting_board(variant, fen=None):
        if fen is None:  # a random opening starts from the start position
            drawn.append(1)
        return board(variant, fen=fen)

    monkeypatch.setattr(openings, "Board", counting_board)
    tasks = match_tasks("greedy", "random", "english", 2000, MatchSettings(openings=6, seed=3))
    assert len(tasks) == 2000
    assert 1 <= len(drawn) <= 5  # the first opening only (a few tries at most)
    first = [tasks[i].opening for i in range(6)]  # three openings, each played twice
    assert len(set(first)) == 3
    assert len(drawn) <= 15
    # the same openings as drawing them all at once
    monkeypatch.setattr(openings, "Board", board)
    assert first[::2] == arena.make_openings("english", 3, 6, seed=3)


def test_a_long_schedule_starts_at_once_and_is_played_as_built():
    from drl.eval.arena import run_games

    tasks = match_tasks(
        "random", "random", "english", MAX_GAMES, MatchSettings(openings=8, max_plies=8)
    )
    assert len(tasks) == MAX_GAMES
    seen = []

    def stop_after_three(rec):
        seen.append(rec)
        if len(seen) == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_games(tasks, workers=1, progress=False, on_record=stop_after_three)
    assert [r.index for r in seen] == [0, 1, 2]
    assert [r.opening for r in seen] == [tasks[i].opening for i in range(3)]


def test_a_task_list_reads_as_a_list():
    a = match_tasks("greedy", "random", "english", 4, MatchSettings(openings=None))
    b = match_tasks("random", "greedy", "english", 2, MatchSettings(openings=None), first_index=4)
    both = a + b
    assert len(both) == 6
    assert [t.index for t in both] == list(range(6))
    assert both[-1] == b[1] and both[1:3] == [a[1], a[2]]
    assert both == list(a) + list(b)
    assert [t.index for t in list(a) + b] == list(range(6))
    with pytest.raises(IndexError):
        both[6]
