"""Games ended by the endgame database: the exact result of a position it decides.

The arena (:mod:`drl.eval.play`) asks :func:`database_result` after every ply (and at the
opening) while no rule has ended the game: where the variant's endgame database
(:mod:`drl.egtb`) is on disk and gives the game's exact result from the position, the
game ends there with that result (termination ``"database"``, PDN tag ``Database``; see
:func:`drl.eval.records.record_game`) instead of being played out or cut at the ply cap.
Nothing is built here: a variant without a database file plays on as before.

Exactness, with the source of each rule (``docs/rules.md`` "Win, loss and draw"):

- the counters: :meth:`drl.egtb.Database.exact` gives a value only where the
  no-progress and endgame-rule counters cannot draw the game first
  (:mod:`drl.egtb._probe`); a draw stays a draw, since the counters and repetition only
  add draws;
- repetition: a win in ``d`` plies is played along a line where the plies to the end
  fall by one each ply, so no position of it repeats; it can only run into the
  repetition draw (``repetition_draw`` occurrences) through a position the game's
  history already holds ``repetition_draw - 1`` times. A decided win or loss is taken
  only while no position since the last capture or man move has occurred that often
  (with threefold repetition: none twice); otherwise the game plays on until it has.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from drl.rules.core import ST_NOPROG

if TYPE_CHECKING:
    from drl.egtb import Database, Probe
    from drl.rules import Board

__all__ = ["database_result", "game_database"]


def game_database(variant: str, use: bool = True) -> Database | None:
    """The endgame database on disk for ``variant``, or None.

    None when ``use`` is False, when no file of the variant's rules is in
    :func:`drl.egtb.egtb_dir`, or for rules that have none (roles swapped after
    captures). A file is opened (checksum-verified) once per process while it is
    unchanged (:func:`drl.egtb.open_database`).
    """
    if not use:
        return None
    from drl.egtb import EgtbError, open_database

    try:
        return open_database(variant)
    except EgtbError:
        return None


def _history_allows(board: Board) -> bool:
    """No earlier position since the last irreversible move occurred ``repetition_draw - 1`` times.

    Plies before the board's first position are not known (0 in :meth:`Board.history`)
    and are left out, as the board's own repetition count leaves them out.
    """
    from drl.egtb._search import history_allows

    hist = board.history()
    ply = len(hist) - 1
    return history_allows(
        hist, ply, int(board.state[ST_NOPROG]), board.variant.repetition_draw or 0
    )


def database_result(board: Board, db: Database | None) -> Probe | None:
    """The exact result of the game from ``board``'s position, for its side to move, or None.

    Call it only while the game goes on (``board.outcome()`` is None).

    Args:
        board: the game so far (its counters and move stack are read).
        db: the variant's database (:func:`game_database`), or None.

    Returns:
        The :class:`~drl.egtb.Probe` (``value`` ``"win"``, ``"loss"`` or ``"draw"`` for
        the side to move, ``plies`` to the end under best play), or None where the
        database does not decide the game (more pieces than it holds, a counter or a
        repetition that could draw first: module text).
    """
    if db is None:
        return None
    found = db.exact(board.state)
    if found is None or found.value == "draw" or _history_allows(board):
        return found
    return None
