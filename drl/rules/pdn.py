"""PDN (Portable Draughts Notation) reading, writing and replaying.

The reader accepts what real files contain: tag pairs (``[Event "..."]``, ``[FEN "..."]``,
``[GameType "20,W,10,10,N1,0"]``), ``{}`` comments (engine annotations included),
``%`` and ``;`` line comments, ``()`` variations (nested), move numbers glued to moves
(``1.33-28``, ``12...``), strength marks (``!``, ``?!``), NAGs (``$3``), separators followed
by a space (``1- 7``), Russian short moves (``ed4``) and the results ``2-0 1-1 0-2``,
``1-0 1/2-1/2 0-1``, ``1:0 1/2:1/2 0:1`` and ``*``. Bytes are decoded as UTF-8, falling back
to ISO-8859-1 (Latin-1), which many older files use.

The writer produces standard PDN that this reader (and common draughts software) reads
back. Variants without an official GameType (giveaway, losing, give_and_take, or any
preset with changed flags) are written with their base board's GameType plus a
``[Variant "<full variant string>"]`` tag (DESIGN §2).
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from drl.rules.board import Board, Move, Outcome
    from drl.rules.variant import Variant

__all__ = [
    "GAME_TYPES",
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
_TAG_OPEN = re.compile(r"\[\s*([A-Za-z0-9_]+)\s*\"")
_TAG_CLOSE = re.compile(r"\"?\s*\]")
_WORD = re.compile(r"[^\s{}()\[\];]+")
_NAG = re.compile(r"^\$\d+$")
_STRENGTH = re.compile(r"[!?]+$")
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
        raise PDNError(f"{text!r} is not a PDN result") from None


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
        result: the game termination marker as written (e.g. ``"2-0"``, ``"0:1"``), else
            the ``Result`` tag, else None.
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


def _decode(data: bytes, encoding: str | None) -> str:
    if encoding is not None:
        return data.decode(encoding)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _load(path_or_text: str | os.PathLike | bytes, encoding: str | None) -> tuple[str, str]:
    """(text, source name) for a path, bytes, or PDN text."""
    if isinstance(path_or_text, bytes):
        return _decode(path_or_text, encoding), "<bytes>"
    if isinstance(path_or_text, os.PathLike):
        path = Path(path_or_text)
        return _decode(path.read_bytes(), encoding), str(path)
    text = str(path_or_text)
    if "\n" not in text and len(text) < 4096:
        if os.path.isfile(text):
            return _decode(Path(text).read_bytes(), encoding), text
        if text.strip().lower().endswith(".pdn"):
            raise FileNotFoundError(errno.ENOENT, "no such PDN file", text)
    return text, "<text>"


class _Reader:
    """Character scanner that turns PDN text into games."""

    def __init__(self, text: str, source: str, strict: bool = True) -> None:
        self.strict = strict
        self.text = text
        self.source = source
        self.pos = 0
        self.line = 1
        self.index = 0
        self.game: Game | None = None
        self.depth = 0  # variation nesting
        self.pending: str | None = None  # move text ending in a separator ("1-")
        self.pending_line = 1
        self.number: int | None = None
        self.out: list[Game] = []  # finished games not yet yielded

    def error(self, why: str, line: int | None = None) -> PDNError:
        return PDNError(f"{self.source}: line {line or self.line}: {why}")

    def fail(self, err: PDNError, in_tag: bool = False) -> None:
        """Raise (strict) or record the error on the current game and resume reading.

        An error in the movetext ends its game; reading resumes at the next line that
        starts with a tag. A malformed tag belongs to the game whose tags are being read
        (a new one if the current game already has moves): the rest of its line is
        skipped and the game goes on, keeping the error. A game keeps its first error.
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
            self.skip_line()
            return
        nxt = self.text.find("\n[", self.pos)
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
        game, self.game = self.game, None
        if game is None:
            return None
        if self.depth and game.error is None:
            self.depth = 0
            game.error = str(self.error(f"game {game.index}: a variation '(' is never closed"))
            if self.strict:
                raise PDNError(game.error)
        if game.result is None and "Result" in game.tags:
            game.result = game.tags["Result"]
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
        inner = self.text.find("{", self.pos + 1)
        if end < 0:
            raise self.error("a comment '{' is never closed", start)
        if 0 <= inner < end:
            self.advance(inner - self.pos)
            raise self.error(
                "'{' inside a comment: PDN comments do not nest "
                f"(the comment opened on line {start})"
            )
        self.advance(end + 1 - self.pos)

    def skip_line(self) -> None:
        end = self.text.find("\n", self.pos)
        self.advance((len(self.text) if end < 0 else end) - self.pos)

    def read_tag(self) -> None:
        start = self.line
        m = _TAG_OPEN.match(self.text, self.pos)
        if m is None:
            raise self.error('malformed tag: expected [Name "value"]', start)
        i = m.end()
        value = []
        while True:
            if i >= len(self.text) or self.text[i] in "\r\n":
                # Tolerated defect of real files: [Round "11.1] -- the value runs to the
                # last ']' of the line.
                stop = self.text.rfind("]", m.end(), i)
                if stop < 0:
                    raise self.error(f"tag {m.group(1)}: the string is never closed", start)
                value = list(self.text[m.end() : stop].rstrip())
                i = stop
                break
            ch = self.text[i]
            if ch == "\\" and i + 1 < len(self.text):
                value.append(self.text[i + 1])
                i += 2
                continue
            if ch == '"':
                break
            value.append(ch)
            i += 1
        close = _TAG_CLOSE.match(self.text, i)
        if close is None:
            raise self.error(f"tag {m.group(1)}: expected '\"]' after the value", start)
        game = self.game
        if game is not None and (game.moves or game.result is not None):
            self.emit()
        self.current().tags[m.group(1)] = "".join(value)
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
                f"move {text!r} is cut off (no square after the separator)", self.pending_line
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
            self.number = int(m.group(1))
            word = word[m.end() :]
            if not word:
                return
        if _NAG.match(word) or set(word) == {"."}:
            return
        if word in _RESULTS:
            self.current().result = word
            self.emit()
            return
        move = _STRENGTH.sub("", word)
        if not move:
            return
        if _PARTIAL_MOVE.fullmatch(move):  # "1-" of "1- 7": the square follows
            self.pending = move
            self.pending_line = line
            return
        if not _MOVE_WORD.fullmatch(move):
            raise self.error(f"{word!r} is neither a move, a move number nor a result", line)
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
        elif ch == "[" and not self.depth:
            self.flush_pending()
            try:
                self.read_tag()
            except PDNError as err:
                self.fail(err, in_tag=True)
        elif ch == "(":
            self.flush_pending()
            self.depth += 1
            self.advance()
        elif ch == ")":
            self.flush_pending()
            if not self.depth:
                raise self.error("')' without a matching '('")
            self.depth -= 1
            self.advance()
        else:
            m = _WORD.match(text, self.pos)
            assert m is not None
            self.word(m.group(0))
            self.advance(m.end() - self.pos)

    def games(self) -> Iterator[Game]:
        n = len(self.text)
        at_line_start = True
        while self.pos < n:
            if self.text[self.pos] == "\n":
                self.advance()
                at_line_start = True
                continue
            blank = self.text[self.pos].isspace()
            try:
                self.step(at_line_start)
            except PDNError as err:
                self.fail(err)
            at_line_start = at_line_start and blank
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
        :class:`Game` objects in file order.

    Raises:
        PDNError: malformed text (nested or unclosed comment, unclosed tag or variation,
            a word that is not a move); raised when the reader reaches it.
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
            raise PDNError(f"tag name {k!r}: PDN tag names are ASCII letters, digits and _")
        value = str(all_tags[k])
        if "\n" in value or "\r" in value:
            raise PDNError(
                f"tag {k}: value {value!r} holds a line break; PDN tag values are one line"
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


def variant_for_game(game: Game, default: Variant | str | None = None) -> Variant:
    """The variant a game is played under: its ``Variant`` tag, else its ``GameType``,
    else ``default``.

    Raises:
        PDNError: an unsupported or malformed GameType, a bad Variant tag, or neither tag
            and no default.
    """
    from drl.rules.variant import Variant, VariantError

    where = f"{game.source}: game {game.index}"
    if "Variant" in game.tags:
        try:
            return Variant.parse(game.tags["Variant"])
        except VariantError as err:
            raise PDNError(f"{where}: bad Variant tag: {err}") from None
    if "GameType" in game.tags:
        value = game.tags["GameType"]
        head = value.split(",")[0].strip()
        if not head.isdigit():
            raise PDNError(f"{where}: GameType {value!r} does not start with a number")
        number = int(head)
        if number not in GAME_TYPES:
            name = _GAME_TYPE_NAMES.get(number, "unknown")
            raise PDNError(
                f"{where}: GameType {number} ({name}) is not supported; "
                f"supported: {sorted(GAME_TYPES)}"
            )
        return Variant.preset(GAME_TYPES[number])
    if default is None:
        raise PDNError(f"{where}: no GameType or Variant tag; pass a variant")
    return default if isinstance(default, Variant) else Variant.parse(default)


def replay(game: Game, variant: Variant | str | None = None) -> Board:
    """Play every move of a game from its start position (or its ``FEN`` tag).

    Short move text that fits several legal moves (Russian ``hg7`` when a man on h6 and
    a king on h8 can both go to g7) is resolved by the rest of the game: the candidate
    after which every later recorded move is legal is taken; if none or several are,
    the move is reported as ambiguous.

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
    try:
        if variant is None:
            var = variant_for_game(game)
        else:
            var = variant if isinstance(variant, Variant) else Variant.parse(variant)
        board = Board(var, fen=game.fen)
    except (FENError, PDNError) as err:
        if game.error is not None:  # the syntax error says more than its consequence
            return None, PDNError(f"{where}: unreadable: {game.error}")
        return None, err if isinstance(err, PDNError) else PDNError(f"{where}: {err}")
    board, stop, play_error = _play(board, game.moves, 0)
    if play_error is not None:
        number = game.move_numbers[stop] if stop < len(game.move_numbers) else None
        if number is None:
            number = stop // 2 + 1
        line = game.move_lines[stop] if stop < len(game.move_lines) else game.line
        return board, PDNError(
            f"{where} (line {line}): move {number} (ply {stop + 1}, "
            f"{game.moves[stop]!r}): {play_error}"
        )
    if game.error is not None:
        return board, PDNError(f"{where}: unreadable after ply {len(game.moves)}: {game.error}")
    return board, None


def _play(board: Board, moves: Sequence[str], start: int) -> tuple[Board, int, Exception | None]:
    """Push ``moves[start:]`` on ``board``, resolving ambiguous text by the rest of the
    game. Returns (board, index of the first move not played, its error or None)."""
    from drl.rules.board import AmbiguousMoveError, IllegalMoveError

    for i in range(start, len(moves)):
        try:
            board.push(moves[i])
        except AmbiguousMoveError as err:
            complete = []
            for move in err.candidates:
                trial = board.copy()
                trial.push(move)
                trial, _, trial_err = _play(trial, moves, i + 1)
                if trial_err is None:
                    complete.append(trial)
            if len(complete) == 1:
                return complete[0], len(moves), None
            why = "none" if not complete else "more than one"
            return (
                board,
                i,
                AmbiguousMoveError(
                    f"{err} ({why} of the candidates lets the rest of the game replay)",
                    err.candidates,
                ),
            )
        except IllegalMoveError as err:
            return board, i, err
    return board, len(moves), None


@dataclass
class ReplayReport:
    """What :func:`replay_file` found.

    Attributes:
        source: the file.
        games_ok: games replayed to the end.
        moves: plies replayed (in all games, failed ones up to their bad move).
        failures: (game index, message) for each game that failed.
    """

    source: str
    games_ok: int = 0
    moves: int = 0
    failures: list[tuple[int, str]] = field(default_factory=list)

    @property
    def games(self) -> int:
        """Games read (ok + failed)."""
        return self.games_ok + len(self.failures)

    def __str__(self) -> str:
        lines = [
            f"{self.source}: {self.games_ok}/{self.games} games ok, {self.moves} moves replayed"
        ]
        lines += [f"  game {i}: {msg}" for i, msg in self.failures]
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
        A :class:`ReplayReport`. A file in which no game can be found (empty, or not
        PDN) is reported as one failure (game index 0), so it never reads as "all ok".

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
        if error is None:
            report.games_ok += 1
        else:
            report.failures.append((game.index, str(error)))
    if report.games == 0:
        report.failures.append((0, f"{path}: no game found (empty, or not a PDN file)"))
    return report
