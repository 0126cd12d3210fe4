"""The arena ends a game at a position the endgame database decides, with its exact result."""

from __future__ import annotations

import pytest

from drl.egtb import build
from drl.eval.arena import GameTask, play_game, play_match
from drl.eval.config import EvalConfig
from drl.eval.endings import database_result, game_database
from drl.eval.report import pairs_table
from drl.eval.runners import summary
from drl.eval.settings import MatchSettings
from drl.rules import Board

# White to move with kings on 1 and 3 against Black's king on 4: White wins in 3 plies
# (1-5, 4-8 forced, 3x12), and no counter of English can draw it first.
WON = "W:WK1,K3:BK4"


@pytest.fixture(scope="module")
def english3(tmp_path_factory):
    folder = tmp_path_factory.mktemp("egtb-eval")
    build("english", 3, directory=folder, progress=False, log=lambda msg: None)
    return folder


@pytest.fixture
def with_db(english3, monkeypatch):
    monkeypatch.setenv("DRL_EGTB_DIR", str(english3))
    return english3


@pytest.fixture
def no_db(tmp_path, monkeypatch):
    monkeypatch.setenv("DRL_EGTB_DIR", str(tmp_path / "empty"))


def _task(egtb: bool = True, opening: str = WON) -> GameTask:
    return GameTask(0, "random", "random", "a", "b", "english", opening, 0, seed=3, egtb=egtb)


def test_a_database_position_ends_the_game_at_once_with_its_exact_result(with_db):
    rec = play_game(_task())
    assert (rec.plies, rec.termination, rec.winner, rec.result) == (0, "database", "white", "1-0")
    assert rec.by_database and not rec.truncated
    assert '[Termination "database"]' in rec.pdn and '[Database "white"]' in rec.pdn
    assert rec.score_of("b") == 1.0  # "b" plays White


def test_with_the_switch_off_the_game_plays_on(with_db):
    rec = play_game(_task(egtb=False))
    assert rec.plies > 0 and rec.termination != "database"
    assert "Database" not in rec.pdn


def test_a_match_counts_its_database_games_in_the_results(with_db, tmp_path):
    settings = MatchSettings(openings=[WON], workers=1, progress=False, pdn_path=tmp_path / "g.pdn")
    match = play_match("random", "greedy", "english", 2, settings=settings)
    assert [r.termination for r in match.records] == ["database", "database"]
    # White wins each: "random" is White in the second game only
    assert (match.score("random"), match.score("greedy")) == (1.0, 1.0)
    part = summary(match.records, list(match.players))
    assert part["random"]["all"]["database"] == 2
    assert part["random"]["all"]["truncated"] == 0
    assert part["greedy"]["white"]["wins"] == 1
    from rich.console import Console

    console = Console(width=200, record=True)
    console.print(pairs_table(match.records, list(match.players)))
    lines = console.export_text().splitlines()
    head = [c.strip() for c in lines[2].split("┃")]
    row = [c.strip() for c in lines[4].split("│")]
    assert row[head.index("database")] == "2" and row[head.index("truncated")] == "0"
    from drl.analysis.games import as_games

    back = as_games(str(tmp_path / "g.pdn"))  # the PDN's tags give the result back
    assert [(g.termination, g.winner) for g in back] == [("database", "white")] * 2


def test_the_game_loops_in_flight_end_at_the_database_too(with_db):
    from drl.eval.play import play_in_flight

    (rec,) = play_in_flight([_task()])
    assert (rec.plies, rec.termination, rec.winner) == (0, "database", "white")


def test_a_position_of_the_history_repeated_keeps_a_decided_game_going(with_db):
    db = game_database("english")
    assert db is not None
    board = Board("english", fen="W:WK25,K29:BK4")
    assert database_result(board, db) is not None
    for move in ("25-22", "4-8", "22-25", "8-4"):  # back to the first position
        board.push(move)
    assert database_result(board, db) is not None  # each earlier position once
    board.push("25-22")  # the first position is now in the history twice: a line of
    assert db.exact(board.state) is not None  # the win could meet the repetition draw
    assert database_result(board, db) is None


def test_positions_with_more_pieces_than_the_database_play_on(with_db):
    db = game_database("english")
    assert database_result(Board("english"), db) is None
    assert game_database("english", use=False) is None
    assert game_database("give_and_take:role_swap_after_captures=2") is None


def test_without_a_database_on_disk_a_seeded_match_is_unchanged(no_db):
    assert game_database("english") is None
    base = MatchSettings(openings=4, seed=5, workers=1, max_plies=40, progress=False)
    on = play_match("alphabeta:depth=1", "random", "english", 4, settings=base)
    off = play_match(
        "alphabeta:depth=1",
        "random",
        "english",
        4,
        settings=MatchSettings(
            openings=4, seed=5, workers=1, max_plies=40, progress=False, egtb=False
        ),
    )
    assert [r.moves for r in on.records] == [r.moves for r in off.records]
    assert [(r.result, r.termination) for r in on.records] == [
        (r.result, r.termination) for r in off.records
    ]
    assert all(r.termination != "database" for r in on.records)
    assert summary(on.records, list(on.players))["random"]["all"]["database"] == 0


def test_the_switch_in_settings_and_in_drl_evals_config():
    assert MatchSettings().egtb is True and EvalConfig().egtb is True
    assert EvalConfig(egtb=False).match_settings().egtb is False
    with pytest.raises(ValueError, match="egtb"):
        MatchSettings(egtb="no")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "variant, fen, winner",
    [
        # the Taker's man on 14 must take the Giver's last piece on 18: the Taker wins
        ("give_and_take", "B:W18:B14", "black"),
        # the same capture with White as the Taker, read from the same file turned round
        ("give_and_take:taker=white", "W:W19:B15", "white"),
    ],
)
def test_give_and_take_games_end_at_the_database_in_both_role_assignments(
    tmp_path, monkeypatch, variant, fen, winner
):
    build("give_and_take", 2, directory=tmp_path, progress=False, log=lambda msg: None)
    monkeypatch.setenv("DRL_EGTB_DIR", str(tmp_path))
    task = GameTask(0, "random", "random", "a", "b", variant, fen, 0, seed=1)
    rec = play_game(task)
    assert (rec.plies, rec.termination, rec.winner) == (0, "database", winner)
    assert f'[Database "{winner}"]' in rec.pdn


def test_drl_eval_counts_database_games_in_results_json(with_db, tmp_path):
    import json

    from drl._configs import VariantCfg
    from drl.cli.eval import run

    def evaluate(egtb: bool):
        out = tmp_path / str(egtb)
        cfg = EvalConfig(
            variant=VariantCfg(name="english", spec="english"),
            agents=["alphabeta:depth=1", "alphabeta:depth=2"],
            games=8,
            workers=1,
            progress=False,
            plot=False,
            egtb=egtb,
        )
        run(cfg, out)
        return json.loads((out / "results.json").read_text()), (out / "games.pdn").read_text()

    saved, pdn = evaluate(True)
    ended = sum(g["termination"] == "database" for g in saved["games"])
    assert ended > 0  # these two reach three pieces in some games (seeded)
    assert saved["config"]["egtb"] is True
    for name in saved["players"]:
        assert saved["summary"][name]["all"]["database"] == ended
    assert pdn.count('[Termination "database"]') == ended
    off, pdn = evaluate(False)
    assert not any(g["termination"] == "database" for g in off["games"])
    assert off["summary"]["alphabeta:depth=1"]["all"]["database"] == 0
    assert "Database" not in pdn
