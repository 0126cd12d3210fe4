"""``drl.evaluate(agents, variant, games)``: a round robin from Python, as ``drl-eval``.

::

    import drl

    result = drl.evaluate(["alphabeta:depth=4", "mcts:sims=400", "random"], "english", 20)
    result          # Evaluation(english, 60 games: alphabeta:depth=4 0.88 [...], ...)
    result.table()  # one row per agent: W-D-L, score and its interval, Elo
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from drl.eval.arena import MatchResult
    from drl.eval.elo import Ratings
    from drl.eval.stats import WDL

__all__ = ["Evaluation", "evaluate"]


@dataclass
class Evaluation:
    """What :func:`evaluate` played and what it found.

    Attributes:
        variant: the variant string.
        agents: the agents' specs, in the order given.
        scores: each agent's W/D/L over all its games, with 95% intervals.
        ratings: maximum-likelihood Elo over all games (``random`` = 0 when present).
        match: the games (:class:`~drl.eval.arena.MatchResult`).
    """

    variant: str
    agents: tuple[str, ...]
    scores: dict[str, WDL]
    ratings: Ratings
    match: MatchResult

    def __repr__(self) -> str:
        """One line: each agent's score and its 95% interval."""
        parts = []
        for name in self.agents:
            w = self.scores[name]
            lo, hi = w.score_interval
            parts.append(f"{name} {w.score:.2f} [{lo:.2f}, {hi:.2f}]")
        n = len(self.match.records)
        return f"Evaluation({self.variant}, {n} games: {', '.join(parts)})"

    def table(self) -> list[dict[str, Any]]:
        """One row per agent: games, wins, draws, losses, score with its interval, Elo."""
        rows = []
        for name in self.agents:
            w = self.scores[name]
            rows.append(
                {
                    "agent": name,
                    "games": w.games,
                    "wins": w.wins,
                    "draws": w.draws,
                    "losses": w.losses,
                    "score": w.score,
                    "score_ci95": w.score_interval,
                    "elo": self.ratings[name],
                }
            )
        return rows


def evaluate(
    agents: Sequence[str],
    variant: str = "give_and_take",
    games: int = 20,
    *,
    max_plies: int = 200,
    openings: int = 4,
    seed: int = 0,
    workers: int | None = 1,
    pdn_path: str | os.PathLike | None = None,
    progress: bool = False,
) -> Evaluation:
    """Play a round robin between agents, as ``drl-eval agents=[...]`` does.

    Every pair plays ``games`` games, colours (and in Give and Take roles) swapped, two
    games from each distinct seeded random opening of ``openings`` plies.

    Args:
        agents: agent specs (:func:`drl.agents.make`), at least two, e.g.
            ``["az:ckpt=runs/x/checkpoints/ckpt-00000002.pt,sims=32", "random"]``.
        variant: a variant string (``give_and_take``, ``english:flying_kings=true``).
        games: games per pair (a multiple of 4 balances Give and Take's roles).
        max_plies: a longer game is truncated and scored as half a point each.
        openings: plies of the random openings (0: the start position).
        seed: the match seed.
        workers: worker processes for agents that are not batched.
        pdn_path: write every game there as PDN.
        progress: show a progress bar.

    Returns:
        :class:`Evaluation`, whose repr is one line.

    Raises:
        ValueError: a bad spec, variant or count, naming it.
        RuntimeError: called at the top level of a script that a worker process is
            importing (put the call under ``if __name__ == "__main__":``).
    """
    from drl._system import check_not_in_worker_import
    from drl.eval.elo import fit_elo
    from drl.eval.settings import MatchSettings
    from drl.eval.stats import summarize

    check_not_in_worker_import("drl.evaluate")
    from drl.eval.tournament import play_tournament

    if isinstance(agents, str):
        raise TypeError(f"agents must be a list of agent specs, got {agents!r}")
    settings = MatchSettings(
        openings=openings,
        seed=seed,
        workers=workers,
        max_plies=max_plies,
        progress=progress,
        pdn_path=pdn_path,
    )
    match = play_tournament(list(agents), variant, games, settings=settings)
    players = match.players
    scores = {p: summarize(match.records, p)["all"] for p in players}
    anchor = "random" if "random" in players else players[0]
    ratings = fit_elo(match.elo_games(), players=list(players), anchor=anchor, prior_draws=0.5)
    return Evaluation(str(variant), tuple(players), scores, ratings, match)
