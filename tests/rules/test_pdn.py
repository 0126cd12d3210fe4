"""PDN reader, writer and replay (drl.rules.pdn)."""

from __future__ import annotations

from pathlib import Path

import pytest

from drl.rules import Board, PDNError, Variant, read_games, replay, replay_file, write_game
from drl.rules.pdn import (
    board_to_pdn,
    game_type_tag,
    normalize_result,
    result_for_white,
    variant_for_game,
)


def one(text: str, **kw):
    games = list(read_games(text, **kw))
    assert len(games) == 1, games
    return games[0]


# -- the PDN syntax test files (wiegerw/pdn) -------------------------------------------------

SYNTAX = {
    "succeed_alphanumeric.pdn": (["a3b4"], None),
    "succeed_gameterminator.pdn": (["32-28"], "1/2-1/2"),
    "succeed_linecomment.pdn": (["32-28", "19-23"], None),
    "succeed_movestrength.pdn": (["32-28", "19-23", "28x19"], "*"),
    "succeed_string.pdn": (["32-28"], None),
    "succeed_unicode.pdn": (["32-28", "19-23"], None),
    "succeed_variation.pdn": (["32-28", "19-23", "28x19", "14x23"], None),
}


@pytest.mark.parametrize("name", sorted(SYNTAX))
def test_syntax_files_read(games_dir: Path, name: str):
    game = one(games_dir / "pdn-syntax" / name)
    moves, result = SYNTAX[name]
    assert game.moves == moves
    assert game.result == result


def test_syntax_file_tags(games_dir: Path):
    assert (
        one(games_dir / "pdn-syntax/succeed_string.pdn").tags["White"]
        == 'This is a string with an escaped character "'
    )
    unicode = one(games_dir / "pdn-syntax/succeed_unicode.pdn")
    assert unicode.tags == {"White": "Сергей Фадеев", "Black": "高文龙"}
    assert one(games_dir / "pdn-syntax/succeed_linecomment.pdn").tags == {"Date": "2012.02.01"}


def test_syntax_file_fen_games(games_dir: Path):
    games = list(read_games(games_dir / "pdn-syntax/succeed_fen.pdn"))
    assert [g.fen for g in games] == [
        "?:W29,13,11:B22,4,2",
        "W:W31,29,K15:B14,13,12,9",
        "W:W31-50:B1-20",
    ]
    assert all(g.moves == [] and g.result == "*" for g in games)
    boards = [replay(g, "international") for g in games]
    assert boards[0].turn == Board("international").turn  # "?" = the first player
    assert boards[2].fen() == Board("international").fen()


def test_nested_comment_is_a_clear_error(games_dir: Path):
    path = games_dir / "pdn-syntax/fail_nested_comment.pdn"
    with pytest.raises(
        PDNError, match=r"fail_nested_comment.pdn: game 1 \(line 1\): .*do not nest"
    ):
        list(read_games(path))
    (game,) = read_games(path, strict=False)
    assert game.moves == ["33-29", "19-23", "35-30"]
    assert "do not nest" in game.error
    with pytest.raises(PDNError, match="do not nest"):
        replay(game, "international")


def test_alphanumeric_move_replays_on_8x8(games_dir: Path):
    board = replay(one(games_dir / "pdn-syntax/succeed_alphanumeric.pdn"), "russian")
    assert [str(m) for m in board.move_stack] == ["a3-b4"]


# -- tokenizer details -------------------------------------------------------------------------


def test_glued_numbers_spaces_strength_nags_and_ellipsis():
    game = one("1.33-28 18-23 2. 28x19!? 14x23 $1 3.  1- 7?? 12... 35x 4 4. ... 10-15 *")
    assert game.moves == ["33-28", "18-23", "28x19", "14x23", "1-7", "35x4", "10-15"]
    assert game.move_numbers == [1, 1, 2, 2, 3, 12, 4]
    assert game.result == "*"


