"""drl-play checks its pdn= file before the game (a one-line error naming the path), and
prints the game's PDN when the file still cannot be written at the end."""

import subprocess
import sys

import pytest

from tests.tiny_checkpoints import tiny_resnet_checkpoint

torch = pytest.importorskip("torch")


@pytest.fixture
def a_file(tmp_path):
    f = tmp_path / "a_file"
    f.write_text("not a folder\n")
    return f


@pytest.fixture
def ckpt(tmp_path):
    return tiny_resnet_checkpoint(tmp_path / "ckpt")


def test_drl_play_refuses_an_unwritable_pdn_before_the_game(ckpt, a_file):
    from drl.cli.play import PlayConfig, play_session

    out = []
    with pytest.raises(ValueError, match=rf"^pdn={a_file}/game.pdn: cannot write this file"):
        play_session(
            PlayConfig(ckpt=str(ckpt), sims=2, device="cpu", pdn=f"{a_file}/game.pdn"),
            read=lambda prompt: "quit",
            write=out.append,
        )
    assert out == []  # no game was started


def test_drl_play_command_line_error_is_one_line(ckpt, a_file):
    cmd = [
        sys.executable,
        "-m",
        "drl.cli.play",
        f"ckpt={ckpt}",
        "device=cpu",
        f"pdn={a_file}/game.pdn",
    ]
    proc = subprocess.run(
        cmd, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL
    )
    assert proc.returncode != 0
    assert proc.stderr.strip() == (
        f"drl-play: pdn={a_file}/game.pdn: cannot write this file ({a_file} is a file, "
        "not a folder)"
    )


def test_drl_play_prints_the_game_when_the_file_cannot_be_written_at_the_end(ckpt, tmp_path):
    from drl.cli.play import PlayConfig, play_session

    target = tmp_path / "game.pdn"

    def read(prompt):
        target.mkdir()  # the path stops being writable while the game is played
        return "14x23"  # takes White's last man: Black wins

    out = []
    cfg = PlayConfig(
        ckpt=str(ckpt), sims=2, device="cpu", fen="B:W18:B14", color="black", pdn=str(target)
    )
    assert play_session(cfg, read=read, write=out.append) == "0-1"
    text = "\n".join(out)
    assert f"could not write the game to pdn={target}" in text
    assert '[Event "drl-play"]' in text and "14x23" in text


def test_drl_play_writes_a_pdn_path_given_with_a_tilde(ckpt, tmp_path, monkeypatch):
    # The check before the game expanded "~" and the write at the end did not.
    from drl.cli.play import PlayConfig, play_session

    monkeypatch.setenv("HOME", str(tmp_path))
    out: list[str] = []
    play_session(
        PlayConfig(ckpt=str(ckpt), sims=2, device="cpu", fen="B:W18:B14", pdn="~/g/x.pdn"),
        read=lambda prompt: "14x23",
        write=out.append,
    )
    assert (tmp_path / "g" / "x.pdn").read_text().count("14x23") == 1
    assert not (tmp_path / "~").exists()
