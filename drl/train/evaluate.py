"""Evaluation of the network (with search) against baseline agents, in the arena.

With AlphaZero self-play the network plays as a batched agent
(:class:`~drl.agents.az.NetworkAgent`, with MCTS) through the arena's game loop
(``drl.eval.spread.run_games``): the games of a match are spread over worker processes,
one per core (a network on a GPU stays in this process), and in each the games in flight
are searched in one batched call wherever the network is to move.
A run's agent can also be given as an agent spec (:func:`evaluate_spec_against`): minimax
self-play rates ``alphabeta:ckpt=<checkpoint>,depth=<minimax.depth>``, the searcher it
trained, each worker process loading the checkpoint.
The colour/role/opening schedule is the arena's (``drl.eval.tasks.match_tasks``): a new
distinct opening every two games, colours swapped; in Give and Take the network plays
both roles from every opening and every colour/role pairing over four games. Results are
:class:`~drl.eval.records.GameRecord` s, summarised with ``drl.eval.stats``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from drl.agents import make, spec_name
from drl.agents.az import NetworkAgent, NetworkPlayer
from drl.eval.arena import play_tasks
from drl.eval.records import GameRecord
from drl.eval.settings import MatchSettings
from drl.eval.stats import WDL, summarize
from drl.eval.tasks import match_tasks
from drl.rules import Variant
from drl.search import Evaluator, SearchConfig

if TYPE_CHECKING:
    from drl.train.config import TrainSettings

__all__ = [
    "BaselineResult",
    "EVALUATION_SETTINGS",
    "evaluate_against",
    "evaluate_spec_against",
    "play_against_baseline",
    "preflight_baselines",
    "preflight_evaluations",
]

NET_NAME = "az"


@dataclass(frozen=True)
class BaselineResult:
    """The network's results against one baseline.

    Attributes:
        baseline: the baseline's spec.
        summary: W/D/L of the run's agent overall, by colour and (Give and Take) by role.
        records: the games (the run's agent is named ``"az"`` in them).
        agent: the spec of the run's agent that played (``az:ckpt=PATH,sims=N`` when the
            network played in-process with MCTS, ``alphabeta:ckpt=PATH,depth=D``); empty
            when not told.
    """

    baseline: str
    summary: dict[str, WDL]
    records: list[GameRecord]
    agent: str = ""


EVALUATION_SETTINGS = MatchSettings(max_plies=200, progress=False)
"""What an evaluation plays with when given no settings: 200-ply games, every core, no
progress bar."""


def play_against_baseline(
    evaluate: Evaluator,
    search: SearchConfig,
    baseline: str,
    variant: Variant | str,
    games: int,
    *,
    settings: MatchSettings = EVALUATION_SETTINGS,
) -> list[GameRecord]:
    """Play ``games`` games of the network against ``baseline``, all in flight together.

    Args:
        evaluate: the network.
        search: the network's search settings (played without noise).
        baseline: agent spec of the opponent.
        variant: the variant (Give and Take: roles and colours are swapped per game).
        games: number of games (>= 1).
        settings: openings (0 = the start position), seed, workers (the network is
            pickled to each; a network on another device than the CPU plays in this
            process), max_plies (truncation: half a point each), progress, a PDN file and
            the ``Event`` tag (default ``drl evaluation``); see
            :class:`~drl.eval.settings.MatchSettings`.

    Returns:
        Records sorted by game index; the network is named ``"az"``. The baseline is
        reset with each game's seed, as in every arena match.

    Raises:
        ValueError: bad baseline spec, variant or counts.
        OSError: ``settings.pdn_path`` cannot be written (before the first game).
    """
    s = settings
    base_name = spec_name(baseline)
    names = (NET_NAME, base_name if base_name != NET_NAME else f"{base_name}#2")
    net = NetworkAgent(NetworkPlayer(evaluate, search, s.seed), NET_NAME)
    s = replace(s, event=s.event_or("drl evaluation"))
    tasks = match_tasks(net, baseline, variant, games, s, names=names)
    description = f"{NET_NAME} vs {names[1]}"
    if not _on_cpu(evaluate):
        s = replace(s, workers=1)
    return play_tasks(tasks, s, description)[0]


def _on_cpu(evaluate: Evaluator) -> bool:
    """Whether the evaluator's network runs on the CPU (workers can then share it out)."""
    device = getattr(evaluate, "device", None)
    return device is None or getattr(device, "type", str(device)) == "cpu"


def evaluate_against(
    evaluate: Evaluator,
    search: SearchConfig,
    baselines: Sequence[str],
    variant: Variant | str,
    games: int,
    *,
    settings: MatchSettings = EVALUATION_SETTINGS,
    agent: str = "",
) -> list[BaselineResult]:
    """:func:`play_against_baseline` against each baseline, summarised (overall/colour/role).

    Baseline ``k`` plays with seed ``settings.seed + 7919 k``; ``agent`` is the spec the
    results name as the network's (see :class:`BaselineResult`).

    Raises:
        ValueError: as :func:`play_against_baseline`, or a ``settings.pdn_path`` (the
            games of each baseline are returned, for the caller to write one file each).
    """
    _check_no_pdn(settings)
    out = []
    for k, spec in enumerate(baselines):
        each = replace(settings, seed=settings.seed + 7919 * k)
        records = play_against_baseline(evaluate, search, spec, variant, games, settings=each)
        out.append(BaselineResult(spec, summarize(records, NET_NAME), records, agent))
    return out


