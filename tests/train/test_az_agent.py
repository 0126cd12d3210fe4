"""The az agent through the agents registry and the arena; drl-play with scripted input."""

from dataclasses import replace

import pytest

from drl.agents import make
from drl.eval.arena import play_match
from drl.eval.settings import MatchSettings
from drl.rules import Board
from drl.train.loop import train


@pytest.fixture(scope="module")
def trained(tmp_path_factory, tiny):
    run = tmp_path_factory.mktemp("az") / "run"
    result = train(tiny(iterations=1), run)
    return run, result.checkpoint


def test_az_agent_plays_legal_moves_through_the_registry(trained):
    run, ckpt = trained
    agent = make(f"az:ckpt={ckpt},sims=4")
    assert agent.name == "az:ckpt=" + str(ckpt) + ",sims=4"
    board = Board("give_and_take")
    for _ in range(6):
        move = agent.select_move(board)
        assert move in board.legal_moves
        board.push(move)
    # a run folder works too (newest good checkpoint)
    assert (
        make(f"az:ckpt={run},sims=2").select_move(Board("give_and_take"))
        in Board("give_and_take").legal_moves
    )


def test_az_agent_in_the_arena(trained):
    _, ckpt = trained
    res = play_match(
        f"az:ckpt={ckpt},sims=2",
        "random",
        "give_and_take",
        games=4,
        settings=MatchSettings(openings=None, workers=1, max_plies=40, progress=False),
    )
    assert len(res.records) == 4
    roles = {r.role_of(res.players[0]) for r in res.records}
    assert roles == {"taker", "giver"}


def test_az_spec_errors(tmp_path):
    with pytest.raises(ValueError, match="ckpt"):
        make("az:sims=4")
    with pytest.raises(ValueError, match="does not exist"):
        make(f"az:ckpt={tmp_path / 'missing.pt'}")


def test_drl_play_reasks_illegal_moves(trained):
    from drl.cli.play import PlayConfig, play_session

    _, ckpt = trained
    answers = iter(["15-19", "moves", "9-13", "quit"])
    out = []
    result = play_session(
        PlayConfig(ckpt=str(ckpt), sims=2, color="black", role="taker"),
        read=lambda prompt: next(answers),
        write=out.append,
    )
    text = "\n".join(out)
    assert result == "*"
    # 15-19 is not legal at the start: the legal moves are listed and the move asked again
    assert "legal moves: 9-13, 9-14, 10-14, 10-15, 11-15, 11-16, 12-16" in text
    assert "network plays" in text
    assert "(taker)" in text


@pytest.mark.parametrize("size", [8, 10])
def test_square_numbers_follow_the_board_geometry(size):
    from drl.cli.play import square_numbers
    from drl.rules.geometry import COL, ROW

    z = 0 if size == 8 else 1
    rows = square_numbers(size).splitlines()
    assert len(rows) == size
    for s in range(size * size // 2):
        r, c = int(ROW[z, s]), int(COL[z, s])
        assert rows[r][3 * c : 3 * c + 2].strip() == str(s + 1)


def test_az_games_in_flight_are_the_games_played_one_by_one(trained):
    from drl.eval.arena import match_tasks, play_game, play_in_flight

    _, ckpt = trained
    spec = f"az:ckpt={ckpt},sims=4,device=cpu"
    tasks = match_tasks(
        spec,
        "alphabeta:depth=1",
        "give_and_take",
        4,
        MatchSettings(openings=2, seed=1, max_plies=30),
    )
    one_by_one = [play_game(t) for t in tasks]
    in_flight = play_in_flight(tasks)
    assert [(r.moves, r.result) for r in in_flight] == [(r.moves, r.result) for r in one_by_one]
    agent = make(spec)
    before = agent.player.searches
    agent.select_moves([Board("give_and_take"), Board("give_and_take:taker=white")])
    assert agent.player.searches - before >= 1


def test_training_evaluation_plays_the_arena_games(trained):
    # The evaluation's baseline is reset with each game's seed, as in the arena (it used
    # to be one instance shared by all the games, so its moves depended on the others).
    from drl.agents.az import NetworkAgent, NetworkPlayer
    from drl.eval.arena import match_tasks, play_game
    from drl.train.evaluate import EVALUATION_SETTINGS, NET_NAME, play_against_baseline

    _, ckpt = trained
    net = make(f"az:ckpt={ckpt},sims=4,device=cpu")
    player = net.player
    records = play_against_baseline(
        player.evaluate,
        player.search,
        "random",
        "give_and_take",
        4,
        settings=replace(EVALUATION_SETTINGS, openings=2, seed=3, max_plies=30),
    )
    agent = NetworkAgent(NetworkPlayer(player.evaluate, player.search), NET_NAME)
    tasks = match_tasks(
        agent,
        "random",
        "give_and_take",
        4,
        MatchSettings(openings=2, seed=3, max_plies=30, event="drl evaluation"),
        names=(NET_NAME, "random"),
    )
    expected = [play_game(t) for t in tasks]
    assert [r.pdn for r in records] == [r.pdn for r in expected]
