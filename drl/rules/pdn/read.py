"""Reading PDN: :func:`read_games` and the scanner behind it.

See :mod:`drl.rules.pdn` for what the reader accepts.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Iterator
from pathlib import Path

from drl.rules._quote import excerpt
from drl.rules.notation import MAX_MOVE_TEXT
from drl.rules.pdn._common import _RESULTS, Game, PDNError

__all__ = ["MAX_MOVE_NUMBER", "read_games"]

_MOVE_NUMBER = re.compile(r"^(\d+)\.+")
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
        """A syntax error of the game being read, or of the next one with ``next_game``.

        A tag after a game's moves starts a new game.
        """
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
        """Read one tag pair at ``self.pos``.

        A tag pair after a game's moves starts the next game. Errors of a tag in a header
        are numbered with the game it belongs to.
        """
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