def evaluate_spec_against(
    agent: str,
    baselines: Sequence[str],
    variant: Variant | str,
    games: int,
    *,
    settings: MatchSettings = EVALUATION_SETTINGS,
) -> list[BaselineResult]:
    """The agent of spec ``agent`` against each baseline, as :func:`evaluate_against`.

    The same schedule, seeds and records as :func:`evaluate_against` (the agent is named
    ``"az"`` in the records, as the network is there), but the agent is built from its
    spec in each worker process (e.g. ``alphabeta:ckpt=PATH,depth=3``), every core used.

    Raises:
        ValueError: a bad ``agent`` or baseline spec, variant or counts, or a
            ``settings.pdn_path``.
    """
    _check_no_pdn(settings)
    s = settings
    out = []
    for k, spec in enumerate(baselines):
        base_name = spec_name(spec)
        names = (NET_NAME, base_name if base_name != NET_NAME else f"{base_name}#2")
        each = replace(s, seed=s.seed + 7919 * k, event=s.event_or("drl evaluation"))
        tasks = match_tasks(agent, spec, variant, games, each, names=names)
        description = f"{agent} vs {names[1]}"
        records = play_tasks(tasks, each, description)[0]
        out.append(BaselineResult(spec, summarize(records, NET_NAME), records, agent))
    return out


def _check_no_pdn(settings: MatchSettings) -> None:
    if settings.pdn_path is not None:
        raise ValueError(
            "an evaluation of several baselines writes no PDN file (settings.pdn_path "
            "must be None): each baseline's records are returned"
        )


def preflight_baselines(
    baselines: Sequence[tuple[str, Sequence[str]]], variant: Variant | str
) -> None:
    """Check, before training, that every baseline agent can be built and play.

    Each spec is built as the arena builds it (an ``az`` checkpoint is loaded, an
    ``alphabeta:ckpt=`` network read) and checked against ``variant``. An agent that
    holds an outside resource (one with ``close``: the engines of ``hub:`` and
    ``dxp:``) is started and asked for its move in the start position (the protocol's
    handshake and one answer), then closed. Nothing is kept: the evaluations build
    their agents again.

    Args:
        baselines: ``(config key, specs)`` pairs, e.g.
            ``("train.final_eval.baselines", ["random", "hub:cmd=scan"])``.
        variant: the variant the evaluation plays (both roles are checked by the arena
            as the games start; here the variant as given).

    Raises:
        ValueError: ``config KEY: SPEC: what went wrong`` for the first agent that
            cannot be built, cannot play ``variant``, or does not start and answer.
    """
    from drl.nn.checkpoint import CheckpointError
    from drl.rules import Board

    v = Variant.parse(variant) if isinstance(variant, str) else variant
    checked: set[str] = set()
    for key, specs in baselines:
        for spec in specs:
            if spec in checked:
                continue
            agent = None
            try:
                agent = make(spec)
                agent.check_variant(v)
                if callable(getattr(agent, "close", None)):
                    agent.reset(seed=0)
                    agent.select_move(Board(v))
            except (ValueError, RuntimeError, OSError, CheckpointError) as err:
                first = str(err).splitlines()[0] if str(err) else type(err).__name__
                what = first if spec in first else f"{spec}: {first}"
                raise ValueError(
                    f"config {key}: {what} (checked before training: the evaluation "
                    "would fail after it)"
                ) from None
            finally:
                close = getattr(agent, "close", None)
                if callable(close):
                    close()
            checked.add(spec)


def preflight_evaluations(s: TrainSettings) -> None:
    """:func:`preflight_baselines` for the evaluations a training run with ``s`` will play.

    These are ``train.eval`` when it runs during training (``every`` > 0, below
    ``iterations``, with games), and ``train.final_eval`` when it has games.

    Raises:
        ValueError: naming the key and the agent (see :func:`preflight_baselines`).
    """
    loop = s.loop
    todo = []
    if loop.eval.games >= 1 and 0 < loop.eval.every < loop.iterations:
        todo.append(("train.eval.baselines", list(loop.eval.baselines)))
    if loop.final_eval.games >= 1:
        todo.append(("train.final_eval.baselines", list(loop.final_eval.baselines)))
    preflight_baselines(todo, s.variant)


def elo_for_log(w: WDL, cap: float = 800.0) -> float:
    """The Elo difference of a W/D/L, clipped to ``[-cap, cap]`` (finite, for plots)."""
    return float(np.clip(w.elo, -cap, cap)) if not np.isnan(w.elo) else 0.0
