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
``[Variant "<full variant string>"]`` tag (``docs/rules.md``, "PDN conventions").

The reader is :mod:`drl.rules.pdn.read`, the writer and the result conventions
:mod:`drl.rules.pdn.write`, replaying :mod:`drl.rules.pdn.replay`; every name is
exported here.
"""

from drl.rules.pdn._common import GAME_TYPES, Game, PDNError, normalize_result
from drl.rules.pdn.read import MAX_MOVE_NUMBER, read_games
from drl.rules.pdn.replay import (
    MAX_GAME_TYPE,
    MAX_TRIAL_PLIES,
    ReplayReport,
    replay,
    replay_file,
    variant_for_game,
)
from drl.rules.pdn.write import (
    board_to_pdn,
    game_type_tag,
    result_for_file,
    result_for_white,
    write_game,
)

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
