"""The arena: colour/role schedule, openings, truncation, parallel play, PDN read back."""

import pytest

from drl.agents import Agent, make
from drl.eval.arena import make_openings, match_tasks, play_match
from drl.eval.settings import MatchSettings
from drl.rules import Board, FENError, Variant, read_games, replay
from drl.rules.pdn import result_for_white, variant_for_game

PRESETS = [
    "english",
    "russian",
    "brazilian",
    "international",
    "giveaway",
    "losing",
    "give_and_take",
]


def test_give_and_take_schedule_pairs_games_per_opening_and_role():
    tasks = match_tasks(
        "alphabeta:depth=2", "random", "give_and_take", 8, MatchSettings(openings=2, seed=1)
    )
    combos = []
    for t in tasks:
        a_color = "black" if t.black_name == "alphabeta:depth=2" else "white"
        v = Variant.parse(t.variant)
        combos.append((a_color, "taker" if v.taker == a_color else "giver", v.taker))
    # a pair: one opening, one Taker colour, A and B's colours swapped (each plays each
    # role once from it); the next opening flips the Taker colour
    for k, (t, u) in enumerate(zip(tasks[::2], tasks[1::2], strict=True)):
        assert t.opening == u.opening and t.opening_index == u.opening_index == k
        assert combos[2 * k][2] == combos[2 * k + 1][2] == ("black", "white")[k % 2]
        assert {combos[2 * k][:2], combos[2 * k + 1][:2]} in (
            {("black", "taker"), ("white", "giver")},
            {("white", "taker"), ("black", "giver")},
        )
    assert len({t.opening for t in tasks}) == 4
    for g in (0, 4):  # every four games, A plays every colour/role combination once
        assert {c[:2] for c in combos[g : g + 4]} == {
            ("black", "taker"),
            ("black", "giver"),
            ("white", "taker"),
            ("white", "giver"),
        }


def test_symmetric_schedule_swaps_colours_per_opening():
    tasks = match_tasks("greedy", "random", "english", 6, MatchSettings(openings=3, seed=1))
    assert [t.black_name for t in tasks] == ["greedy", "random"] * 3
    assert len({t.opening for t in tasks}) == 3
    assert all(t.opening == u.opening for t, u in zip(tasks[::2], tasks[1::2], strict=True))


def test_same_spec_on_both_sides_gets_distinct_names():
    tasks = match_tasks("random", "random", "english", 2, MatchSettings(openings=None))
    assert {tasks[0].black_name, tasks[0].white_name} == {"random#1", "random#2"}


def test_openings_are_seeded_live_positions():
    a = make_openings("english", 5, 3, seed=7)
    assert a == make_openings("english", 5, 3, seed=7)
    assert a != make_openings("english", 5, 3, seed=8)
    for fen in a:
        board = Board("english", fen=fen)
        assert board.turn == 1  # three plies from a Black-first start
        assert not board.is_game_over()


def test_fen_openings_and_bad_fen():
    fens = ["B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"]
    m = play_match(
        "random",
        "greedy",
        "english",
        2,
        settings=MatchSettings(openings=fens, workers=1, progress=False, max_plies=6),
    )
    assert all(r.opening == fens[0] for r in m.records)
    with pytest.raises(FENError):
        play_match(
            "random",
            "greedy",
            "english",
            2,
            settings=MatchSettings(openings=["B:W99:B1"], workers=1, progress=False),
        )


def test_max_plies_truncation_is_not_a_draw_by_rule():
    m = play_match(
        "random",
        "random",
        "international",
        2,
        settings=MatchSettings(workers=1, progress=False, max_plies=10, openings=None),
    )
    for r in m.records:
        assert (r.termination, r.result, r.winner, r.plies) == ("max_plies", "*", None, 10)
        assert r.truncated and r.score_of(r.black) == 0.5


