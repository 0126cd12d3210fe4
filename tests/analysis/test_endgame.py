"""Endgame accuracy: the share of moves in database positions that keep their exact value."""

from __future__ import annotations

import pytest

from drl.analysis import analyze_games, endgame_accuracy
from drl.analysis.games import as_games
from drl.analysis.report.tables import comparison_rows, run_tables
from drl.egtb import build

# White to move, kings on 1 and 3 against Black's king on 4: a win for White.
WON = "W:WK1,K3:BK4"


@pytest.fixture(scope="module")
def english3(tmp_path_factory):
    folder = tmp_path_factory.mktemp("egtb-analysis")
    build("english", 3, directory=folder, progress=False, log=lambda msg: None)
    return folder


def _games():
    return as_games(
        [
            # 3-8 throws the win away: Black must take 4x11 and one king cannot beat
            # another (White's king on 1 against Black's on 11, White to move: a draw)
            {"variant": "english", "opening": WON, "moves": ["3-8", "4x11"]},
            # 1-5 keeps the win (Black has only 4-8), 4-8 is a move from a lost
            # position, and 3x12 wins at once
            {"variant": "english", "opening": WON, "moves": ["1-5", "4-8", "3x12"]},
        ]
    )


def test_a_move_that_throws_a_win_away_lowers_the_accuracy(english3):
    acc = endgame_accuracy(_games(), directory=english3)
    assert acc is not None and acc["pieces"] == 3
    all_ = acc["groups"]["all"]
    # by hand: from won positions 3-8 (lost the win), 1-5 and 3x12 (kept): 2 of 3;
    # from drawn positions 4x11 (kept): 1 of 1; from lost positions 4-8, left out
    assert all_["win_kept"]["value"] == pytest.approx(2 / 3)
    assert all_["draw_kept"]["value"] == 1.0
    assert (all_["moves"], all_["from_loss"]) == (4, 1)
    assert all_["accuracy"]["value"] == pytest.approx(3 / 4) and all_["accuracy"]["value"] < 1
    assert set(acc["groups"]) == {"all"}  # no roles in English


def test_perfect_play_keeps_every_value(english3):
    acc = endgame_accuracy(_games()[1:], directory=english3)
    assert acc is not None and acc["groups"]["all"]["accuracy"]["value"] == 1.0


def test_no_database_on_disk_gives_none_and_na_in_the_report(tmp_path):
    assert endgame_accuracy(_games(), directory=tmp_path) is None
    summary = {"name": "x", "variant": "english", "endgame": None}
    assert comparison_rows([summary])[0]["endgame accuracy"] == "n/a"
    tables = dict(run_tables(summary))
    assert tables["Endgame accuracy"][0]["accuracy"].startswith("n/a")


def test_the_summary_and_the_report_carry_the_accuracy(english3, monkeypatch):
    monkeypatch.setenv("DRL_EGTB_DIR", str(english3))
    summary = analyze_games(_games())
    assert summary["endgame"]["groups"]["all"]["moves"] == 4
    summary["name"] = "hand-made"
    cell = comparison_rows([summary])[0]["endgame accuracy"]
    assert cell.startswith("0.75 [")
    rows = dict(run_tables(summary))["Endgame accuracy"]
    assert rows[0]["moves by"] == "all" and rows[0]["from lost positions"] == "1"


def test_give_and_take_is_split_by_role(tmp_path):
    folder = tmp_path / "gt"
    build("give_and_take", 2, directory=folder, progress=False, log=lambda msg: None)
    # Black is the Taker: its man on 14 takes the Giver's last piece on 18 and wins (a
    # win kept); in the second game White, the Giver, moves from a drawn position (the
    # database says so) and either move keeps the draw
    games = as_games(
        [
            {"variant": "give_and_take", "opening": "B:W18:B14", "moves": ["14x23"]},
            {"variant": "give_and_take", "opening": "W:W19:B14", "moves": ["19-15"]},
        ]
    )
    acc = endgame_accuracy(games, directory=folder)
    assert acc is not None
    groups = acc["groups"]
    assert groups["taker"]["win_kept"]["value"] == 1.0
    assert groups["giver"]["draw_kept"]["value"] == 1.0
    total = groups["taker"]["moves"] + groups["taker"]["from_loss"]
    total += groups["giver"]["moves"] + groups["giver"]["from_loss"]
    assert total == groups["all"]["moves"] + groups["all"]["from_loss"] == 2


def test_the_analysis_self_play_plays_database_positions_out(monkeypatch):
    from types import SimpleNamespace

    import drl.eval.arena as arena
    from drl.analysis.run import ANALYSIS_SETTINGS, _self_play
    from drl.rules import Variant

    seen = []

    def play_tasks(tasks, *args):
        seen.extend(tasks)
        return [], None

    monkeypatch.setattr(arena, "play_tasks", play_tasks)
    agent = SimpleNamespace(player=SimpleNamespace(evaluate=object()))
    assert ANALYSIS_SETTINGS.egtb  # the default: the arena would end them
    _self_play(agent, Variant.parse("english"), 2, ANALYSIS_SETTINGS)
    assert len(seen) == 2 and not any(t.egtb for t in seen)


def test_games_that_name_their_players_are_scored_per_player(english3):
    from dataclasses import replace

    thrown, kept = _games()
    games = [replace(thrown, players=("x", "y")), replace(kept, players=("y", "x"))]
    acc = endgame_accuracy(games, directory=english3)
    assert acc is not None
    x, y = acc["players"]["x"], acc["players"]["y"]
    # x: 4x11 (a draw kept) as Black, then 1-5 and 3x12 (wins kept) as White
    assert (x["moves"], x["accuracy"]["value"], x["from_loss"]) == (3, 1.0, 0)
    # y: 3-8 (the win thrown away) as White, then 4-8 from a lost position as Black
    assert (y["moves"], y["accuracy"]["value"], y["from_loss"]) == (1, 0.0, 1)


def test_arena_pdn_names_the_players(english3):
    pdn = (
        '[Event "t"]\n[Black "x"]\n[White "y"]\n[Variant "english"]\n[SetUp "1"]\n'
        f'[FEN "{WON}"]\n\n1. 3-8 4x11 *\n'
    )
    (game,) = as_games(pdn)
    assert game.players == ("x", "y")
    acc = endgame_accuracy([game], directory=english3)
    assert acc is not None and acc["players"]["y"]["accuracy"]["value"] == 0.0
