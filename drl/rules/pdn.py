"""PDN (Portable Draughts Notation) reading, writing and replaying.

The reader accepts what real files contain: tag pairs (``[Event "..."]``, ``[FEN "..."]``,
``[GameType "20,W,10,10,N1,0"]``), ``{}`` comments (engine annotations included),
``%`` and ``;`` line comments, ``()`` variations (nested), move numbers glued to moves
(``1.33-28``, ``12...``), strength marks (``!``, ``?!``), NAGs (``$3``), separators followed
by a space (``1- 7``), Russian short moves (``ed4``) and the results ``2-0 1-1 0-2``,
``1-0 1/2-1/2 0-1``, ``1:0 1/2:1/2 0:1`` and ``*``. Bytes are decoded as UTF-8, falling back
to ISO-8859-1 (Latin-1), which many older files use.

Malformed text is always a :class:`PDNError` that names the game and the line (read
with ``strict=False``, it fails only its game, and reading goes on with the next one); a
game whose movetext ends without a termination marker (a truncated file) is read as
incomplete (``Game.complete`` False) and :func:`replay_file` reports it so.

The writer produces standard PDN that this reader (and common draughts software) reads
back. Variants without an official GameType (giveaway, losing, give_and_take, or any
preset with changed flags) are written with their base board's GameType plus a
``[Variant "<full variant string>"]`` tag (DESIGN §2).
"""

from __future__ import annotations

import errno
import functools
import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from drl.rules._quote import excerpt
from drl.rules.notation import MAX_MOVE_TEXT

if TYPE_CHECKING:
    from drl.rules.board import Board, Move, Outcome
    from drl.rules.variant import Variant

__all__ = [
    "GAME_TYPES",
    "MAX_GAME_TYPE",
    "MAX_MOVE_NUMBER",
    "MAX_TRIAL_PLIES",
    "Game",
    "PDNError",
    "ReplayReport",
    "board_to_pdn",
    "game_type_tag",
    "normalize_result",
    "read_games",
    "replay",
    "replay_file",
    "result_for_file",
    "result_for_white",
    "variant_for_game",
    "write_game",
]


class PDNError(ValueError):
    """Unreadable PDN text or an illegal recorded move; the message names file, game,
    line or move number, and the reason."""


#: Official PDN GameType numbers of the variants this package plays (PDN 3.0 standard).
GAME_TYPES: dict[int, str] = {20: "international", 21: "english", 25: "russian", 26: "brazilian"}
_GAME_TYPE_NAMES = {
    22: "Italian",
    23: "American pool",
    24: "Spanish",
    27: "Canadian",
    28: "Portuguese",
    29: "Czech",
    30: "Turkish",
    31: "Thai",
    40: "Frisian",
    41: "Spantsiretti",
}

_RESULTS = {
    "2-0": "1-0",
    "1-0": "1-0",
    "1:0": "1-0",
    "2:0": "1-0",
    "0-2": "0-1",
    "0-1": "0-1",
    "0:1": "0-1",
    "0:2": "0-1",
    "1-1": "1/2-1/2",
    "1/2-1/2": "1/2-1/2",
    "1/2:1/2": "1/2-1/2",
    "1:1": "1/2-1/2",
    "0-0": "0-0",
    "0:0": "0-0",
    "*": "*",
}
_MOVE_NUMBER = re.compile(r"^(\d+)\.+")
_TAG_NAME = re.compile(r"[A-Za-z0-9_]+")
_TAG_OPEN = re.compile(r"\[[ \t]*([A-Za-z0-9_]+)[ \t]*\"")  # one line
_TAG_CLOSE = re.compile(r"\"?\s*\]")
_WORD = re.compile(r"[^\s{}()\[\];]+")
_NAG = re.compile(r"^\$\d+$")
# Move shapes: numeric squares joined by separators (11-15, 15x24x31), algebraic squares
# with optional separators (c3-d4, c3:e5:g3, a3b4), the Russian short form (ed4).
_NUMERIC = r"\d{1,2}(?:[-x:]\d{1,2})"
_ALGEBRAIC = r"[a-z]\d{1,2}(?:[-x:]?[a-z]\d{1,2})"
_MOVE_WORD = re.compile(rf"(?:{_NUMERIC}+|{_ALGEBRAIC}+|[a-z][a-z]\d{{1,2}})", re.IGNORECASE)
_PARTIAL_MOVE = re.compile(
    rf"(?:\d{{1,2}}|{_NUMERIC}+|[a-z]\d{{1,2}}|{_ALGEBRAIC}+)[-x:]", re.IGNORECASE
)