def test_comments_variations_and_line_comments():
    text = (
        '% a line comment\n[Event "x"]\n1. 32-28 {[%eval 0.12][%depth 9]} 19-23 '
        "(18-23 (17-22) 38-32 {a (paren) inside}) ; rest of line\n2. 28x19 14x23 2-0\n"
    )
    game = one(text)
    assert game.moves == ["32-28", "19-23", "28x19", "14x23"]
    assert game.result == "2-0"
    assert game.move_lines == [3, 3, 4, 4]


def test_russian_short_moves_and_colon_results():
    games = list(
        read_games('[GameType "25"]\n1. ed4 dc5 2. fe3 1/2:1/2\n[GameType "25"]\n1. cd4 fg5 0:1\n')
    )
    assert [g.moves for g in games] == [["ed4", "dc5", "fe3"], ["cd4", "fg5"]]
    assert [normalize_result(g.result) for g in games] == ["1/2-1/2", "0-1"]
    board = replay(games[0])
    assert [str(m) for m in board.move_stack] == ["e3-d4", "d6-c5", "f2-e3"]


def test_games_split_on_tags_without_result():
    games = list(read_games('[Event "a"]\n1. 32-28\n[Event "b"]\n1. 33-29 *\n'))
    assert [(g.tags["Event"], g.moves, g.index) for g in games] == [
        ("a", ["32-28"], 1),
        ("b", ["33-29"], 2),
    ]
    assert games[1].line == 3


def test_latin1_bytes_are_decoded():
    game = one('[White "Jos\xe9 Mu\xf1oz"]\n1. 32-28 *\n'.encode("latin-1"))
    assert game.tags["White"] == "José Muñoz"


def test_unclosed_tag_string_is_read_to_the_bracket():
    # A defect found in real files: [Round "11.1]
    game = one('[Round "11.1]\n[GameType "25"]\n1. cd4 *')
    assert game.tags == {"Round": "11.1", "GameType": "25"}


@pytest.mark.parametrize(
    "text, words",
    [
        ("1. 32-28 { open comment", ["line 1", "never closed"]),
        ("1. 32-28 )", ["')' without"]),
        ("1. 32-28 (19-23", ["never closed"]),
        ("1. 32-28 19-23hello", ["'19-23hello'"]),
        ("[Event x]", ["malformed tag"]),
        ("1. 32-28 19-", ["'19-'", "cut off"]),
    ],
)
def test_malformed_text(text, words):
    with pytest.raises(PDNError) as info:
        list(read_games(text))
    for word in words:
        assert word in str(info.value)


def test_non_strict_reading_goes_on_at_the_next_game():
    text = '[Event "a"]\n1. 32-28 19-23garbage 2. 33-29 *\n\n[Event "b"]\n1. 31-27 *\n'
    a, b = read_games(text, strict=False)
    assert a.moves == ["32-28"] and "19-23garbage" in a.error
    assert b.moves == ["31-27"] and b.error is None


@pytest.mark.parametrize(
    "text, result",
    [
        ("2-0", "1-0"),
        ("1-0", "1-0"),
        ("1:0", "1-0"),
        ("0-2", "0-1"),
        ("0-1", "0-1"),
        ("0:1", "0-1"),
        ("1-1", "1/2-1/2"),
        ("1/2-1/2", "1/2-1/2"),
        ("1/2:1/2", "1/2-1/2"),
        ("*", "*"),
    ],
)
def test_results(text, result):
    assert normalize_result(text) == result
    assert one(f"1. 32-28 {text}").result == text


def test_bad_result():
    with pytest.raises(PDNError, match="'3-0'"):
        normalize_result("3-0")


# -- GameType and Variant tags -----------------------------------------------------------------


@pytest.mark.parametrize(
    "value, name",
    [
        ("20", "international"),
        ("20,W,10,10,N1,0", "international"),
        ("21", "english"),
        ("25", "russian"),
        ("26", "brazilian"),
    ],
)
def test_game_type_to_variant(value, name):
    game = one(f'[GameType "{value}"]\n*')
    assert variant_for_game(game) == Variant.preset(name)


