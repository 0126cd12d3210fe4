"""The Python entry points that mirror the command lines.

``drl.train(overrides, run_dir=None)`` is ``drl-train`` with the same ``key=value``
overrides, composed through Hydra's compose API from the same ``configs/``;
``drl.evaluate(agents, variant, games)`` plays a round robin as ``drl-eval`` does;
``drl.agents.make(spec)`` builds one agent from its spec string::

    import drl

    run = drl.train(["train=tiny", "variant=english"], run_dir="runs/first")
    run                    # TrainResult(run_dir='runs/first', iterations=2, games=8, ...)
    result = drl.evaluate([run.agent(sims=32), "random"], "english", games=8)
    result                 # Evaluation(english, 8 games: az:... 0.81 [...], random 0.19 [...])
    run.metrics()[-1]      # the last line of metrics.jsonl, a dict of scalars
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from drl.eval.arena import MatchResult
    from drl.eval.elo import Ratings
    from drl.eval.stats import WDL
    from drl.train.config import Config

from drl.train.loop import TrainResult

__all__ = ["Evaluation", "TrainRun", "compose_config", "evaluate", "metrics", "train"]


def compose_config(overrides: Sequence[str] = ()) -> Config:
    """The training configuration ``drl-train OVERRIDES...`` would run with, checked.

    Args:
        overrides: Hydra overrides as on the command line, e.g.
            ``["variant=english", "train=tiny", "train.max_minutes=2"]``.

    Returns:
        The :class:`~drl.train.config.Config` dataclass, after
        :func:`~drl.train.config.validate`.

    Raises:
        ValueError: an override that does not parse, names an unknown key or group
            option, or a value out of its range (the message names the key).
    """
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    from drl.cli._configs import config_dir
    from drl.cli.train import _typed
    from drl.train.config import register_configs, validate

    if isinstance(overrides, str):
        raise TypeError(f"overrides must be a list of key=value strings, got {overrides!r}")
    register_configs()
    was = GlobalHydra.instance().is_initialized()
    if was:  # inside a Hydra application: compose beside it
        GlobalHydra.instance().clear()
    try:
        with initialize_config_dir(config_dir=config_dir(), version_base="1.3"):
            dict_cfg = compose(config_name="config", overrides=list(overrides))
    except (HydraException, OmegaConfBaseException) as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise ValueError(f"overrides {list(overrides)}: {first}") from None
    cfg = _typed(dict_cfg)
    validate(cfg)
    return cfg


def train(
    overrides: Sequence[str] = (),
    run_dir: str | os.PathLike | None = None,
    *,
    progress: bool | None = None,
) -> TrainRun:
    """Train as ``drl-train OVERRIDES... run_dir=RUN_DIR`` does, and return the result.

    Args:
        overrides: the same ``key=value`` overrides as ``drl-train``
            (:func:`compose_config`), e.g. ``["train=tiny"]``.
        run_dir: the run folder (created, or continued if it holds a checkpoint); None:
            ``run_dir=`` of the overrides, or a new ``runs/<variant>-<time>`` folder.
        progress: show progress (a bar on a terminal, one line per iteration
            elsewhere); None: the config's ``progress``.

    Returns:
        :class:`TrainRun`, a :class:`~drl.train.loop.TrainResult` whose repr is one line;
        ``result.agent()`` is its network's agent spec, ``result.metrics()`` the rows
        of its ``metrics.jsonl``.

    Raises:
        ValueError: a bad override (naming the key), or a run folder of another variant
            or network.
        drl.train.TrainingDiverged, drl.train.CheckpointError,
        drl.train.run_folder.RunFolderError: as :func:`drl.train.loop.train`.
    """
    from drl.train.loop import resolve_run_dir
    from drl.train.loop import train as train_loop

    cfg = compose_config(overrides)
    if run_dir is not None:
        cfg.run_dir = str(run_dir)
    result = train_loop(cfg, resolve_run_dir(cfg), progress=progress)
    return TrainRun(**{f.name: getattr(result, f.name) for f in fields(result)})


class TrainRun(TrainResult):
    """:class:`~drl.train.loop.TrainResult` with what a script does next with a run."""

    def agent(self, sims: int = 200) -> str:
        """The agent spec of the run's network with ``sims`` search simulations.

        Raises:
            ValueError: the run has no checkpoint.
        """
        if self.checkpoint is None:
            raise ValueError(f"{self.run_dir}: the run has no checkpoint")
        return f"az:ckpt={self.checkpoint},sims={sims}"

    def metrics(self) -> list[dict[str, float]]:
        """The rows of the run's ``metrics.jsonl`` (:func:`metrics`)."""
        return metrics(self.run_dir)


def metrics(run_dir: str | os.PathLike) -> list[dict[str, float]]:
    """The rows of a run's ``metrics.jsonl``: one dict of scalars per line.

    Each iteration's row has ``iteration``, ``wall_minutes``, ``loss/loss``,
    ``replay/games`` and the others listed in :mod:`drl.train.loop`; the final
    evaluation's row comes last.

    Raises:
        FileNotFoundError: the run has no ``metrics.jsonl``.
    """
    path = Path(run_dir) / "metrics.jsonl"
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


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
    """
    from drl.eval.elo import fit_elo
    from drl.eval.settings import MatchSettings
    from drl.eval.stats import summarize
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