def normalize_result(text: str) -> str:
    """Map any PDN result spelling to ``"1-0"``, ``"0-1"``, ``"1/2-1/2"``, ``"0-0"`` or ``"*"``.

    Only the spelling changes (``2-0`` -> ``1-0``, ``0:1`` -> ``0-1``, ``1-1`` ->
    ``1/2-1/2``); whose score comes first depends on the variant, see
    :func:`result_for_white`.

    Raises:
        PDNError: not a result.
    """
    try:
        return _RESULTS[text.strip()]
    except KeyError:
        raise PDNError(f"{excerpt(text)} is not a PDN result") from None


def _first_is_black(variant: Variant) -> bool:
    """English-board files (GameType 21) put Black's score first; the others White's."""
    return _base_preset(variant) == "english"


def _swap(result: str) -> str:
    return {"1-0": "0-1", "0-1": "1-0"}.get(result, result)


def result_for_white(text: str, variant: Variant) -> str:
    """A result as written in a file of ``variant`` -> ``"1-0"`` White (light pieces) won,
    ``"0-1"`` Black won, ``"1/2-1/2"``, ``"0-0"`` or ``"*"`` (the convention of
    :attr:`drl.rules.Outcome.result`).

    The PDN standard gives White's score first, and so do International, Russian and
    Brazilian files; English/American files (GameType 21: CheckerBoard, the ACF) give
    the first player's, Black's, first -- their ``1-0`` means Black won.

    Raises:
        PDNError: not a result.
    """
    result = normalize_result(text)
    return _swap(result) if _first_is_black(variant) else result


def result_for_file(result: Outcome | str | None, variant: Variant) -> str:
    """The result to write in a PDN file of ``variant``, from this package's convention.

    The inverse of :func:`result_for_white`; every writer goes through it.

    Args:
        result: an :class:`~drl.rules.Outcome` (its winner decides), a result string in
            the convention of :attr:`drl.rules.Outcome.result` (White's score first:
            ``"1-0"`` White won, ``"0-1"`` Black won, ``"1/2-1/2"``, ``"*"``; other
            spellings such as ``"2-0"`` are normalized), or None for a game that goes on
            (``"*"``).
        variant: the rules of the game: English-board files (GameType 21) put Black's
            score first, so a Black win is written ``"1-0"`` there.

    Raises:
        PDNError: a string that is not a PDN result.
    """
    if result is None:
        return "*"
    if not isinstance(result, str):
        result = result.result
    result = normalize_result(result)
    return _swap(result) if _first_is_black(variant) else result


@dataclass
class Game:
    """One game read from PDN.

    Attributes:
        tags: tag pairs in file order (``FEN``, ``GameType``, ``Result``... when present).
        moves: move texts in playing order, without numbers, strength marks, comments or
            variations (e.g. ``["32-28", "19-23", "28x19"]``).
        result: the game termination marker that ends the movetext, as written (e.g.
            ``"2-0"``, ``"0:1"``, ``"*"``); None when the movetext ends without one (a
            file cut off, a game that the next tag line starts, a syntax error). The
            ``Result`` tag is not a substitute: it is in ``tags`` either way.
        index: 1-based number of the game in its source.
        source: file path or ``"<text>"``, for error messages.
        line: line of the source where the game starts.
        move_lines: for each move, the source line it is on.
        move_numbers: for each move, the PDN move number written before it (None if none).
        error: with ``read_games(..., strict=False)``, the syntax error that cut the game
            short (the reader went on at the next tag line); None for a clean game.
    """

    tags: dict[str, str] = field(default_factory=dict)
    moves: list[str] = field(default_factory=list)
    result: str | None = None
    index: int = 0
    source: str = "<text>"
    line: int = 1
    move_lines: list[int] = field(default_factory=list)
    move_numbers: list[int | None] = field(default_factory=list)
    error: str | None = None

    @property
    def complete(self) -> bool:
        """True when the game was read to its termination marker without a syntax error.

        False for a game cut off (a truncated file: the moves may be only the start of
        the game, whatever its ``Result`` tag says) and for a game with an ``error``;
        :func:`replay_file` reports such a game as incomplete or failed, never as ok.
        """
        return self.result is not None and self.error is None

    @property
    def fen(self) -> str | None:
        """The ``FEN`` tag, or None."""
        return self.tags.get("FEN")

    @property
    def name(self) -> str:
        """A short label for messages: ``source#index (White - Black)``."""
        players = (
            f" ({self.tags.get('White', '?')} - {self.tags.get('Black', '?')})"
            if "White" in self.tags or "Black" in self.tags
            else ""
        )
        return f"{self.source}#{self.index}{players}"


