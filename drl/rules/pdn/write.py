"""Writing PDN: games, boards, a variant's tags and the files' result conventions.

:func:`write_game`, :func:`board_to_pdn`, the GameType / Variant tags of a variant
(:func:`game_type_tag`) and the result conventions of the files
(:func:`result_for_white`, :func:`result_for_file`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from drl.rules._quote import excerpt
from drl.rules.pdn._common import GAME_TYPES, PDNError, normalize_result

if TYPE_CHECKING:
    from drl.rules.board import Board, Move, Outcome
    from drl.rules.variant import Variant

__all__ = [
    "board_to_pdn",
    "game_type_tag",
    "result_for_file",
    "result_for_white",
    "write_game",
]

_TAG_NAME = re.compile(r"[A-Za-z0-9_]+")


def _first_is_black(variant: Variant) -> bool:
    """English-board files (GameType 21) put Black's score first; the others White's."""
    return _base_preset(variant) == "english"


def _swap(result: str) -> str:
    return {"1-0": "0-1", "0-1": "1-0"}.get(result, result)


def result_for_white(text: str, variant: Variant) -> str:
    """A result as written in a file of ``variant``, turned to White's score first.

    Answers ``"1-0"`` White (light pieces) won, ``"0-1"`` Black won, ``"1/2-1/2"``,
    ``"0-0"`` or ``"*"`` (the convention of :attr:`drl.rules.Outcome.result`).

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