def test_unsupported_or_missing_game_type():
    with pytest.raises(PDNError, match=r"GameType 22 \(Italian\) is not supported"):
        variant_for_game(one('[GameType "22"]\n*'))
    with pytest.raises(PDNError, match="no GameType or Variant tag"):
        variant_for_game(one("1. 32-28 *"))
    assert variant_for_game(one("1. 32-28 *"), "international").board_size == 10


def test_variant_tag_wins_over_game_type():
    game = one('[GameType "21"]\n[Variant "give_and_take:taker=white"]\n*')
    assert variant_for_game(game) == Variant.parse("give_and_take:taker=white")


@pytest.mark.parametrize(
    "variant, game_type, tag",
    [
        ("english", "21", None),
        ("russian", "25", None),
        ("brazilian", "26", None),
        ("international", "20", None),
        ("giveaway", "25", "giveaway"),
        ("losing", "21", "losing"),
        ("give_and_take", "21", "give_and_take"),
        ("give_and_take:board_size=10", "20", "give_and_take:board_size=10"),
        ("english:max_capture=true", "21", "english:max_capture=true"),
    ],
)
def test_game_type_tag(variant, game_type, tag):
    v = Variant.parse(variant)
    number, variant_tag = game_type_tag(v)
    assert number == game_type
    assert variant_tag == (None if tag is None else str(Variant.parse(tag)))


# -- writing -----------------------------------------------------------------------------------


def test_write_then_read_back():
    moves = ["11-15", "23-19", "8-11", "22-17", "9-13", "17x10x1"]
    text = write_game(
        moves, {"Black": 'A "quoted" name', "Event": "test", "GameType": "21"}, "1/2-1/2", width=30
    )
    assert text.startswith('[Event "test"]\n[Black "A \\"quoted\\" name"]\n[Result "1/2-1/2"]')
    assert max(len(line) for line in text.splitlines()[4:]) <= 30
    game = one(text)
    assert game.moves == moves
    assert game.result == "1/2-1/2"
    assert game.tags["Black"] == 'A "quoted" name'
    assert game.move_numbers == [1, 1, 2, 2, 3, 3]


def test_write_rejects_bad_result():
    with pytest.raises(PDNError):
        write_game(["11-15"], {}, "white wins")


@pytest.mark.parametrize(
    "variant, fen, moves",
    [
        ("english", None, ["11-15", "23-19", "8-11", "22-17"]),
        ("give_and_take:taker=white", None, ["11-15", "22-18", "15x22"]),
        ("russian", "W:Wc3,e3:Bd4,f4", ["c3:e5:g3"]),
        ("international", "W:WK46:B37,22,21,31", ["46x28x17x26"]),
    ],
)
def test_board_to_pdn_replays_to_the_same_position(variant, fen, moves):
    board = Board(variant, fen=fen)
    for m in moves:
        board.push(m)
    text = board_to_pdn(board, {"Event": "selfplay"})
    game = one(text)
    if Variant.parse(variant) != Variant.preset(Variant.parse(variant).name):
        assert game.tags["Variant"] == str(board.variant)
    assert ("FEN" in game.tags) == (fen is not None)
    again = replay(game)
    assert again.variant == board.variant
    assert again.fen() == board.fen()
    assert again.move_stack == board.move_stack


def test_board_to_pdn_result_from_outcome():
    board = Board("international", fen="W:W28:B23")
    board.push("28x19")
    game = one(board_to_pdn(board))
    assert game.result == "1-0" and game.tags["Result"] == "1-0"


def test_english_files_put_blacks_score_first():
    # Tricks_traps_and_shots.pdn, "TTS Example 3": White to move, "{white wins} 0-1".
    english = Variant.preset("english")
    assert result_for_white("0-1", english) == "1-0"
    assert result_for_white("1/2-1/2", english) == "1/2-1/2"
    assert result_for_white("0-1", Variant.preset("international")) == "0-1"
    assert result_for_white("2-0", Variant.preset("international")) == "1-0"
    board = Board("english", fen="W:W22:B18")
    board.push("22x15")
    assert board.outcome().result == "1-0"  # White won: Black has no pieces
    game = one(board_to_pdn(board))
    assert game.result == "0-1"
    assert result_for_white(game.result, english) == "1-0"