def _decode(data: bytes, encoding: str | None, source: str) -> str:
    if encoding is not None:
        try:
            return data.decode(encoding)
        except UnicodeDecodeError as err:
            raise PDNError(
                f"{source}: byte {err.start} ({data[err.start : err.start + 1]!r}) is not "
                f"{encoding} text: {err.reason}"
            ) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _load(path_or_text: str | os.PathLike | bytes, encoding: str | None) -> tuple[str, str]:
    """(text, source name) for a path, bytes, or PDN text."""
    if isinstance(path_or_text, bytes):
        return _decode(path_or_text, encoding, "<bytes>"), "<bytes>"
    if isinstance(path_or_text, os.PathLike):
        path = Path(path_or_text)
        return _decode(path.read_bytes(), encoding, str(path)), str(path)
    text = str(path_or_text)
    if "\n" not in text and len(text) < 4096:
        if os.path.isfile(text):
            return _decode(Path(text).read_bytes(), encoding, text), text
        if text.strip().lower().endswith(".pdn"):
            raise FileNotFoundError(errno.ENOENT, "no such PDN file", text)
    return text, "<text>"


#: Largest PDN move number read (games have hundreds of moves at most).
MAX_MOVE_NUMBER = 999_999
#: Largest GameType number read (the PDN standard's numbers are below 100).
MAX_GAME_TYPE = 999


