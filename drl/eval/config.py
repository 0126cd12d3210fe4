"""``drl-eval``'s configuration: the :class:`EvalConfig` schema of ``configs/eval.yaml``.

Like every config schema of drl it is a plain dataclass: Hydra reads its fields (their
types, defaults and the keys a command line may set), and the code reads the same
object. This module imports nothing heavier than numpy: ``drl-eval`` reads it before
its Ctrl-C handler has loaded the arena.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from drl._configs import DEFAULT_MAX_PLIES, VariantCfg
from drl.eval.settings import MatchSettings
from drl.eval.sprt import SPRTSettings

__all__ = ["EvalConfig", "planned_games"]


@dataclass
class EvalConfig:
    """Schema of ``configs/eval.yaml``; its defaults are the only ones.

    A misspelt key is a Hydra error; ``eval.yaml`` itself only picks ``variant=english``.
    Checked as a whole by :func:`drl.eval.checks.check_config`.

    Attributes:
        variant: the game; only ``spec`` (and ``name``) matter here.
        agents: agent specs (``alphabeta:depth=4``, ``mcts:sims=400``, ``random``, ...).
        format: ``round_robin``, ``gauntlet``, ``halftime``, ``pool`` or ``sprt``
            (:data:`drl.eval.runners.FORMATS`).
        games: per pair (round_robin, gauntlet), per match (halftime), per SPRT batch.
        openings: plies of distinct seeded random openings, one per two games (a variant
            with fewer of that length than ``games / 2`` is refused); None = the start
            position.
        seed: match seed.
        workers: processes playing the games (:func:`drl.eval.spread.run_games`); None =
            every usable CPU.
        max_plies: longer games are reported as truncated (scored 1/2), not drawn.
        egtb: end a game at a position the variant's endgame database decides with its
            exact result (termination ``database``, counted in ``results.json`` and the
            tables), where that database is on disk (``drl-egtb build``; none is built
            here); false plays every game out.
        anchor: rated 0 (if playing; else the first agent).
        draw_model: ``half`` (draw = half point) or ``davidson``.
        prior_draws: virtual draws per pair that met: keeps 100% scores finite.
        confidence: of the Elo intervals.
        interval: ``profile`` (likelihood) or ``hessian``.
        lives: ``format=pool``: lives per player.
        life_lost_by: ``format=pool``: ``loser`` or ``winner`` (the literal rule text;
            ``docs/rules.md``, "Match formats").
        pool_games_per_round: ``format=pool``.
        sprt: ``format=sprt`` hypotheses and error rates.
        progress: show a progress bar.
        plot: write ``elo.png``.
    """

    variant: VariantCfg = field(default_factory=VariantCfg)
    agents: list[str] = field(
        default_factory=lambda: ["alphabeta:depth=4", "mcts:sims=400", "random"]
    )
    format: str = "round_robin"
    games: int = 20
    openings: int | None = 4
    seed: int = 0
    workers: int | None = None
    max_plies: int = DEFAULT_MAX_PLIES
    egtb: bool = True
    anchor: str | None = "random"
    draw_model: str = "half"
    prior_draws: float = 1.0
    confidence: float = 0.95
    interval: str = "profile"
    lives: int = 3
    life_lost_by: str = "loser"
    pool_games_per_round: int = 2
    sprt: SPRTSettings = field(default_factory=SPRTSettings)
    progress: bool = True
    plot: bool = True

    def match_settings(self) -> MatchSettings:
        """The options every format's match function takes from this config.

        Raises:
            ValueError: one of them out of range (as :class:`MatchSettings` says).
        """
        return MatchSettings(
            self.openings, self.seed, self.workers, self.max_plies, self.progress, egtb=self.egtb
        )


def planned_games(cfg: EvalConfig) -> int | None:
    """Games the evaluation plays, the most it can play, or None.

    The games played for a round robin, gauntlet or halftime; the most it can play for sprt
    (``sprt.max_games`` rounded up to whole batches); None for pool (it plays until one
    player is left).
    """
    n = len(cfg.agents)
    if cfg.format == "round_robin":
        return n * (n - 1) // 2 * cfg.games
    if cfg.format == "gauntlet":
        return (n - 1) * cfg.games
    if cfg.format == "halftime":
        return cfg.games
    if cfg.format == "sprt":
        return -(-cfg.sprt.max_games // cfg.games) * cfg.games
    return None