def test_board_to_pdn_takes_an_outcome_or_a_white_first_result_and_converts_it():
    # The writer's argument is in the package's convention (White's score first); the
    # file gets the GameType's own (English: Black's first). Passing the Outcome, its
    # text or nothing gives the same file.
    from drl.rules import Color, Outcome, Termination
    from drl.rules.pdn import result_for_file

    board = Board("english", fen="B:W22:B18")
    board.push("18x25")
    outcome = board.outcome()
    assert outcome == Outcome(Termination.NO_PIECES, Color.BLACK)
    texts = {
        board_to_pdn(board),
        board_to_pdn(board, None, outcome),
        board_to_pdn(board, None, outcome.result),
    }
    assert len(texts) == 1
    game = one(texts.pop())
    assert game.result == game.tags["Result"] == "1-0"  # Black's score first
    assert result_for_white(game.result, board.variant) == "0-1"
    for variant in ("english", "losing", "give_and_take", "international", "russian"):
        v = Variant.parse(variant)
        for white_first in ("1-0", "0-1", "1/2-1/2", "*"):
            assert result_for_white(result_for_file(white_first, v), v) == white_first
    assert result_for_file(None, Variant.preset("english")) == "*"
    with pytest.raises(PDNError):
        result_for_file("white wins", Variant.preset("english"))


# -- replay errors -----------------------------------------------------------------------------


def test_replay_names_file_game_and_move():
    text = (
        '[GameType "21"]\n1. 11-15 23-19 2. 8-11 *\n\n'
        '[GameType "21"]\n1. 11-15 23-19\n2. 9-14 22-18 3. 15x24 *\n'
    )
    first, second = read_games(text)
    assert len(replay(first).move_stack) == 3
    with pytest.raises(PDNError) as info:
        replay(second)
    msg = str(info.value)
    for word in (
        "<text>: game 2",
        "line 6",
        "move 3",
        "ply 5",
        "'15x24'",
        "legal moves",
        "14x23",
        "15x22",
    ):
        assert word in msg


def test_replay_file_goes_on_after_a_bad_game(tmp_path: Path):
    path = tmp_path / "three.pdn"
    path.write_text(
        '[GameType "21"]\n1. 11-15 23-19 *\n\n'
        '[GameType "21"]\n1. 11-15 11-16 *\n\n'
        '[GameType "21"]\n1. 9-13 *\n'
    )
    report = replay_file(path)
    assert report.games_ok == 2 and report.games == 3
    assert report.moves == 2 + 1 + 1
    ((index, message),) = report.failures
    assert index == 2 and "'11-16'" in message
    assert "2/3 games ok" in str(report)


def test_replay_file_of_a_missing_file_raises_file_not_found(tmp_path: Path):
    missing = tmp_path / "does-not-exist.pdn"
    for path in (missing, str(missing)):
        with pytest.raises(FileNotFoundError, match="does-not-exist.pdn"):
            replay_file(path)
    with pytest.raises(FileNotFoundError, match="does-not-exist.pdn"):
        list(read_games(str(missing)))
    with pytest.raises(FileNotFoundError):
        replay_file(str(tmp_path))  # a folder is not a PDN file