class _Reader:
    """Character scanner that turns PDN text into games.

    Every syntax error goes through :meth:`error` and :meth:`fail`: a :class:`PDNError`
    naming the source, the game number and the line, raised (strict) or kept on its game
    while reading goes on with the next game.
    """

    def __init__(self, text: str, source: str, strict: bool = True) -> None:
        self.strict = strict
        self.text = text
        self.source = source
        self.pos = 0
        self.line = 1
        self.index = 0
        self.game: Game | None = None
        self.depth = 0  # variation nesting
        self.depth_line = 1  # line of the outermost open '('
        self.pending: str | None = None  # move text ending in a separator ("1-")
        self.pending_line = 1
        self.number: int | None = None
        self.header_end = 0  # line of the current game's last tag (or malformed tag)
        self.out: list[Game] = []  # finished games not yet yielded

    def error(self, why: str, line: int | None = None, next_game: bool = False) -> PDNError:
        """A syntax error of the game being read (of the next one with ``next_game``: a
        tag after a game's moves starts a new game)."""
        game = self.game
        index = self.index + 1 if game is None or next_game else game.index
        return PDNError(f"{self.source}: game {index} (line {line or self.line}): {why}")

    def fail(self, err: PDNError, in_tag: bool = False) -> None:
        """Raise (strict) or record the error on the current game and resume reading.

        An error in the movetext ends its game; reading resumes at the next line that
        starts with a tag (the line of the error itself, when the error is a tag line
        that ends an unclosed variation or a cut-off move). A malformed tag line belongs
        to the game whose tags are being read (a new one if the current game already has
        moves): the rest of its line is skipped and the game goes on, keeping the error;
        but when a line without tags (a blank line) follows and the game still has
        nothing but tags, the next tag starts a new game. A game keeps its first error.
        """
        if self.strict:
            raise err
        game = self.game
        if in_tag and game is not None and (game.moves or game.result is not None):
            self.emit()
        game = self.current()
        if game.error is None:
            game.error = str(err)
        self.depth = 0
        self.pending = None
        if in_tag:
            self.header_end = self.line
            self.skip_line()
            return
        nxt = self.text.find("\n[", max(self.pos - 1, 0))
        self.advance((len(self.text) if nxt < 0 else nxt + 1) - self.pos)
        self.emit()

    # -- game boundaries -------------------------------------------------------------
    def current(self) -> Game:
        if self.game is None:
            self.index += 1
            self.game = Game(index=self.index, source=self.source, line=self.line)
            self.number = None
        return self.game

    def finish(self) -> Game | None:
        self.flush_pending()
        if self.depth:
            self.depth = 0
            raise self.error(f"a variation '(' opened on line {self.depth_line} is never closed")
        game, self.game = self.game, None
        if game is None:
            return None
        if not game.tags and not game.moves and game.result is None and game.error is None:
            self.index -= 1
            return None
        return game

    # -- scanning ---------------------------------------------------------------------
    def advance(self, n: int = 1) -> None:
        self.line += self.text.count("\n", self.pos, self.pos + n)
        self.pos += n

    def skip_comment(self) -> None:
        start = self.line
        end = self.text.find("}", self.pos + 1)
        if end < 0:
            raise self.error("a comment '{' is never closed", start)
        inner = self.text.find("{", self.pos + 1, end)
        if inner >= 0:
            self.advance(inner - self.pos)
            raise self.error(
                "'{' inside a comment: PDN comments do not nest "
                f"(the comment opened on line {start})"
            )
        self.advance(end + 1 - self.pos)

    def skip_line(self) -> None:
        end = self.text.find("\n", self.pos)
        self.advance((len(self.text) if end < 0 else end) - self.pos)

    def read_tag(self, in_header: bool = True) -> None:
        """Read one tag pair at ``self.pos``; one after a game's moves starts the next
        game. Errors of a tag in a header are numbered with the game it belongs to."""
        start = self.line
        game = self.game
        starts_game = game is not None and bool(game.moves or game.result is not None)
        next_game = starts_game and in_header
        m = _TAG_OPEN.match(self.text, self.pos)
        if m is None:
            raise self.error('malformed tag: expected [Name "value"]', start, next_game)
        name = m.group(1)
        i = m.end()
        value = []
        while True:
            if i >= len(self.text) or self.text[i] in "\r\n":
                # Tolerated defect of real files: [Round "11.1] -- the value runs to the
                # last ']' of the line.
                stop = self.text.rfind("]", m.end(), i)
                if stop < 0:
                    raise self.error(
                        f"tag {excerpt(name)}: the string is never closed", start, next_game
                    )
                value = list(self.text[m.end() : stop].rstrip())
                i = stop
                break
            ch = self.text[i]
            if ch == "\\" and i + 1 < len(self.text) and self.text[i + 1] not in "\r\n":
                # (an escape never takes the line break: a tag pair is one line)
                value.append(self.text[i + 1])
                i += 2
                continue
            if ch == '"':
                break
            value.append(ch)
            i += 1
        close = _TAG_CLOSE.match(self.text, i)
        if close is None:
            raise self.error(
                f"tag {excerpt(name)}: expected '\"]' after the value", start, next_game
            )
        if starts_game:
            self.emit()
        elif game is not None and (start > self.header_end + 1 or name in game.tags):
            # A header is a run of tag lines, each tag once: a tag after a line without
            # tags (the blank line between games), or one the game already has, starts
            # the next game; the one read so far has no moves (a header cut off).
            self.emit()
        self.current().tags[name] = "".join(value)
        self.header_end = start
        self.advance(close.end() - self.pos)

    def emitted(self) -> Iterator[Game]:
        while self.out:
            yield self.out.pop(0)

    def emit(self) -> None:
        game = self.finish()
        if game is not None:
            self.out.append(game)

    def flush_pending(self) -> None:
        if self.pending is not None:
            text, self.pending = self.pending, None
            raise self.error(
                f"move {excerpt(text)} is cut off (no square after the separator)",
                self.pending_line,
            )

    def word(self, word: str) -> None:
        """Handle one whitespace-delimited word of movetext."""
        line = self.line
        if self.pending is not None:
            word = self.pending + word
            line = self.pending_line
            self.pending = None
        if self.depth:
            return
        m = _MOVE_NUMBER.match(word)
        if m is not None:
            self.current()
            digits = m.group(1).lstrip("0")
            if len(digits) > len(str(MAX_MOVE_NUMBER)) or int(digits or "0") > MAX_MOVE_NUMBER:
                raise self.error(
                    f"move number {excerpt(m.group(0))} is over the limit {MAX_MOVE_NUMBER}",
                    line,
                )
            self.number = int(digits or "0")
            word = word[m.end() :]
            if not word:
                return
        if _NAG.match(word) or set(word) == {"."}:
            return
        if word in _RESULTS:
            self.current().result = word
            self.emit()
            return
        move = word.rstrip("!?")  # strength marks: 28x19!?
        if not move:
            return
        if len(move) > MAX_MOVE_TEXT:
            raise self.error(
                f"{excerpt(word)} is too long to be a move (at most {MAX_MOVE_TEXT} characters)",
                line,
            )
        if _PARTIAL_MOVE.fullmatch(move):  # "1-" of "1- 7": the square follows
            self.pending = move
            self.pending_line = line
            return
        if not _MOVE_WORD.fullmatch(move):
            raise self.error(f"{excerpt(word)} is neither a move, a move number nor a result", line)
        game = self.current()
        game.moves.append(move)
        game.move_lines.append(line)
        game.move_numbers.append(self.number)

    def step(self, at_line_start: bool) -> None:
        """Consume one item of text at ``self.pos`` (not a newline)."""
        text = self.text
        ch = text[self.pos]
        if ch.isspace():
            self.advance()
        elif ch == "%" and at_line_start:
            self.skip_line()
        elif ch == ";":
            self.skip_line()
        elif ch == "{":
            self.skip_comment()
        elif ch == "[" and self.depth:
            if at_line_start:  # a tag line: the next game, after a variation left open
                raise self.error(
                    f"a variation '(' opened on line {self.depth_line} is never closed "
                    "(a tag line follows)"
                )
            raise self.error(
                f"'[' inside a variation (opened on line {self.depth_line}); tags come "
                "before the moves"
            )
        elif ch == "[":
            self.flush_pending()
            game = self.game
            in_header = at_line_start or (
                game is not None and not game.moves and game.result is None
            )
            try:
                self.read_tag(in_header)
            except PDNError as err:
                # A malformed tag line belongs to the tags of its game (the next game's,
                # after a finished one); a '[' that is not, after moves or a result on
                # the same line, is an error of the movetext it is in.
                if not in_header:
                    raise
                self.fail(err, in_tag=True)
        elif ch == "(":
            self.flush_pending()
            if not self.depth:
                self.depth_line = self.line
            self.depth += 1
            self.advance()
        elif ch == ")":
            self.flush_pending()
            if not self.depth:
                raise self.error("')' without a matching '('")
            self.depth -= 1
            self.advance()
        elif ch == "]":
            raise self.error("']' without a tag: tags are written [Name \"value\"]")
        elif ch == "}":
            raise self.error("'}' without a matching '{'")
        else:
            m = _WORD.match(text, self.pos)
            if m is None:  # every other character starts a word; kept as a clear error
                raise self.error(f"unexpected character {ch!r}")
            self.word(m.group(0))
            self.advance(m.end() - self.pos)

    def games(self) -> Iterator[Game]:
        n = len(self.text)
        at_line_start = True  # only blanks since the start of the line
        stuck = -1
        while self.pos < n:
            if self.text[self.pos] == "\n":
                self.advance()
                at_line_start = True
                continue
            before = self.pos
            blank = self.text[before].isspace()
            try:
                self.step(at_line_start)
            except PDNError as err:
                self.fail(err)
                if self.pos == before:  # resumed where it failed (a tag line): once only
                    if stuck == before:
                        self.advance()
                    stuck = before
            # fail() resumes at the start of a line
            at_line_start = self.text[self.pos - 1] == "\n" or (at_line_start and blank)
            yield from self.emitted()
        try:
            self.emit()
        except PDNError as err:
            self.fail(err)
        yield from self.emitted()


