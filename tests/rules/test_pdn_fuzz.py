"""Hostile PDN: mutated and truncated files never crash the reader.

The texts are real-looking games: random legal games played with :class:`Board` and
written with the project's PDN writer. Hypothesis inserts, deletes and replaces
characters (brackets, braces, parentheses, ``;``, ``%``, quotes, backslashes, digits,
numbers of thousands of digits, NUL bytes) in one game of a file, or cuts the file off
anywhere, and checks that

* reading raises nothing but :class:`PDNError` (strict) and nothing at all (not strict);
* non-strict reading and :func:`replay_file` go on to the following valid game and read
  it exactly as written;
* a game reported complete has a result marker it really had: a truncated game is
  incomplete or an error, never ok with a result it did not have.

The default run is small (a few seconds); the ``slow`` variants try many more examples.
"""

from __future__ import annotations

import functools
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drl.rules import Board, PDNError, read_games, replay_file
from drl.rules.pdn import Game, board_to_pdn

VARIANTS = ("english", "russian", "international", "give_and_take", "brazilian", "losing")


@functools.cache
def game_texts() -> tuple[str, ...]:
    """PDN texts of random legal games, each ending with the writer's blank line: short
    ones (a few plies: replaying them is what takes the time) and every fourth longer;
    every third starts from a FEN (a ``FEN`` tag); some are finished (a real result)."""
    rng = random.Random(5)
    texts = []
    for i in range(16):
        board = Board(VARIANTS[i % len(VARIANTS)])
        if i % 3 == 1:  # start the game from a position a few moves in: a FEN tag
            for _ in range(rng.randint(4, 30)):
                if not board.legal_moves:
                    break
                board.push(rng.choice(board.legal_moves))
            board = Board(board.variant, fen=board.fen())
        for _ in range(rng.randint(0, 50 if i % 4 == 0 else 6)):
            if not board.legal_moves or board.is_game_over():
                break
            board.push(rng.choice(board.legal_moves))
        texts.append(board_to_pdn(board, {"Event": f"fuzz {i}", "Round": str(i)}))
    texts.append(board_to_pdn(_finished_game(), {"Event": "finished"}))
    return tuple(texts)


def _finished_game() -> Board:
    board = Board("english", fen="B:W22,23:B18,6")
    board.push("18x27")  # then 23x... white takes back: a short game with a real result
    while board.legal_moves and not board.is_game_over():
        board.push(board.legal_moves[0])
    assert board.outcome() is not None
    return board


def key(game: Game) -> tuple:
    return (game.tags, game.moves, game.result, game.complete)


@functools.cache
def parsed(text: str) -> Game:
    (game,) = read_games(text)
    assert game.complete
    return game


_DIRS: list[Path] = []


@pytest.fixture(scope="module", autouse=True)
def _files_dir(tmp_path_factory):
    _DIRS.append(tmp_path_factory.mktemp("pdn-fuzz"))
    yield
    _DIRS.pop()


def tmp_dir() -> Path:
    """Where the checks write their files (pytest's temporary folder for this module)."""
    return _DIRS[-1]


INSERTS = st.one_of(
    st.sampled_from(list('[](){};%"\\\n\r\t .-x:*/!?$0123456789\x00aehKWB\u00e9')),
    st.sampled_from(
        [
            "9" * 5000,  # over Python's int-string conversion limit
            "1" * 4400 + ".",  # a move number of 4400 digits
            "\n[",
            '[Event "',
            "(",
            ")",
            "{",
            "}",
            "1-0",
            "1/2-1/2",
            "*",
            "\x00" * 3,
            '[GameType "' + "2" * 4300 + '"]\n',
            '[Variant "english:board_size=' + "9" * 5000 + '"]\n',
            '[FEN "W:W' + "5" * 5000 + '"]\n',
            "!" * 3000 + "x",
        ]
    ),
    st.text(max_size=4),
)
OPS = st.lists(
    st.tuples(st.sampled_from(["insert", "delete", "replace"]), st.integers(0, 10**6), INSERTS),
    min_size=1,
    max_size=6,
)


def mutate(text: str, ops) -> str:
    chars = list(text)
    for op, where, what in ops:
        at = where % (len(chars) + 1)
        if op == "insert":
            chars[at:at] = [what]
        elif op == "delete":
            del chars[at : at + 1 + len(what)]
        else:
            chars[at : at + 1] = [what]
    return "".join(chars)