@pytest.mark.parametrize(
    "content", [b"", b"\n\n   \n", bytes(range(256)) * 4, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"]
)
def test_a_file_without_readable_games_is_a_failure(tmp_path: Path, content: bytes):
    path = tmp_path / "odd.pdn"
    path.write_bytes(content)
    report = replay_file(path)
    assert report.games_ok == 0 and report.failures
    assert "0/" in str(report)


def test_a_malformed_first_tag_fails_its_game_and_keeps_the_error(tmp_path: Path):
    path = tmp_path / "badtag.pdn"
    path.write_text(
        '[Event "a"\n[GameType "21"]\n1. 11-15 *\n\n'
        '[Event "b"]\n[GameType "21"]\n1. 11-15 22-18 *\n'
    )
    with pytest.raises(PDNError, match="line 1"):
        list(read_games(path))
    first, second = read_games(path, strict=False)
    assert first.error is not None and "line 1" in first.error
    assert first.tags == {"GameType": "21"} and first.moves == ["11-15"]
    assert second.error is None and second.tags["Event"] == "b"
    report = replay_file(path)
    assert report.games_ok == 1 and [i for i, _ in report.failures] == [1]
    assert "line 1" in report.failures[0][1]


def test_a_malformed_tag_after_a_game_starts_the_next_game():
    text = '[GameType "21"]\n1. 11-15 *\n\n[Event "b\n[GameType "21"]\n1. 9-13 *\n'
    first, second = read_games(text, strict=False)
    assert first.error is None and first.moves == ["11-15"]
    assert second.error is not None and second.moves == ["9-13"]


def test_tag_values_with_pdn_characters_read_back_exactly():
    value = 'a "quoted" name \\ with ] { } ; % and ( )'
    game = one(write_game(["11-15"], {"Event": value, "Site": "x", "GameType": "21"}))
    assert game.tags["Event"] == value and game.moves == ["11-15"]


@pytest.mark.parametrize(
    "tags, problem",
    [
        ({"Event": "first line\nsecond line"}, "line break"),
        ({"Event": "carriage\rreturn"}, "line break"),
        ({"My Tag": "x"}, "tag name"),
        ({"Tag]": "x"}, "tag name"),
    ],
)
def test_writer_refuses_tags_that_would_not_read_back(tags, problem):
    with pytest.raises(PDNError, match=problem):
        write_game(["11-15"], tags)
    board = Board("english")
    board.push("11-15")
    with pytest.raises(PDNError, match=problem):
        board_to_pdn(board, tags)


# -- malformed input: always a PDNError for its game, and reading goes on ---------------------

NEXT_GAME = '\n\n[Event "next"]\n[GameType "21"]\n1. 11-15 23-19 *\n'


@pytest.mark.parametrize(
    "movetext, words",
    [
        ("1. 11-15 ] 23-19 *", ["(line 3)", "']' without a tag"]),  # a stray ]
        ("1. 11-15 (23-19 [Event] 22-18) 23-19 *", ["(line 3)", "'[' inside a variation"]),
        # the error is found at the next game's tag line
        ("1. 11-15 (23-19 22-18 *", ["(line 5)", "'(' opened on line 3 is never closed"]),
        ("1. 11-15 } 23-19 *", ["(line 3)", "'}' without a matching '{'"]),
        ("1. 11-15 23-", ["(line 3)", "'23-'", "cut off"]),
    ],
)
def test_malformed_movetext_fails_its_game_and_reading_goes_on(tmp_path, movetext, words):
    text = f'[Event "bad"]\n[GameType "21"]\n{movetext}{NEXT_GAME}'
    with pytest.raises(PDNError) as info:
        list(read_games(text))
    for word in ["<text>: game 1 ", *words]:
        assert word in str(info.value)
    bad, good = read_games(text, strict=False)
    assert bad.error is not None and all(word in bad.error for word in words)
    assert not bad.complete
    assert good.tags["Event"] == "next" and good.moves == ["11-15", "23-19"] and good.complete
    path = tmp_path / "bad.pdn"
    path.write_text(text)
    report = replay_file(path)
    assert report.games_ok == 1 and [i for i, _ in report.failures] == [1]


def test_an_unclosed_variation_before_a_tag_line_ends_its_game_there():
    # The tag line is the next game's: the error belongs to the first game, whose moves
    # before the variation are kept, and the second game is read whole.
    text = '[GameType "21"]\n1. 11-15 (23-19\n[GameType "21"]\n1. 9-13 22-18 *\n'
    first, second = read_games(text, strict=False)
    assert first.moves == ["11-15"] and "never closed" in first.error
    assert second.error is None and second.moves == ["9-13", "22-18"] and second.line == 3


@pytest.mark.parametrize(
    "movetext, words",
    [
        ("1" * 5000 + ". 11-15 *", ["move number", "over the limit 999999"]),
        ("12345678. 11-15 *", ["move number '12345678.'", "999999"]),
        ("11-15" + "!" * 20_000 + "x *", ["too long to be a move", "(20006 characters)"]),
    ],
)
def test_huge_numbers_and_words_in_the_movetext_are_bounded_errors(movetext, words):
    text = f'[GameType "21"]\n{movetext}{NEXT_GAME}'
    with pytest.raises(PDNError) as info:
        list(read_games(text))
    message = str(info.value)
    assert all(word in message for word in words) and len(message) < 300
    bad, good = read_games(text, strict=False)
    assert bad.error is not None and good.complete and good.moves == ["11-15", "23-19"]


@pytest.mark.parametrize(
    "tags, words",
    [
        ({"GameType": "2" * 4300}, ["GameType", "over the limit 999", "(4300 characters)"]),
        ({"GameType": "21" + "0" * 5000}, ["GameType", "over the limit 999"]),
        ({"GameType": "20,W,10," + "9" * 5000}, ["board height", "at most 2 digits"]),
        ({"GameType": "20,W,8,8,N1,0"}, ["board width 8", "international (10x10)"]),
        ({"GameType": "21,B,8,10"}, ["board height 10", "english (8x8)"]),
        ({"Variant": "english:board_size=" + "9" * 5000}, ["Variant", "board_size", "8 or 10"]),
        ({"Variant": "english:no_progress_plies=" + "9" * 5000}, ["1..1000000000"]),
        ({"Variant": "x" * 10**6}, ["unknown variant", "(1000000 characters)"]),
    ],
)
def test_numeric_tags_are_bounded_and_name_the_tag(tmp_path, tags, words):
    lines = "".join(f'[{k} "{v}"]\n' for k, v in tags.items())
    text = f"{lines}1. 11-15 *{NEXT_GAME}"
    (bad, good) = read_games(text)
    with pytest.raises(PDNError) as info:
        variant_for_game(bad)
    message = str(info.value)
    assert "game 1" in message and all(word in message for word in words), message
    assert len(message) < 400
    path = tmp_path / "tags.pdn"
    path.write_text(text)
    report = replay_file(path)
    assert report.games_ok == 1 and [i for i, _ in report.failures] == [1]
    assert all(word in report.failures[0][1] for word in words)


def test_game_type_board_fields_that_match_are_accepted():
    for value in ("20,W,10,10,N1,0", "25,W,8,8,A0,0", "21,B,8,8", "20,W,,"):
        assert variant_for_game(one(f'[GameType "{value}"]\n*')).name in (
            "international",
            "russian",
            "english",
        )


def test_bytes_in_a_named_encoding_that_they_are_not_are_a_pdn_error():
    with pytest.raises(PDNError, match=r"<bytes>: byte 8 .* not utf-8"):
        list(read_games(b'[Event "\xe9t\xe9"]\n*\n', "utf-8"))


# -- a game cut off without a termination marker ----------------------------------------------


def test_a_truncated_last_game_is_incomplete_and_the_earlier_games_are_fine(tmp_path):
    games = [
        '[Event "a"]\n[GameType "21"]\n[Result "1-0"]\n1. 11-15 23-19 2. 8-11 1-0\n\n',
        '[Event "b"]\n[GameType "21"]\n[Result "0-1"]\n1. 9-13 22-18 0-1\n\n',
        '[Event "c"]\n[GameType "21"]\n[Result "1-0"]\n1. 11-15 23-19 2. 8-11 22-17 1-0\n',
    ]
    text = "".join(games)
    cut = text[: text.rindex("22-17")]  # the file ends in the middle of game c
    a, b, c = read_games(cut)
    assert (a.result, a.complete) == ("1-0", True) and (b.result, b.complete) == ("0-1", True)
    assert c.moves == ["11-15", "23-19", "8-11"]
    assert c.result is None and not c.complete  # not the Result tag's "1-0"
    assert c.tags["Result"] == "1-0" and c.error is None
    path = tmp_path / "cut.pdn"
    path.write_text(cut)
    report = replay_file(path)
    assert report.games_ok == 2 and report.games == 3 and not report.failures
    ((index, message),) = report.incomplete
    assert index == 3 and "incomplete: no result marker" in message and "ply 3" in message
    assert "2/3 games ok, 1 incomplete" in str(report)
    assert "game 3: " in str(report)
    # the whole file is fine
    path.write_text(text)
    report = replay_file(path)
    assert report.games_ok == 3 and not report.incomplete and not report.failures


@pytest.mark.parametrize(
    "ending",
    ["", "\n", " 22-", " 1/2-1", " 2. ", " {a comment", " (22-17", '\n[Event "d"'],
)
def test_every_cut_off_ending_is_incomplete_or_an_error(ending):
    text = '[GameType "21"]\n[Result "1-0"]\n1. 11-15 23-19' + ending
    games = list(read_games(text, strict=False))
    assert all(not g.complete for g in games)
    assert games[0].result is None and games[0].moves == ["11-15", "23-19"]


def test_games_without_a_marker_before_the_next_tags_are_incomplete():
    first, second = read_games('[Event "a"]\n1. 32-28\n[Event "b"]\n1. 33-29 *\n')
    assert not first.complete and first.result is None
    assert second.complete and second.result == "*"


# -- ambiguous short moves: no recursion, bounded trials ---------------------------------------

# Russian kings on e3 and e5 can both play "ed4"; the next white move "de3" is only legal
# after the king from e3 went, so every cycle is resolved by the move after it. Black's
# king shuttles a3-b4, out of the white kings' lines.
AMBIGUOUS_FEN = "W:WKe3,Ke5:BKa3"
AMBIGUOUS_CYCLE = ["ed4", "ab4", "de3", "ba3"]


def _ambiguous_game(cycles: int) -> str:
    moves = " ".join(AMBIGUOUS_CYCLE * cycles)
    return f'[GameType "25"]\n[FEN "{AMBIGUOUS_FEN}"]\n{moves} *\n'


def test_many_ambiguous_short_moves_replay_without_deep_recursion():
    import inspect
    import sys

    (game,) = read_games(_ambiguous_game(120))
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + 80)  # far fewer frames than ambiguous moves
    try:
        board = replay(game)
    finally:
        sys.setrecursionlimit(limit)
    assert len(board.move_stack) == 480
    assert [str(m) for m in board.move_stack[:4]] == ["e3-d4", "a3-b4", "d4-e3", "b4-a3"]