def read_games(
    path_or_text: str | os.PathLike | bytes, encoding: str | None = None, strict: bool = True
) -> Iterator[Game]:
    """Read the games of a PDN file or PDN text, lazily.

    Args:
        path_or_text: a path (``str`` naming an existing file, or ``os.PathLike``), PDN
            text, or raw bytes. A one-line string ending in ``.pdn`` is a path.
        encoding: text encoding; default: UTF-8, falling back to ISO-8859-1.
        strict: raise on the first syntax error (default); with False, the game being read
            keeps its moves so far and the error in ``Game.error``, and reading goes on at
            the next line that starts with a tag.

    Yields:
        :class:`Game` objects in file order; ``Game.complete`` says whether the game was
        read to its termination marker (a truncated file's last game is not).

    Raises:
        PDNError: malformed text (nested or unclosed comment, unclosed tag or variation,
            a stray ``]`` or ``}``, a ``[`` inside a variation, a word that is not a move,
            a move number over :data:`MAX_MOVE_NUMBER`, a word longer than
            :data:`~drl.rules.notation.MAX_MOVE_TEXT`, bytes that are not ``encoding``);
            raised when the reader reaches it, the message naming the source, the game
            number and the line (``<text>: game 3 (line 12): ...``). Nothing else is
            raised for any text.
        FileNotFoundError: a path (``os.PathLike``, or a one-line string ending in
            ``.pdn``) that does not exist.
    """
    text, source = _load(path_or_text, encoding)
    return _Reader(text, source, strict).games()


# -- writing -------------------------------------------------------------------------------

_ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def write_game(
    moves: Sequence[str | Move],
    tags: Mapping[str, str] | None = None,
    result: str = "*",
    width: int = 79,
) -> str:
    """Write one game as PDN text.

    Args:
        moves: move texts (or :class:`~drl.rules.Move` objects) in playing order; they are
            numbered in pairs from 1, counted from the first move given.
        tags: tag pairs; the seven-tag roster comes first in its standard order, then the
            others in the order given. ``Result`` is set from ``result``.
        result: the game termination marker exactly as it is to appear in the file
            (``"1-0"``, ``"0-1"``, ``"1/2-1/2"``, ``"*"``, or a federation spelling such
            as ``"2-0"``), i.e. already in the file's convention; turn an
            :class:`~drl.rules.Outcome` into it with :func:`result_for_file`, or let
            :func:`board_to_pdn` do it.
        width: wrap movetext lines at this many characters.

    Returns:
        The PDN text, ending with a blank line so games can be concatenated.

    Raises:
        PDNError: ``result`` is not a PDN result, a tag name is not letters, digits and
            ``_``, or a tag value holds a line break (PDN tag pairs are one line; the
            file would not read back).
    """
    normalize_result(result)
    all_tags = dict(tags or {})
    all_tags["Result"] = result
    ordered = [k for k in _ROSTER if k in all_tags] + [k for k in all_tags if k not in _ROSTER]
    for k in ordered:
        if not isinstance(k, str) or not _TAG_NAME.fullmatch(k):
            raise PDNError(f"tag name {excerpt(k)}: PDN tag names are ASCII letters, digits and _")
        value = str(all_tags[k])
        if "\n" in value or "\r" in value:
            raise PDNError(
                f"tag {k}: value {excerpt(value)} holds a line break; PDN tag values are one line"
            )
    lines = [f'[{k} "{_escape(str(all_tags[k]))}"]' for k in ordered]
    words: list[str] = []
    for i, mv in enumerate(moves):
        if i % 2 == 0:
            words.append(f"{i // 2 + 1}.")
        words.append(str(mv))
    words.append(result)
    text_lines: list[str] = []
    cur = ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            text_lines.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}" if cur else w
    text_lines.append(cur)
    return "\n".join(lines + text_lines) + "\n\n"


