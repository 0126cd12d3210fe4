"""Replay the real recorded games of ../shared/data/games move by move.

Every recorded move must be legal. A game broken in its source is listed in BROKEN with
the reason, and must fail with that reason; any other failure fails the test. Where a
game ends in a position our rules call finished, the recorded result must agree.
Run with ``-s`` to see the counts of games and moves replayed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from drl.rules import Board, IllegalMoveError, PDNError, Variant, read_games, replay
from drl.rules.pdn import result_for_white, variant_for_game
from tests.shared_paths import SHARED_DATA

GAMES = SHARED_DATA / "games"

# Rules per folder; None = from each game's GameType tag (all present there).
# International files without a GameType tag are international games (data README).
FOLDERS = {
    "english": "english",
    "russian": None,
    "international": "international",
    "brazilian": None,
}

# Games broken in their source: (file, game number) -> words the failure must contain.
BROKEN = {
    # Move 62 reads "32-28" but Black's king left 32 at move 60 (60. 32-28); no black
    # piece stands on 32. A transcription error in the source.
    ("english/tinsley.pdn", 541): "move 62 (ply 123, '32-28')",
    # A remark glued to the last move without braces:
    # "8-11Redoversteppedthetimecontrolonthismove." (the moves before it replay).
    ("english/tinsley.pdn", 623): "'8-11Redoversteppedthetimecontrolonthismove.'",
    ("english/tinsley.pdn", 693): "'26-22Whiteoversteppedthetimecontrolonthismove.'",
    # "9n" where the move number "9." was meant (the moves before it replay).
    ("international/prof2.pdn", 4): "'9n' is neither a move",
}

PDN_FILES = (
    sorted(
        p.relative_to(GAMES).as_posix()
        for folder in FOLDERS
        for p in (GAMES / folder).glob("*.pdn")
    )
    if GAMES.exists()
    else []
)


@pytest.mark.parametrize("name", PDN_FILES)
def test_pdn_file_replays(name: str) -> None:
    path = GAMES / name
    folder = name.split("/")[0]
    games = moves = 0
    failures = {}
    for game in read_games(path, strict=False):
        games += 1
        try:
            board = replay(game, FOLDERS[folder])
        except PDNError as error:
            failures[game.index] = str(error)
            continue
        moves += len(board.move_stack)
        outcome = board.outcome()
        if outcome is not None and game.result not in (None, "*"):
            variant = board.variant
            assert outcome.result == result_for_white(game.result, variant), (
                f"{game.name}: the final position is {outcome}, the file says {game.result}"
            )
    print(f"\n{name}: {games - len(failures)}/{games} games replayed, {moves} moves")
    expected = {i: why for (f, i), why in BROKEN.items() if f == name}
    unexpected = {i: msg for i, msg in failures.items() if i not in expected}
    assert not unexpected, "\n".join(unexpected.values())
    for index, words in expected.items():
        assert index in failures, f"{name} game {index} is listed as broken but replays"
        assert words in failures[index]
    assert games > 0 and moves > 0


def test_every_game_folder_is_present(games_dir: Path) -> None:
    for folder in ("english", "russian", "international"):
        assert list((games_dir / folder).glob("*.pdn")), folder


def test_game_types_are_read(games_dir: Path) -> None:
    (game,) = [g for g in read_games(games_dir / "international/kurnik.pdn")][:1]
    assert game.tags["GameType"] == "20,W,10,10,N1,0"
    assert variant_for_game(game) == Variant.preset("international")


def test_russian_ambiguous_short_move_resolved_by_the_game(games_dir: Path) -> None:
    # World Championship 1998, game 2, move 30: "hg7" fits a man on h6 and a king on h8;
    # only the king move lets the rest of the game replay.
    game = list(read_games(games_dir / "russian/World_Championship_1998.pdn"))[1]
    assert str(replay(game).move_stack[58]) == "h8-g7"


def test_antidraughts_game_ends_with_a_white_win(games_dir: Path) -> None:
    # pydraughts' antidraughts fixture (10x10, international moves, both sides give):
    # after the last recorded move White has nothing to move and has won.
    (game,) = read_games(games_dir / "antidraughts/pydraughts_test_variants_antidraughts.pdn")
    board = replay(game, "international:objectives=give/give")
    assert len(board.move_stack) == 80
    assert board.outcome().result == result_for_white(game.result, board.variant) == "1-0"


# -- ACF games: one game per line, squares 0-31 -----------------------------------------------

ACF = GAMES / "english" / "ACF_games_lines_1-3000.txt"


def acf_square(i: int) -> int:
    """ACF file square (0-31) -> PDN square (1-32).

    Established by replaying the file: with this mapping every one of its 3000 games
    replays legally, while i+1, 32-i and the mirror of this map fail on the first move.
    The file counts each row of four from the other end (0 -> 4, 3 -> 1, 4 -> 8).
    """
    return 4 * (i // 4) + 4 - i % 4


def replay_acf_line(line: str) -> tuple[Board, str]:
    moves, result = line.split("\t")
    board = Board("english")
    for ply, text in enumerate(moves.split()):
        pdn = "-".join(str(acf_square(int(s))) for s in text.split("-"))
        try:
            board.push(pdn)
        except IllegalMoveError as err:
            raise AssertionError(
                f"ACF line {line[:40]!r}..., ply {ply + 1} {text!r} (= {pdn}): {err}"
            ) from None
    return board, result.strip()


def test_acf_mapping_on_the_first_moves() -> None:
    assert [acf_square(i) for i in (0, 3, 4, 10, 13, 21, 31)] == [4, 1, 8, 10, 15, 23, 29]
    board = Board("english")
    board.push(f"{acf_square(10)}-{acf_square(13)}")  # first line: "10-13" = 10-15
    assert str(board.move_stack[0]) == "10-15"


def test_acf_games_replay() -> None:
    """All 3000 lines (about 146,000 moves, a few seconds)."""
    if not ACF.exists():
        pytest.skip(f"shared data not available: {ACF}")
    lines = ACF.read_text().splitlines()
    moves = 0
    for line in lines:
        board, result = replay_acf_line(line)
        moves += len(board.move_stack)
        outcome = board.outcome()
        if outcome is not None:
            assert outcome.result == result_for_white(result, board.variant), line[:60]
    print(f"\n{ACF.name}: {len(lines)} games replayed, {moves} moves")
    assert len(lines) == 3000 and moves > 0
