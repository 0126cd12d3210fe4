"""Sequential probability ratio test for "is A stronger than B by at least X Elo?".

The test compares H0: ``elo = elo0`` with H1: ``elo = elo1`` (logistic Elo of A over B)
with Wald's boundaries ``log(beta / (1 - alpha))`` and ``log((1 - beta) / alpha)``.
The outcome distribution is left free apart from its mean (a generalised SPRT): for each
hypothesis the log-likelihood uses the multinomial distribution closest to the observed
frequencies (maximum likelihood) whose mean score equals that hypothesis's expected
score. This handles draws without a draw model.

Two sample models:

- trinomial: single games scored 0, 1/2, 1;
- pentanomial: game pairs played from the same opening with colours (and, in Give and
  Take, roles) swapped, scored 0, 1/2, 1, 3/2, 2 points per pair. Pairs capture the
  correlation that the opening induces and give a sharper test.

:func:`play_sprt` plays an A-vs-B match in batches in the arena until the pentanomial
test decides (or a game budget runs out).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from drl.eval.settings import DEFAULT_SETTINGS, MatchSettings

if TYPE_CHECKING:
    from drl.agents import Agent
    from drl.eval.records import GameRecord
    from drl.rules import Variant

__all__ = [
    "SPRTSettings",
    "SPRTResult",
    "SPRTMatch",
    "sprt",
    "play_sprt",
    "llr",
    "trinomial_counts",
    "pentanomial_counts",
]

_TRI = np.array([0.0, 0.5, 1.0])
_PENTA = np.array([0.0, 0.25, 0.5, 0.75, 1.0])  # pair points / 2


@dataclass(frozen=True)
class SPRTResult:
    """Outcome of an SPRT.

    Attributes:
        llr: the log-likelihood ratio log(L(H1) / L(H0)) of the data so far.
        lower: the H0 acceptance boundary log(beta / (1 - alpha)) (< 0).
        upper: the H1 acceptance boundary log((1 - beta) / alpha) (> 0).
        decision: ``"H0"`` (accept elo0), ``"H1"`` (accept elo1) or ``"continue"``.
        samples: games (trinomial) or game pairs (pentanomial) counted.
    """

    llr: float
    lower: float
    upper: float
    decision: str
    samples: int


def _constrained_mle(p: np.ndarray, a: np.ndarray, mu: float) -> np.ndarray:
    """The distribution q maximising sum p log q subject to sum q a = mu.

    Lagrange: q_i = p_i / (1 + lam (a_i - mu)), with lam chosen so that sum q = 1.
    """
    d = a - mu
    keep = p > 0
    d_k, p_k = d[keep], p[keep]
    lo = -1.0 / d_k.max() + 1e-12
    hi = -1.0 / d_k.min() - 1e-12

    def f(lam: float) -> float:
        return float((p_k * d_k / (1.0 + lam * d_k)).sum())

    from scipy import optimize  # (imported here: drl-eval's config reads SPRTSettings)

    lam = optimize.brentq(f, lo, hi, xtol=1e-14)
    q = np.zeros_like(p)
    q[keep] = p_k / (1.0 + lam * d_k)
    return q / q.sum()


def llr(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """Generalised log-likelihood ratio of ``counts`` for elo1 against elo0.

    Args:
        counts: 3 counts (losses, draws, wins) or 5 counts of pair scores (0, 1/2, 1,
            3/2, 2 points).
        elo0: the null hypothesis H0, logistic Elo of the player counted as winning.
        elo1: the alternative hypothesis H1, in the same Elo.

    Returns:
        The LLR (0 with no samples).

    Raises:
        ValueError: wrong number of counts or negative counts.
    """
    c = np.asarray(counts, dtype=float)
    if c.shape == (3,):
        a = _TRI
    elif c.shape == (5,):
        a = _PENTA
    else:
        raise ValueError(
            f"counts must have 3 (trinomial) or 5 (pentanomial) entries, got {c.shape}"
        )
    if (c < 0).any():
        raise ValueError(f"counts must be >= 0, got {list(c)}")
    n = c.sum()
    if n == 0:
        return 0.0
    # A tiny pseudo-count in every cell keeps both hypothesis means inside the support
    # of the observed outcomes (otherwise an all-wins start makes the LLR infinite).
    reg = c + 1e-3
    p = reg / reg.sum()
    from drl.eval.elo import expected_score

    q0 = _constrained_mle(p, a, float(expected_score(elo0)))
    q1 = _constrained_mle(p, a, float(expected_score(elo1)))
    return float(n * (p * (np.log(q1) - np.log(q0))).sum())


def sprt(
    counts: Sequence[float],
    elo0: float = 0.0,
    elo1: float = 10.0,
    alpha: float = 0.05,
    beta: float = 0.05,
) -> SPRTResult:
    """Decide between H0 (``elo0``) and H1 (``elo1``) from the results so far.

    Args:
        counts: trinomial ``(losses, draws, wins)`` of player A, or pentanomial counts of
            A's points per game pair ``(0, 1/2, 1, 3/2, 2)``.
        elo0: Elo of A over B under H0 (logistic Elo), below ``elo1``.
        elo1: Elo of A over B under H1.
        alpha: probability of accepting H1 when H0 holds, in (0, 1).
        beta: probability of accepting H0 when H1 holds, in (0, 1).

    Returns:
        :class:`SPRTResult` with decision ``"H0"``, ``"H1"`` or ``"continue"``.

    Raises:
        ValueError: bad counts, ``elo0 >= elo1`` or error rates outside (0, 1).
    """
    if not elo0 < elo1:
        raise ValueError(f"need elo0 < elo1, got elo0={elo0}, elo1={elo1}")
    for name, v in (("alpha", alpha), ("beta", beta)):
        if not 0 < v < 1:
            raise ValueError(f"{name} must be in (0, 1), got {v}")
    lower = float(np.log(beta / (1 - alpha)))
    upper = float(np.log((1 - beta) / alpha))
    value = llr(counts, elo0, elo1)
    decision = "H1" if value >= upper else "H0" if value <= lower else "continue"
    return SPRTResult(value, lower, upper, decision, int(np.sum(counts)))


def trinomial_counts(records: Sequence[GameRecord], player: str) -> list[int]:
    """``[losses, draws, wins]`` of ``player`` over the games it played."""
    counts = [0, 0, 0]
    for r in records:
        if player in (r.black, r.white):
            counts[int(2 * r.score_of(player))] += 1
    return counts


def pentanomial_counts(records: Sequence[GameRecord], player: str) -> list[int]:
    """Counts of ``player``'s points per game pair, ``[0, 1/2, 1, 3/2, 2]``.

    A pair is two consecutive games of a match from the same opening with colours (and
    roles) swapped, as :func:`drl.eval.arena.match_tasks` schedules them (games 2k and
    2k + 1 of the player's games in index order). A last unpaired game is left out.

    Raises:
        ValueError: two games of a pair do not share their opening.
    """
    games = sorted((r for r in records if player in (r.black, r.white)), key=lambda r: r.index)
    counts = [0, 0, 0, 0, 0]
    for a, b in zip(games[::2], games[1::2], strict=False):
        if a.opening != b.opening:
            raise ValueError(
                f"games {a.index} and {b.index} are not a pair: they start from different openings"
            )
        counts[int(2 * (a.score_of(player) + b.score_of(player)))] += 1
    return counts


@dataclass(frozen=True)
class SPRTMatch:
    """An A-vs-B match played until the SPRT decided (:func:`play_sprt`).

    Attributes:
        players: names of A and B (unique within the match).
        records: every game, indexed 0.. in playing order (batch after batch).
        counts: A's pentanomial counts over the game pairs, ``[0, 1/2, 1, 3/2, 2]``.
        result: the test after the last batch (``decision`` ``"continue"`` when the game
            budget ran out first).
        history: the test after each batch.
        elo0, elo1, alpha, beta: the test's hypotheses and error rates.
    """

    players: tuple[str, str]
    records: list[GameRecord]
    counts: list[int]
    result: SPRTResult
    history: list[SPRTResult]
    elo0: float
    elo1: float
    alpha: float
    beta: float


@dataclass
class SPRTSettings:
    """Hypotheses and limits of an SPRT match (``drl-eval format=sprt``'s ``sprt`` group).

    Attributes:
        elo0, elo1: H0 and H1, in Elo of the first agent over the second (elo0 < elo1).
        alpha, beta: error rates, in (0, 1).
        max_games: the match stops undecided after this many games.
    """

    elo0: float = 0.0
    elo1: float = 20.0
    alpha: float = 0.05
    beta: float = 0.05
    max_games: int = 1000


def play_sprt(
    agent_a: str | Agent,
    agent_b: str | Agent,
    variant: Variant | str,
    batch_games: int,
    *,
    test: SPRTSettings | None = None,
    settings: MatchSettings = DEFAULT_SETTINGS,
    on_batch: Callable[[SPRTResult, int], None] | None = None,
    on_record: Callable[[GameRecord], None] | None = None,
) -> SPRTMatch:
    """Play A against B in batches until the pentanomial SPRT decides.

    Batch ``k`` is the match :func:`drl.eval.arena.play_match` plays with seed
    ``settings.seed + k`` (its own openings, colours and roles swapped per opening);
    batches are played while fewer than ``test.max_games`` games have been played and
    the test says ``"continue"``.

    Args:
        agent_a: player A's agent spec (or agent, see :func:`~drl.eval.arena.play_match`).
        agent_b: player B's agent spec (or agent).
        variant: the variant.
        batch_games: games per batch, an even number (game pairs).
        test: the hypotheses and error rates (see :func:`sprt`), in Elo of A over B, and
            the game budget ``max_games`` (the last batch may end past it); default
            :class:`SPRTSettings`'s.
        settings: as in :func:`~drl.eval.arena.play_match`; the PDN file holds every
            batch's games, indexed as in :attr:`SPRTMatch.records`.
        on_batch: called after each batch with the test so far and the games played.
        on_record: called with each finished game (in completion order), indexed as in
            :attr:`SPRTMatch.records`.

    Returns:
        :class:`SPRTMatch`.

    Raises:
        ValueError: an odd ``batch_games`` or one outside ``[2, MAX_GAMES]``,
            ``max_games`` outside ``[1, MAX_GAMES]``, or what :func:`sprt` and
            :func:`~drl.eval.arena.play_match` raise.
        OSError: ``settings.pdn_path`` cannot be written (before the first game).
    """
    from drl.eval.arena import check_games
    from drl.eval.records import PDNWriter, write_pdn

    t = SPRTSettings() if test is None else test
    if batch_games < 2 or batch_games % 2:
        raise ValueError(f"batch_games must be an even number >= 2 (game pairs), got {batch_games}")
    check_games(batch_games, "batch_games")
    check_games(t.max_games, "max_games")
    sprt([0, 0, 0], *_hypotheses(t))  # checks the test's arguments before playing
    writer = None if settings.pdn_path is None else PDNWriter(settings.pdn_path)
    match = _SPRTBatches(t, writer.add if writer is not None else None, on_record)
    try:
        while len(match.records) < t.max_games:
            batch = dataclasses.replace(
                settings, seed=settings.seed + len(match.history), pdn_path=None
            )
            match.play(agent_a, agent_b, variant, batch_games, batch)
            if on_batch:
                on_batch(match.history[-1], len(match.records))
            if match.history[-1].decision != "continue":
                break
    finally:
        if writer is not None:
            writer.close()
    if settings.pdn_path is not None:
        write_pdn(match.records, settings.pdn_path)
    a, b = match.players
    return SPRTMatch(
        (a, b), match.records, match.counts, match.history[-1], match.history, *_hypotheses(t)
    )


def _hypotheses(t: SPRTSettings) -> tuple[float, float, float, float]:
    """``(elo0, elo1, alpha, beta)``."""
    return t.elo0, t.elo1, t.alpha, t.beta


class _SPRTBatches:
    """The games of an SPRT match so far, batch after batch, indexed in playing order."""

    def __init__(self, test: SPRTSettings, *on_record: Callable[[GameRecord], None] | None) -> None:
        self.test = test
        self.callbacks = [c for c in on_record if c is not None]
        self.records: list[GameRecord] = []
        self.history: list[SPRTResult] = []
        self.players: tuple[str, ...] = ()
        self.counts: list[int] = []

    def play(
        self,
        agent_a: str | Agent,
        agent_b: str | Agent,
        variant: Variant | str,
        games: int,
        settings: MatchSettings,
    ) -> None:
        """Play one batch and the test after it."""
        from drl.eval.arena import play_match

        offset = len(self.records)

        def reindexed(r: GameRecord) -> None:
            r = dataclasses.replace(r, index=offset + r.index)
            for call in self.callbacks:
                call(r)

        m = play_match(agent_a, agent_b, variant, games, settings=settings, on_record=reindexed)
        for r in m.records:
            self.records.append(dataclasses.replace(r, index=len(self.records)))
        self.players = m.players
        self.counts = pentanomial_counts(self.records, self.players[0])
        self.history.append(sprt(self.counts, *_hypotheses(self.test)))