def _base_preset(variant: Variant) -> str:
    """Name of the official variant whose board and notation this variant is played on."""
    from drl.rules.variant import Variant

    if (
        variant.name in GAME_TYPES.values()
        and variant.board_size == Variant.preset(variant.name).board_size
    ):
        return variant.name
    if variant.board_size == 10:
        return "international"
    return "russian" if variant.first_player == "white" else "english"


@functools.lru_cache(maxsize=256)
def game_type_tag(variant: Variant) -> tuple[str, str | None]:
    """(GameType value, Variant tag value or None) for writing a game of this variant.

    Official presets with default flags get their GameType alone (20 international,
    21 english, 25 russian, 26 brazilian); anything else gets its base board's GameType
    and the full variant string as a ``Variant`` tag.
    """
    from drl.rules.variant import Variant

    base = _base_preset(variant)
    number = {v: k for k, v in GAME_TYPES.items()}[base]
    if variant == Variant.preset(base):
        return str(number), None
    return str(number), str(variant)


def board_to_pdn(
    board: Board, tags: Mapping[str, str] | None = None, result: Outcome | str | None = None
) -> str:
    """Write the game played on ``board`` (its start position and move stack) as PDN.

    Adds ``GameType`` (and ``Variant`` where needed, see :func:`game_type_tag`), and
    ``SetUp``/``FEN`` when the game did not start from the variant's start position.

    Args:
        board: the game.
        tags: more tag pairs.
        result: an :class:`~drl.rules.Outcome` or a result string with White's score
            first (the convention of :attr:`~drl.rules.Outcome.result`; ``"*"`` for an
            unfinished game); default: the board's outcome (``"*"`` while the game goes
            on). It is written in the convention of the variant's GameType
            (:func:`result_for_file`): never pass a result already in the file's form.

    Raises:
        PDNError: ``result`` is not a PDN result, or a tag is not writable (see
            :func:`write_game`).
    """
    from drl.rules.board import Board

    all_tags = dict(tags or {})
    game_type, variant_tag = game_type_tag(board.variant)
    all_tags.setdefault("GameType", game_type)
    if variant_tag is not None:
        all_tags.setdefault("Variant", variant_tag)
    root = board.root()
    if root.fen() != Board(board.variant).fen():
        all_tags.setdefault("SetUp", "1")
        all_tags.setdefault("FEN", root.fen())
    if result is None:
        result = board.outcome()
    return write_game(
        [str(m) for m in board.move_stack], all_tags, result_for_file(result, board.variant)
    )


# -- replaying -----------------------------------------------------------------------------


def _game_type(game: Game, where: str) -> Variant:
    """The variant of a game's ``GameType`` tag (``"20"``, ``"20,W,10,10,N1,0"``)."""
    from drl.rules.variant import Variant

    value = game.tags["GameType"]
    fields = [f.strip() for f in value.split(",")]
    head = fields[0]
    if not (head.isascii() and head.isdigit()):
        raise PDNError(f"{where}: GameType {excerpt(value)} does not start with a number")
    if len(head.lstrip("0")) > len(str(MAX_GAME_TYPE)) or int(head) > MAX_GAME_TYPE:
        raise PDNError(
            f"{where}: GameType {excerpt(value)}: the game type number is over the limit "
            f"{MAX_GAME_TYPE}"
        )
    number = int(head)
    if number not in GAME_TYPES:
        name = _GAME_TYPE_NAMES.get(number, "unknown")
        raise PDNError(
            f"{where}: GameType {number} ({name}) is not supported; supported: {sorted(GAME_TYPES)}"
        )
    variant = Variant.preset(GAME_TYPES[number])
    # Optional fields: start colour, board width, board height, notation, invert flag.
    for label, text in zip(("board width", "board height"), fields[2:4], strict=False):
        if not text:
            continue
        if not (text.isascii() and text.isdigit()) or len(text.lstrip("0")) > 2:
            raise PDNError(
                f"{where}: GameType {excerpt(value)}: the {label} {excerpt(text)} is not a "
                f"number of at most 2 digits"
            )
        if int(text) != variant.board_size:
            raise PDNError(
                f"{where}: GameType {excerpt(value)}: the {label} {int(text)} is not that "
                f"of {variant.name} ({variant.board_size}x{variant.board_size})"
            )
    return variant


