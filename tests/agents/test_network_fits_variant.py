"""A network is checked against the variant it is asked to play, by one check, wherever it
is loaded: the az agent, the arena, drl-play and the training evaluation refuse a
network of another board size before its first move, naming where it came from."""

import pytest

from drl.eval.settings import MatchSettings

torch = pytest.importorskip("torch")

from drl.agents import make  # noqa: E402
from drl.encode import N_CHANNELS, num_actions  # noqa: E402
from drl.rules import Board  # noqa: E402


def _checkpoint(folder, board_size, variant, in_channels=N_CHANNELS, with_variant=True):
    """A tiny untrained resnet saved as a drl checkpoint (no training: a second or so)."""
    from drl.nn import build, describe
    from drl.nn.checkpoint import save_checkpoint

    torch.manual_seed(0)
    net = build(
        in_channels=in_channels,
        board_size=board_size,
        num_actions=num_actions(board_size),
        channels=4,
        blocks=1,
        policy_channels=1,
        value_channels=1,
        value_hidden=4,
    )
    payload = {"model": net.state_dict(), **describe(net), "counters": {}}
    if with_variant:
        payload["variant"] = variant
    return save_checkpoint(folder, 1, payload)


@pytest.fixture(scope="module")
def english(tmp_path_factory):
    return _checkpoint(tmp_path_factory.mktemp("english"), 8, "english")


def _names_everything(message, ckpt):
    assert str(ckpt) in message
    assert "8x8" in message and "english" in message  # the checkpoint's board and variant
    assert "10x10" in message and "international" in message  # the variant asked for


def test_the_az_agent_refuses_another_board_when_it_is_built(english):
    from drl.agents.az import AZAgent

    with pytest.raises(ValueError) as err:
        AZAgent(str(english), sims=2, device="cpu", variant="international")
    _names_everything(str(err.value), english)
    with pytest.warns(UserWarning, match="trained on english"):  # 8x8: fits, other rules
        AZAgent(str(english), sims=2, device="cpu", variant="give_and_take")


def test_a_built_agent_refuses_the_board_before_its_first_move(english):
    agent = make(f"az:ckpt={english},sims=2,device=cpu")
    board = Board("international")
    with pytest.raises(ValueError) as err:
        agent.select_move(board)
    _names_everything(str(err.value), english)
    with pytest.raises(ValueError, match=str(english)):
        agent.select_moves([Board("english"), board])
    assert board.ply == 0
    assert agent.select_move(Board("english")) in Board("english").legal_moves


def test_the_arena_refuses_before_any_game(english):
    from drl.eval.arena import play_match, run_games
    from drl.eval.formats import pool_tournament
    from drl.eval.tournament import play_tournament

    spec = f"az:ckpt={english},sims=2,device=cpu"
    seen = []
    with pytest.raises(ValueError) as err:
        play_match(
            spec, "random", "international", 2, settings=MatchSettings(workers=1, progress=False)
        )
    _names_everything(str(err.value), english)
    with pytest.raises(ValueError, match=str(english)):
        play_tournament(
            [spec, "random"], "international", 2, settings=MatchSettings(workers=1, progress=False)
        )
    with pytest.raises(ValueError, match=str(english)):
        pool_tournament(
            [spec, "random", "greedy"], "international", settings=MatchSettings(progress=False)
        )
    # tasks built by hand are checked as each game starts, before its first move
    from drl.eval.arena import match_tasks

    tasks = match_tasks(make(spec), "random", "international", 2, MatchSettings(openings=None))
    with pytest.raises(ValueError, match=str(english)):
        run_games(tasks, workers=1, progress=False, on_record=seen.append)
    assert seen == []


def test_drl_play_refuses_before_the_game(english, tmp_path):
    from drl.cli.play import PlayConfig, play_session

    out = []
    with pytest.raises(ValueError) as err:
        play_session(
            PlayConfig(ckpt=str(english), variant="international", sims=2, device="cpu"),
            read=lambda prompt: "quit",
            write=out.append,
        )
    _names_everything(str(err.value), english)
    assert out == []  # nothing shown: no board, no game
    # a checkpoint that does not name its variant is played as english, and checked
    ten = _checkpoint(tmp_path, 10, "international", with_variant=False)
    with pytest.raises(ValueError, match=rf"{ten}.*10x10.*english is played on 8x8"):
        play_session(
            PlayConfig(ckpt=str(ten), sims=2, device="cpu"), read=lambda p: "quit", write=print
        )


def test_the_training_evaluation_checks_its_network(english):
    from drl.train.evaluate import play_against_baseline

    agent = make(f"az:ckpt={english},sims=2,device=cpu")
    with pytest.raises(ValueError, match=r"network of agent az holds arch 'resnet' for 8x8"):
        play_against_baseline(
            agent.player.evaluate, agent.player.search, "random", "international", 2
        )


def test_the_one_check_refuses_other_planes_and_actions(english, tmp_path):
    from drl.nn import NetConfig, check_variant, load
    from drl.nn.checkpoint import load_checkpoint

    payload = load_checkpoint(english)
    with pytest.raises(ValueError, match=r"checkpoint X holds arch 'resnet' for 8x8 boards"):
        load(payload, variant="international", source="checkpoint X")
    old = _checkpoint(tmp_path, 8, "english", in_channels=N_CHANNELS - 1)
    with pytest.raises(ValueError, match=rf"reading {N_CHANNELS - 1} input planes"):
        make(f"az:ckpt={old},sims=2,device=cpu").select_move(Board("english"))
    wrong = NetConfig(in_channels=N_CHANNELS, board_size=8, num_actions=1800)
    with pytest.raises(ValueError, match="the network has 1800 step actions; the game has 896"):
        check_variant(wrong, "english")
    ten = NetConfig(in_channels=N_CHANNELS, board_size=10, num_actions=1800)
    check_variant(ten, "international")  # fits: no error


def test_a_network_playing_other_rules_than_its_own_is_warned_about(tmp_path):
    # Allowed (cross-variant play), but easy to do by leaving out variant=: say so once.
    import warnings

    from drl.agents.az import AZAgent

    ckpt = _checkpoint(tmp_path, 8, "give_and_take")
    with pytest.warns(UserWarning, match=rf"{ckpt} was trained on give_and_take and plays") as got:
        agent = AZAgent(str(ckpt), sims=2, device="cpu", variant="english")
        agent.check_variant("english")  # drl-play checks again: still one warning
    assert len([w for w in got if "was trained on" in str(w.message)]) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # its own rules, with either colour as the Taker
        for v in ("give_and_take", "give_and_take:taker=white"):
            AZAgent(str(ckpt), sims=2, device="cpu", variant=v)
