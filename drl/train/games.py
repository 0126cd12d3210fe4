"""Self-play's finished games: their counters, adjudication and numbering.

The counters of a self-play call, the adjudication of games cut at the ply cap, and
the numbering of games gathered from several actors.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from drl.agents.alphabeta import AlphaBetaAgent
from drl.rules import Board
from drl.train.buffer import GameBatch

__all__ = ["RESULT_DRAW", "RESULT_TRUNCATED", "SelfPlayStats", "adjudicate", "renumber_games"]

RESULT_DRAW = 2
RESULT_TRUNCATED = 3


@dataclass
class SelfPlayStats:
    """Counters of one :meth:`SelfPlayActor.play` call (for logging).

    Attributes:
        games: games finished.
        positions: positions recorded.
        searched: full searches run (their policies are training targets).
        simulations: simulations run.
        leaf_evals: positions sent to the network.
        net_batches: network calls.
        seconds: wall time.
        game_plies: length of each finished game in plies.
        results: per game: 0 black won, 1 white won, 2 draw, 3 truncated.
        takers: per game: the Taker's colour, -1 outside Give and Take.
        adjudicated: per game: the adjudicated result of a game cut at the ply cap (0
            black won, 1 white won, 2 draw), -1 for a game played out.
        target_entropy: mean entropy (nats) of the recorded search policies.
    """

    games: int = 0
    positions: int = 0
    searched: int = 0
    simulations: int = 0
    leaf_evals: int = 0
    net_batches: int = 0
    seconds: float = 0.0
    game_plies: list[int] = field(default_factory=list)
    results: list[int] = field(default_factory=list)
    takers: list[int] = field(default_factory=list)
    adjudicated: list[int] = field(default_factory=list)
    target_entropy: float = 0.0

    def outcome_mix(self) -> dict[str, float]:
        """Fractions of finished games by outcome (and by role in Give and Take).

        ``truncated`` counts every game cut at the ply cap; ``adjudicated_decisive`` those
        of them whose adjudication gave a winner (taught as a win and a loss, not 0).
        """
        n = max(len(self.results), 1)
        res = np.asarray(self.results)
        tak = np.asarray(self.takers)
        adj = np.asarray(self.adjudicated) if self.adjudicated else np.full(len(res), -1)
        out = {
            "draw": float(np.sum(res == RESULT_DRAW)) / n,
            "truncated": float(np.sum(res == RESULT_TRUNCATED)) / n,
            "adjudicated_decisive": float(
                np.sum((res == RESULT_TRUNCATED) & (adj >= 0) & (adj < 2))
            )
            / n,
        }
        if len(tak) and np.all(tak >= 0):
            out["taker_win"] = float(np.sum((res < 2) & (res == tak))) / n
            out["giver_win"] = float(np.sum((res < 2) & (res != tak))) / n
        else:
            out["black_win"] = float(np.sum(res == 0)) / n
            out["white_win"] = float(np.sum(res == 1)) / n
        return out


def adjudicate(board: Board, searcher: AlphaBetaAgent, margin: int) -> int:
    """The result of a game cut at the ply cap, judged by a short alpha-beta search.

    A forced win or loss the search finds is exact; otherwise the side the search's
    score puts ``margin`` or more centi-men ahead (a man = 100, objective-aware in the
    losing variants and Give and Take, see :mod:`drl.agents._evaluate`) is judged the
    winner, and a closer score is a draw.

    Args:
        board: the last position (with its history, for repetitions); the game must
            not be over by rule.
        searcher: the alpha-beta searcher (its depth is the adjudication's).
        margin: centi-men, >= 1.

    Returns:
        0 black won, 1 white won, 2 draw.

    Raises:
        ValueError: if the game is over by rule (nothing to adjudicate).
    """
    if board.is_game_over():
        raise ValueError("adjudication of a game that is over by rule")
    searcher.reset(0)
    _row, score = searcher.search(board)
    mover = int(board.turn)
    if score >= margin:
        return mover
    if score <= -margin:
        return 1 - mover
    return RESULT_DRAW


_ROUND_TAG = re.compile(r'^\[Round "[^"\n]*"\]$', re.MULTILINE)


def renumber_games(
    batch: GameBatch, pdns: Sequence[str], first: int, session: int | None = None
) -> tuple[GameBatch, list[str]]:
    """Number the games of a delivered batch ``first, first + 1, ...`` in batch order.

    The positions of each game are contiguous in ``batch`` and ``pdns[k]`` is game k's
    PDN (as :meth:`SelfPlayActor.play` delivers them); ``game_index`` and each PDN's
    ``Round`` tag (index + 1) are rewritten.

    Args:
        batch: G games (every game has at least one position).
        pdns: their G PDN texts, each with one ``Round`` tag.
        first: the first game's new index (>= 0).
        session: if given, a ``Session`` tag with it follows each ``Round`` tag (the
            training loop's session number, part of the games' seeds).

    Returns:
        ``(batch, pdns)`` renumbered (new objects; the arguments are left as they were).

    Raises:
        ValueError: if the batch does not hold G distinct runs of game indices, or
            ``pdns`` does not hold G texts with a ``Round`` tag each.
    """
    if first < 0:
        raise ValueError(f"first game index must be >= 0, got {first}")
    gi = batch.game_index
    g = batch.num_games
    if len(pdns) != g:
        raise ValueError(f"{len(pdns)} PDN texts for a batch of {g} games")
    starts = np.flatnonzero(np.r_[True, gi[1:] != gi[:-1]]) if len(gi) else np.zeros(0, int)
    if len(starts) != g:
        raise ValueError(
            f"batch of {g} games holds {len(starts)} runs of game indices; "
            "each game's positions must be contiguous and carry one index"
        )
    new_index = np.repeat(first + np.arange(g, dtype=np.int64), np.diff(np.r_[starts, len(gi)]))
    texts = []
    for k, text in enumerate(pdns):
        tag = f'[Round "{first + k + 1}"]'
        if session is not None:
            tag += f'\n[Session "{session}"]'
        new, n = _ROUND_TAG.subn(tag, text, count=1)
        if n != 1:
            raise ValueError(f"PDN text of game {k} of the batch has no Round tag")
        texts.append(new)
    return replace(batch, game_index=new_index), texts