def variant_for_game(game: Game, default: Variant | str | None = None) -> Variant:
    """The variant a game is played under: its ``Variant`` tag, else its ``GameType``,
    else ``default``.

    Raises:
        PDNError: an unsupported or malformed GameType (a type number over
            :data:`MAX_GAME_TYPE`, or board width / height fields that are not this
            GameType's board size), a bad Variant tag, or neither tag and no default.
    """
    from drl.rules.variant import Variant, VariantError

    where = f"{game.source}: game {game.index}"
    if "Variant" in game.tags:
        try:
            return Variant.parse(game.tags["Variant"])
        except VariantError as err:
            raise PDNError(f"{where}: bad Variant tag: {err}") from None
    if "GameType" in game.tags:
        return _game_type(game, where)
    if default is None:
        raise PDNError(f"{where}: no GameType or Variant tag; pass a variant")
    return default if isinstance(default, Variant) else Variant.parse(default)


def replay(game: Game, variant: Variant | str | None = None) -> Board:
    """Play every move of a game from its start position (or its ``FEN`` tag).

    Short move text that fits several legal moves (Russian ``hg7`` when a man on h6 and
    a king on h8 can both go to g7) is resolved by the rest of the game: the candidate
    after which every later recorded move is legal is taken; if none or several are
    (or more than :data:`MAX_TRIAL_PLIES` moves would have to be tried to know), the
    move is reported as ambiguous.

    A game without a termination marker (``game.complete`` False, e.g. a truncated
    file) replays as far as it goes; :func:`replay_file` reports it as incomplete.

    Args:
        game: a game from :func:`read_games`.
        variant: the rules to use; default: from the game's tags (:func:`variant_for_game`).

    Returns:
        The board after the last move (its ``move_stack`` holds the game).

    Raises:
        PDNError: a game that was cut short by a syntax error (``Game.error``), a bad FEN,
            or the first move that cannot be played; the message names the file, the game
            number, the move number and text, and why (the legal moves, or the candidates
            of an ambiguous short form).
    """
    board, error = _replay(game, variant)
    if error is not None:
        raise error
    assert board is not None  # _replay returns a board whenever there is no error
    return board


def _replay(game: Game, variant: Variant | str | None) -> tuple[Board | None, PDNError | None]:
    """(board after the legal prefix of the game, the error that stopped it or None)."""
    from drl.rules.board import Board, FENError
    from drl.rules.variant import Variant

    where = f"{game.source}: game {game.index}"
    syntax = game.error
    if syntax is not None and not syntax.startswith(f"{where} "):
        syntax = f"{where}: {syntax}"  # (a hand-made Game; the reader's errors name it)
    try:
        if variant is None:
            var = variant_for_game(game)
        else:
            var = variant if isinstance(variant, Variant) else Variant.parse(variant)
        board = Board(var, fen=game.fen)
    except (FENError, PDNError) as err:
        if syntax is not None:  # the syntax error says more than its consequence
            return None, PDNError(f"unreadable: {syntax}")
        return None, err if isinstance(err, PDNError) else PDNError(f"{where}: {err}")
    board, stop, play_error = _play(board, game.moves)
    if play_error is not None:
        number = game.move_numbers[stop] if stop < len(game.move_numbers) else None
        if number is None:
            number = stop // 2 + 1
        line = game.move_lines[stop] if stop < len(game.move_lines) else game.line
        return board, PDNError(
            f"{where} (line {line}): move {number} (ply {stop + 1}, "
            f"{excerpt(game.moves[stop])}): {play_error}"
        )
    if syntax is not None:
        return board, PDNError(f"unreadable after ply {len(game.moves)}: {syntax}")
    return board, None


#: Most moves pushed, per game, while trying the candidates of ambiguous short moves.
MAX_TRIAL_PLIES = 100_000


@dataclass
class _Choice:
    """An ambiguous move being resolved: the board before it, its index, its error, and
    the boards of the candidates tried so far with which the whole game replayed."""

    board: Board
    index: int
    error: Exception
    candidates: tuple[Move, ...]
    tried: int = 0
    complete: list[Board] = field(default_factory=list)