def test_resolving_ambiguous_moves_stops_after_a_bounded_number_of_trial_moves(monkeypatch):
    import importlib

    # the module, not the function of the same name that drl.rules.pdn exports
    pdn_replay = importlib.import_module("drl.rules.pdn.replay")

    (game,) = read_games(_ambiguous_game(3))
    assert len(replay(game).move_stack) == 12
    monkeypatch.setattr(pdn_replay, "MAX_TRIAL_PLIES", 5)
    with pytest.raises(PDNError, match=r"move 1 \(ply 1, 'ed4'\).*gave up after 5 trial moves"):
        replay(game)


# -- one game's broken header never leaks into the next game ----------------------------------


@pytest.mark.parametrize(
    "junk",
    [
        '[Event "a"]\n[Variant "losing"]\n\n',  # a header cut off before its moves
        '[Event "a"]\n[Variant "losing"]\n',  # the same, without the blank line
        '[GameType "21"]\n1. 11-15 * [\n\n',  # a stray '[' after a result
        '[Variant "losing"]\n[bad tag\n\n',  # a header with a malformed tag line
    ],
)
def test_a_broken_header_does_not_leak_into_the_next_game(tmp_path, junk):
    text = junk + '[Event "b"]\n[GameType "21"]\n1. 11-15 22-18 *\n'
    games = list(read_games(text, strict=False))
    last = games[-1]
    assert last.tags == {"Event": "b", "GameType": "21"} and last.error is None
    assert last.complete and variant_for_game(last) == Variant.preset("english")
    path = tmp_path / "junk.pdn"
    path.write_text(text)
    report = replay_file(path)
    assert last.index not in [i for i, _ in report.failures + report.incomplete]
    assert report.games_ok == len([g for g in games if g.complete])