@pytest.mark.parametrize(
    "variant",
    PRESETS
    + [
        "give_and_take:taker=white,max_capture=true",
        "give_and_take:objectives=give/give",
        "losing:promotion=remove,blocked_giver=loses",
    ],
)
def test_every_written_game_reads_back_legal(variant, tmp_path):
    path = tmp_path / "games.pdn"
    m = play_match(
        "greedy",
        "random",
        variant,
        4,
        settings=MatchSettings(
            openings=2, seed=3, workers=1, progress=False, max_plies=60, pdn_path=path
        ),
    )
    games = list(read_games(path))
    assert len(games) == len(m.records) == 4
    for game, rec in zip(games, m.records, strict=True):
        board = replay(game)  # raises on the first illegal move
        assert [str(x) for x in board.move_stack] == list(rec.moves)
        assert board.root().fen() == rec.opening == game.tags["FEN"]
        assert game.tags["Black"] == rec.black and game.tags["White"] == rec.white
        # The record keeps White's score first; the file its GameType's convention.
        assert result_for_white(game.tags["Result"], variant_for_game(game)) == rec.result
        assert game.tags["Termination"] == rec.termination
        assert Variant.parse(game.tags["Variant"]) == Variant.parse(rec.variant)
        if rec.termination != "max_plies":
            assert board.outcome().result == rec.result
        if Variant.parse(rec.variant).role(0) is not None:
            assert (game.tags["BlackRole"], game.tags["WhiteRole"]) == rec.roles


def test_parallel_workers_give_the_same_games():
    kwargs = dict(openings=2, seed=11, progress=False, max_plies=80)
    one, two = (
        play_match(
            "alphabeta:depth=2",
            "mcts:sims=30",
            "give_and_take",
            4,
            settings=MatchSettings(workers=workers, **kwargs),
        )
        for workers in (1, 2)
    )
    assert [r.moves for r in one.records] == [r.moves for r in two.records]
    assert [r.result for r in one.records] == [r.result for r in two.records]


@pytest.mark.parametrize("variant", ["english", "give_and_take"])
def test_alphabeta_beats_random_small(variant):
    from drl.eval.stats import summarize

    m = play_match(
        "alphabeta:depth=4",
        "random",
        variant,
        8,
        settings=MatchSettings(seed=5, workers=1, progress=False),
    )
    s = summarize(m.records, "alphabeta:depth=4")
    assert s["all"].score >= 0.9
    if variant == "give_and_take":
        assert s["taker"].games == s["giver"].games == 4
        assert s["taker"].score >= 0.9 and s["giver"].score >= 0.9


@pytest.mark.slow
@pytest.mark.parametrize("variant", PRESETS)
def test_alphabeta_scores_90_percent_against_random(variant):
    from drl.eval.stats import summarize

    m = play_match(
        "alphabeta:depth=4",
        "random",
        variant,
        80,
        settings=MatchSettings(seed=2024, progress=False),
    )
    s = summarize(m.records, "alphabeta:depth=4")
    parts = ["taker", "giver"] if variant == "give_and_take" else ["all"]
    for part in parts:
        assert s[part].games >= 40
        assert s[part].score >= 0.9, (part, s[part])
        assert s[part].score_interval[0] >= 0.85, (part, s[part])


@pytest.mark.parametrize(
    "variant, fen",
    [
        ("english", "B:W22:B18"),  # 18x25 takes White's last piece
        ("give_and_take", "B:W22:B18"),  # the Taker (Black) takes the Giver's last piece
        ("losing", "W:W22:B18"),  # White must take Black's last piece: Black wins
        ("international", "B:W33:B28"),  # 28x39 takes White's last piece
    ],
)
def test_a_black_win_reads_back_as_a_black_win_in_every_file_convention(variant, fen):
    # English-board files (GameType 21) give Black's score first: the arena must write
    # "1-0" there and "0-1" in international files, and both read back as a Black win.
    from drl.eval.arena import GameTask, play_game

    rec = play_game(GameTask(0, "greedy", "greedy", "A", "B", variant, fen, 0, 1))
    assert rec.winner == "black" and rec.result == "0-1"
    game = next(read_games(rec.pdn))
    assert result_for_white(game.result, variant_for_game(game)) == "0-1"
    assert game.result == ("0-1" if variant == "international" else "1-0")