def _play(board: Board, moves: Sequence[str]) -> tuple[Board, int, Exception | None]:
    """Push ``moves`` on ``board``, resolving ambiguous text by the rest of the game.

    Returns (board, index of the first move not played, its error or None). An ambiguous
    move is resolved by playing the rest of the game after each candidate; the one
    candidate after which every move is legal is taken. The search runs on an explicit
    stack (a game of many ambiguous moves would exhaust Python's recursion limit) and
    pushes at most :data:`MAX_TRIAL_PLIES` trial moves.
    """
    from drl.rules.board import AmbiguousMoveError, IllegalMoveError

    choices: list[_Choice] = []
    start = 0
    budget = MAX_TRIAL_PLIES
    result: tuple[Board, int, Exception | None] | None = None
    while True:
        if result is None:  # play on from moves[start]
            stop, error = len(moves), None
            for i in range(start, len(moves)):
                if choices:
                    budget -= 1
                    if budget < 0:
                        first = choices[0]
                        return (
                            first.board,
                            first.index,
                            AmbiguousMoveError(
                                f"{first.error} (gave up after {MAX_TRIAL_PLIES} trial moves "
                                "to find which candidate lets the rest of the game replay)",
                                first.candidates,
                            ),
                        )
                try:
                    board.push(moves[i])
                except IllegalMoveError as err:
                    stop, error = i, err
                    break
            if isinstance(error, AmbiguousMoveError) and error.candidates:
                choices.append(_Choice(board, stop, error, error.candidates))
            else:
                result = (board, stop, error)
        if result is not None:
            if not choices:
                return result
            if result[2] is None:
                choices[-1].complete.append(result[0])
            result = None
        choice = choices[-1]
        if choice.tried < len(choice.candidates):
            board = choice.board.copy()
            board.push(choice.candidates[choice.tried])
            choice.tried += 1
            start = choice.index + 1
            continue
        choices.pop()
        if len(choice.complete) == 1:
            result = (choice.complete[0], len(moves), None)
        else:
            why = "none" if not choice.complete else "more than one"
            result = (
                choice.board,
                choice.index,
                AmbiguousMoveError(
                    f"{choice.error} ({why} of the candidates lets the rest of the game replay)",
                    choice.candidates,
                ),
            )


@dataclass
class ReplayReport:
    """What :func:`replay_file` found.

    Attributes:
        source: the file.
        games_ok: games read to their termination marker and replayed to the end.
        moves: plies replayed (in all games, failed ones up to their bad move).
        failures: (game index, message) for each game that failed (unreadable, or a move
            that cannot be played).
        incomplete: (game index, message) for each game whose moves all replayed but
            whose movetext ends without a termination marker (a file cut off, or a game
            that the next tag line starts): its moves may be only the start of the game.
    """

    source: str
    games_ok: int = 0
    moves: int = 0
    failures: list[tuple[int, str]] = field(default_factory=list)
    incomplete: list[tuple[int, str]] = field(default_factory=list)

    @property
    def games(self) -> int:
        """Games read (ok + incomplete + failed)."""
        return self.games_ok + len(self.incomplete) + len(self.failures)

    def __str__(self) -> str:
        head = f"{self.source}: {self.games_ok}/{self.games} games ok"
        if self.incomplete:
            head += f", {len(self.incomplete)} incomplete"
        lines = [f"{head}, {self.moves} moves replayed"]
        problems = sorted(self.failures + self.incomplete)
        lines += [f"  game {i}: {msg}" for i, msg in problems]
        return "\n".join(lines)


def replay_file(
    path: str | os.PathLike,
    variant: Variant | str | None = None,
    games: Iterable[Game] | None = None,
) -> ReplayReport:
    """Replay every game of a PDN file, going on with the next game after a failure.

    Args:
        path: the PDN file.
        variant: the rules for every game (default: each game's tags, see
            :func:`variant_for_game`).
        games: already-read games of ``path`` (default: read the file with
            ``strict=False``, so that a syntax error fails only the game it is in).

    Returns:
        A :class:`ReplayReport`. A game without a termination marker is reported as
        incomplete (``"incomplete: no result marker"``), not as ok. A file in which no
        game can be found (empty, or not PDN) is reported as one failure (game index 0),
        so it never reads as "all ok".

    Raises:
        FileNotFoundError: ``path`` is not an existing file (when ``games`` is None).
    """
    if games is None:
        if not isinstance(path, (str, os.PathLike)) or not os.path.isfile(path):
            raise FileNotFoundError(errno.ENOENT, "no such PDN file", str(path))
        games = read_games(Path(path), strict=False)
    report = ReplayReport(source=str(path))
    for game in games:
        board, error = _replay(game, variant)
        report.moves += 0 if board is None else len(board.move_stack)
        if error is not None:
            report.failures.append((game.index, str(error)))
        elif not game.complete:
            last = game.move_lines[-1] if game.move_lines else game.line
            report.incomplete.append(
                (
                    game.index,
                    f"{game.source}: game {game.index} (line {last}): incomplete: no result "
                    f"marker (the movetext ends after ply {len(game.moves)})",
                )
            )
        else:
            report.games_ok += 1
    if report.games == 0:
        report.failures.append((0, f"{path}: no game found (empty, or not a PDN file)"))
    return report