def check_file(before: str, middle: str, after: str) -> None:
    """Read ``before + middle + after`` (``before`` and ``after``: valid games) in every
    way; reading must go on past ``middle`` to ``after``."""
    text = before + middle + "\n\n" + after
    try:
        list(read_games(text))
    except PDNError:
        pass
    games = list(read_games(text, strict=False))
    assert key(games[0]) == key(parsed(before))
    assert key(games[-1])[:3] == key(parsed(after))[:3] and games[-1].complete
    for game in games:
        assert game.complete == (game.result is not None and game.error is None)
    path = tmp_dir() / "mutated.pdn"
    path.write_text(text, encoding="utf-8")
    report = replay_file(path)
    assert report.games == len(games)
    last = games[-1].index
    assert all(i != last for i, _ in report.failures + report.incomplete), str(report)
    assert report.games_ok >= 2


def check_truncated(texts: tuple[str, ...], cut: int, replay: bool = True) -> None:
    """Read the file of ``texts`` (valid games) cut off after ``cut`` characters: the games
    whose marker ends before the cut are read exactly; any other game read is incomplete
    or an error, unless the cut left its marker whole (then it is exact too)."""
    text = "".join(texts)
    originals = [parsed(t) for t in texts]
    head = text[:cut]
    try:
        list(read_games(head))
    except PDNError:
        pass
    games = list(read_games(head, strict=False))
    ends, start = [], 0
    for t in texts:  # a writer's game ends with its marker and a blank line
        ends.append(start + len(t.rstrip("\n")))
        start += len(t)
    whole = sum(end <= cut for end in ends)
    assert len(games) <= len(originals)
    for i, game in enumerate(games):
        if i < whole:
            assert key(game) == key(originals[i])
        elif game.complete:
            raise AssertionError(f"cut at {cut} inside game {i + 1}, read as complete: {game}")
        else:
            assert game.result is None or game.error is not None
    if replay and games:
        path = tmp_dir() / "truncated.pdn"
        path.write_text(head, encoding="utf-8")
        report = replay_file(path)
        assert report.games_ok == whole, str(report)
        assert len(report.failures) + len(report.incomplete) == len(games) - whole


def three(data) -> tuple[str, str, str]:
    """Three different games: any in the middle, short ones around it."""
    texts = game_texts()
    short = [t for i, t in enumerate(texts) if i % 4]
    middle = data.draw(st.sampled_from(texts))
    before, after = data.draw(st.permutations([t for t in short if t != middle]))[:2]
    return before, middle, after


FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _mutated(data) -> None:
    before, middle, after = three(data)
    check_file(before, mutate(middle.rstrip("\n"), data.draw(OPS)), after)


def _truncated(data) -> None:
    texts = three(data)
    check_truncated(texts, data.draw(st.integers(0, sum(map(len, texts)))))


@FAST
@given(st.data())
def test_a_mutated_game_never_crashes_the_reader_and_reading_goes_on(data):
    _mutated(data)


@FAST
@given(st.data())
def test_a_truncated_file_reports_its_last_game_incomplete_or_as_an_error(data):
    _truncated(data)


@pytest.mark.slow
@SLOW
@given(st.data())
def test_a_mutated_game_never_crashes_the_reader_many_examples(data):
    _mutated(data)


@pytest.mark.slow
@SLOW
@given(st.data())
def test_a_truncated_file_never_reads_as_ok_many_examples(data):
    _truncated(data)


# -- the cases the fuzz first found, and every cut of one file -----------------------------------


def _between_words(text: str, pieces: list[str]) -> str:
    """``text`` with ``pieces[i]`` put between its movetext words ``2 + 3 i`` and
    ``3 + 3 i``."""
    start = text.index("\n1.") + 1
    head, words = text[:start], text[start:].rstrip("\n").split(" ")
    for i, piece in enumerate(pieces):
        words.insert(3 + 4 * i, piece)
    return head + " ".join(words)


@pytest.mark.parametrize(
    "pieces",
    [
        ["]"],  # a stray ] in the movetext
        ["(", "[Event]"],  # a [ inside a variation
        ["(", '\n[Event "in a variation"]\n'],  # a tag line inside an unclosed variation
        ["(", "[Round"],
        ["}"],
        ["{"],
        ["("],
        ["1" * 4400 + "."],
        ["12-"],
        ['\n[Round "3\\'],  # a backslash before the line break of a tag pair
    ],
)
def test_malformed_brackets_and_numbers_in_a_game(pieces):
    texts = game_texts()
    before, middle, after = texts[1], texts[0], texts[2]
    mutated = _between_words(middle, pieces)
    assert all(piece in mutated for piece in pieces)
    check_file(before, mutated, after)


def test_every_cut_of_a_file_is_read_without_crashing():
    texts = game_texts()[1:4]
    for cut in range(sum(map(len, texts)) + 1):
        check_truncated(texts, cut, replay=cut % 25 == 0)