class _Batched(Agent):
    """A stateless batched agent (its move is a function of the position) that records
    how many boards each call got."""

    batched = True
    name = "batched"

    def __init__(self):
        self.calls = []

    def select_move(self, board):
        moves = board.legal_moves
        return moves[(int(board.state[0]) + board.ply) % len(moves)]

    def select_moves(self, boards):
        self.calls.append(len(boards))
        return [self.select_move(b) for b in boards]


def _content(records):
    timed = ("seconds", "clock")
    return [{k: v for k, v in r.to_dict().items() if k not in timed} for r in records]


@pytest.mark.parametrize("variant", ["english", "give_and_take"])
def test_games_in_flight_are_the_games_of_the_one_game_loop(variant):
    from drl.eval.arena import play_game, play_in_flight

    batched = _Batched()
    tasks = match_tasks(
        batched, "alphabeta:depth=2", variant, 8, MatchSettings(openings=2, seed=7, max_plies=60)
    )
    tasks += match_tasks(
        "greedy",
        "random",
        variant,
        4,
        MatchSettings(openings=2, seed=8, max_plies=60),
        first_index=len(tasks),
    )
    one_by_one = [play_game(t) for t in tasks]
    assert batched.calls == [1] * len(batched.calls)
    batched.calls.clear()
    in_flight = play_in_flight(tasks[::-1], in_flight=5)  # any order, any number at once
    assert _content(in_flight) == _content(one_by_one)
    assert max(batched.calls) == 5  # the batched agent moved in 5 games per call


def test_run_games_keeps_batched_games_in_process_and_the_rest_in_workers():
    from drl.eval.arena import run_games

    batched = _Batched()
    tasks = match_tasks(
        batched, "greedy", "give_and_take", 4, MatchSettings(openings=2, seed=3, max_plies=40)
    )
    tasks += match_tasks(
        "alphabeta:depth=1",
        "random",
        "give_and_take",
        4,
        MatchSettings(openings=2, seed=4, max_plies=40),
        first_index=len(tasks),
    )
    seen = []
    two = run_games(tasks, workers=2, progress=False, on_record=seen.append)
    one = run_games(tasks, workers=1, progress=False)
    assert _content(two) == _content(one)
    assert sorted(r.index for r in seen) == list(range(8))
    with pytest.raises(ValueError, match="objects"):
        run_games(match_tasks(make("greedy"), "random", "english", 2), workers=2, progress=False)
    with pytest.raises(ValueError, match="in_flight"):
        run_games(tasks, workers=1, progress=False, in_flight=0)


def test_the_arena_still_exports_the_names_of_its_parts():
    import importlib

    from drl.eval import arena

    homes = {"limits", "openings", "play", "records", "spread", "tasks"}
    moved = set(arena.__all__) | {"IgnoringSignals", "check_max_plies", "check_openings"}
    for name in moved:
        obj = getattr(arena, name)
        home = getattr(obj, "__module__", None)
        if home is not None and home != "drl.eval.arena":
            assert home.rsplit(".", 1)[1] in homes, name
            assert getattr(importlib.import_module(home), name) is obj, name
    # limits and counts are plain values: each is its home module's
    from drl.eval import limits, play

    for name in ("MAX_GAMES", "MAX_OPENING_PLIES", "MAX_PLIES", "MAX_WORKERS"):
        assert getattr(arena, name) == getattr(limits, name)
    assert arena.DEFAULT_IN_FLIGHT == play.DEFAULT_IN_FLIGHT
