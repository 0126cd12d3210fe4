"""The analysis of a trained run: self-play at a stated budget, then every summary."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from drl.analysis.endgame import endgame_accuracy
from drl.analysis.games import as_games, parse_variant, sample_game
from drl.analysis.material import MaterialSettings, ValueFn, material_values
from drl.analysis.openings import (
    compare_first_moves,
    first_move_counts,
    human_collection,
)
from drl.analysis.outcomes import outcome_rates
from drl.analysis.style import style_stats
from drl.eval.settings import MatchSettings
from drl.rules import Board, Variant

__all__ = [
    "ANALYSIS_SETTINGS",
    "analyze_games",
    "analyze_run",
    "load_source",
    "network_values",
    "start_position_policy",
]

SAMPLE_GAMES = 3


def load_source(source: str | os.PathLike) -> tuple[Path, dict[str, Any]]:
    """The checkpoint of a run folder or a checkpoint file, and its payload.

    For a run folder, its newest good checkpoint (under ``checkpoints/``) is taken.

    Raises:
        ValueError: the path does not exist, the folder holds no checkpoint, or the
            checkpoint (every checkpoint of the folder) is damaged or not a drl
            checkpoint; the message names the path.
    """
    from drl.nn.checkpoint import CheckpointError
    from drl.nn.checkpoint import load_source as load

    try:
        return load(source)
    except CheckpointError as err:
        raise ValueError(str(err)) from None


def network_values(agent: Any) -> ValueFn:
    """A :data:`~drl.analysis.material.ValueFn` of a network agent.

    The agent is a :class:`drl.agents.az.NetworkAgent`; the function gives its value head on
    each board, from the side to move's view, with no move in progress and no repetition.

    Returns:
        ``evaluate(boards) -> float64[len(boards)]``.
    """
    from drl.encode import MAX_STEPS, N_CHANNELS, encode_planes

    evaluator = agent.player.evaluate

    def evaluate(boards: Sequence[Board]) -> np.ndarray:
        if not boards:
            return np.zeros(0)
        out = []
        prefix = np.zeros(MAX_STEPS, np.int64)
        for size in sorted({b.variant.board_size for b in boards}):
            idx = [i for i, b in enumerate(boards) if b.variant.board_size == size]
            obs = np.zeros((len(idx), N_CHANNELS, size, size), np.float32)
            for j, i in enumerate(idx):
                b = boards[i]
                encode_planes(np.asarray(b.state, np.int64), b.variant.params, prefix, 0, 0, obs[j])
            values = np.empty(len(idx))
            for lo in range(0, len(idx), 256):
                chunk = obs[lo : lo + 256]
                mask = np.ones((len(chunk), 1), np.bool_)
                values[lo : lo + 256] = evaluator(chunk, mask).value
            out.append((idx, values))
        result = np.empty(len(boards))
        for idx, values in out:
            result[idx] = values
        return result

    return evaluate


def start_position_policy(agent: Any, variant: Variant | str) -> dict[str, Any]:
    """The network's prior and searched visit distribution over the start position's first moves.

    The start position is ``variant``'s.

    The prior of a move is the softmax probability of its first step over the legal
    first steps (moves sharing a first step share its probability equally; at a start
    position every move is one step). The searched distribution is the root visit counts
    of one deterministic search at the agent's budget, normalised.

    Returns:
        ``{"fen", "legal": [moves], "prior": {move: p}, "search": {move: p},
        "simulations": int}``.
    """
    from drl.encode import move_to_actions
    from drl.game.batch import GameStates
    from drl.search import Roots

    board = Board(variant)
    player = agent.player
    legal = board.legal_moves
    games = GameStates.from_boards([board])
    mcts = player._tree(1, board.variant.board_size)
    roots = Roots.from_games(games, egtb=player._probes([board], mcts))
    res = mcts.run(roots, player.evaluate, player.rng, explore=False)
    first = [move_to_actions(m, board.turn, board.variant.params)[0] for m in legal]
    shares = {a: first.count(a) for a in first}
    # the prior: the network on the start position alone
    evaluation = player.evaluate(_observe(board), res.legal[:1])
    logits = np.asarray(evaluation.logits[0], np.float64)
    steps = sorted(shares)
    z = logits[steps] - logits[steps].max()
    p = np.exp(z) / np.exp(z).sum()
    prob = dict(zip(steps, p.tolist(), strict=True))
    visits = np.asarray(res.visits[0], np.float64)
    total = sum(visits[a] for a in steps)
    names = [str(m) for m in legal]
    return {
        "fen": board.fen(),
        "legal": names,
        "prior": {n: prob[a] / shares[a] for n, a in zip(names, first, strict=True)},
        "search": {
            n: (visits[a] / total / shares[a]) if total else 0.0
            for n, a in zip(names, first, strict=True)
        },
        "simulations": int(player.search.num_simulations),
    }


def _observe(board: Board) -> np.ndarray:
    from drl.encode import MAX_STEPS, N_CHANNELS, encode_planes

    size = board.variant.board_size
    obs = np.zeros((1, N_CHANNELS, size, size), np.float32)
    encode_planes(
        np.asarray(board.state, np.int64),
        board.variant.params,
        np.zeros(MAX_STEPS, np.int64),
        0,
        0,
        obs[0],
    )
    return obs


def _role_variants(v: Variant) -> list[tuple[str | None, Variant]]:
    """The start positions to ask about.

    One, or in Give and Take one per role of the first mover.
    """
    if not v.is_asymmetric:
        return [(None, v)]
    return [(role, v.with_role(v.first_player, role)) for role in ("taker", "giver")]


def _openings_summary(
    agent: Any, v: Variant, human_games_dir: str | os.PathLike | None
) -> dict[str, Any]:
    folder, reason = human_collection(v, human_games_dir)
    human = None
    if folder is not None:
        human = first_move_counts(folder, v)
        if human.games == 0:
            reason, human = f"no usable game in {folder}", None
    entries = []
    for role, rv in _role_variants(v):
        pol = start_position_policy(agent, rv)
        entry: dict[str, Any] = {
            "variant": str(rv),
            "mover_role": role,
            **pol,
            "human": None if human is None else human.to_dict(),
            "human_reason": reason,
            "divergence": None,
        }
        if human is not None:
            entry["divergence"] = {
                "prior": compare_first_moves(pol["prior"], human.counts, pol["legal"]),
                "search": compare_first_moves(pol["search"], human.counts, pol["legal"]),
            }
        entries.append(entry)
    return {"entries": entries, "human_source": None if folder is None else str(folder)}


def analyze_games(
    games: Iterable[Any] | str | os.PathLike,
    variant: Variant | str | None = None,
    evaluate: ValueFn | None = None,
    *,
    max_probes: int = 400,
    n_boot: int = 2000,
    seed: int = 0,
) -> dict[str, Any]:
    """Outcomes, style, endgame accuracy, sample games and material values of games.

    Nothing here needs a network: the material values are computed only with a value
    function (``evaluate``), the endgame accuracy only where the variant's endgame
    database is on disk (:func:`drl.analysis.endgame.endgame_accuracy`).

    Args:
        games: anything :func:`drl.analysis.games.as_games` reads (arena records, PDN
            text or a file, move lists, dicts).
        variant: the variant of games that do not name one.
        evaluate: ``evaluate(boards) -> values`` (side to move's view, in ``[-1, 1]``)
            for the material probes; None leaves ``material`` None.
        max_probes: most positions probed for the material values (see
            :func:`drl.analysis.material.material_values`).
        n_boot: bootstrap resamples of the material values' intervals.
        seed: seeds the probe sample, the removed pieces and the bootstrap.

    Returns:
        ``{"variant", "games", "outcomes", "material", "style", "endgame",
        "sample_games"}`` (see the package docstring for each part).

    Raises:
        ValueError: no games, an unknown variant, an illegal move, or games of
            different base variants.
    """
    played = as_games(games, variant)
    if not played:
        raise ValueError("no games to analyse")
    bases = {str(_base(g.variant)) for g in played}
    if len(bases) > 1:
        raise ValueError(f"the games mix variants {sorted(bases)}")
    return {
        "variant": bases.pop(),
        "games": len(played),
        "outcomes": outcome_rates(played),
        "material": None
        if evaluate is None
        else material_values(played, evaluate, max_probes=max_probes, n_boot=n_boot, seed=seed),
        "style": style_stats(played),
        "endgame": endgame_accuracy(played),
        "sample_games": [sample_game(g) for g in played[:SAMPLE_GAMES]],
    }


def _base(variant: str) -> Variant:
    """The variant with Black as the Taker in Give and Take; other variants unchanged.

    (In Give and Take the Taker's colour changes from game to game.)
    """
    return parse_variant(variant).with_taker("black")


ANALYSIS_SETTINGS = MatchSettings(max_plies=200, progress=False)
"""What :func:`analyze_run` plays its self-play games with when given no settings."""


def analyze_run(
    source: str | os.PathLike,
    *,
    simulations: int = 64,
    games: int = 32,
    settings: MatchSettings = ANALYSIS_SETTINGS,
    variant: Variant | str | None = None,
    device: str = "auto",
    human_games_dir: str | os.PathLike | None = None,
    material: MaterialSettings | None = None,
) -> dict[str, Any]:
    """Analyse a trained agent: its self-play, material values, first-move preferences and style.

    The self-play runs at ``simulations`` search simulations per step; the material values
    are those of its value function.

    The agent plays itself ``games`` games, one per distinct seeded random opening of
    ``settings.openings`` plies (the same player on both sides would replay the second
    game of an arena pair), the Taker's colour alternating from game to game in Give and
    Take (:func:`drl.eval.arena.match_tasks`, every other task). The games are played
    out through database positions whatever ``settings.egtb`` says, so that the agent's
    moves there can be scored (``endgame``: :func:`drl.analysis.endgame.endgame_accuracy`).

    Args:
        source: a run folder (made by ``drl-train run_dir=...``; its newest good
            checkpoint) or a checkpoint file.
        simulations: search simulations per step (>= 1).
        games: self-play games (>= 1).
        settings: the self-play's openings (a number of plies; 0: every game from the
            start position), max_plies (longer games count as truncated), seed (also of
            the agents and the bootstraps), workers (processes for the games, default
            every core; a network on a GPU plays in this process), progress bar, PDN
            file of the games and ``Event`` tag (default ``drl analysis``).
        variant: analyse under this variant instead of the one trained on (its board
            must fit the network).
        device: ``cpu``, ``cuda`` or ``auto``.
        human_games_dir: folder with one folder of PDN files per variant (default
            ``<shared>/data/games``).
        material: probes and bootstrap resamples of the material values (see
            :func:`drl.analysis.material.material_values`).

    Returns:
        The summary dict described in the package docstring (JSON-serialisable).

    Raises:
        ValueError: a missing path, a folder with no checkpoint, a damaged checkpoint,
            an unknown variant (trained on or asked for), a network that does not fit
            the variant, FENs as ``settings.openings``, or counts out of range.
    """
    from drl.agents.az import AZAgent

    opening_plies = _check_arguments(simulations, games, settings)
    path, payload = load_source(source)
    v = _variant_to_analyse(path, payload, variant)
    agent = AZAgent(str(path), sims=simulations, device=device, seed=settings.seed, variant=v)
    played = as_games(_self_play(agent, v, games, settings))
    m = MaterialSettings() if material is None else material
    summary = analyze_games(
        played,
        evaluate=network_values(agent),
        max_probes=m.max_probes,
        n_boot=m.n_boot,
        seed=settings.seed,
    )
    return {
        **_what_was_analysed(source, path, payload, v),
        "simulations": int(simulations),
        "self_play": {
            "games": int(games),
            "opening_plies": opening_plies,
            "max_plies": int(settings.max_plies),
            "seed": int(settings.seed),
        },
        "outcomes": summary["outcomes"],
        "material": summary["material"],
        "openings": _openings_summary(agent, v, human_games_dir),
        "style": summary["style"],
        "endgame": summary["endgame"],
        "sample_games": summary["sample_games"],
    }


def _check_arguments(simulations: int, games: int, settings: MatchSettings) -> int:
    """The self-play's opening plies; ValueError for counts out of range, or FENs."""
    from drl.eval.arena import check_count

    check_count(simulations, "simulations", 1, 1_000_000)
    check_count(games, "games", 1, 100_000)
    if not isinstance(settings.openings, (int, type(None))):
        raise ValueError("settings.openings: the analysis plays random openings, not FENs")
    return int(settings.openings or 0)


def _what_was_analysed(
    source: str | os.PathLike, path: Path, payload: dict[str, Any], v: Variant
) -> dict[str, Any]:
    """The summary's first keys: the agent's name, its files, variants and training."""
    counters = payload.get("counters", {})
    src = Path(source)
    trained_on = payload.get("variant")
    return {
        "name": src.name if src.is_dir() else src.stem,
        "source": str(source),
        "checkpoint": str(path),
        "variant": str(v),
        "trained_on": None if trained_on is None else str(trained_on),
        "iteration": counters.get("iteration"),
        "games_trained": counters.get("games"),
        "drl_version": payload.get("drl_version") or "unknown",
        "code_version": payload.get("code_version") or "unknown",
    }


def _variant_to_analyse(
    path: Path, payload: dict[str, Any], asked: Variant | str | None
) -> Variant:
    """The variant asked for, else the one the checkpoint was trained on."""
    spec = asked if asked is not None else payload.get("variant")
    if spec is None:
        raise ValueError(f"checkpoint {path} names no variant: pass variant=")
    return parse_variant(spec)


def _self_play(agent: Any, v: Variant, games: int, s: MatchSettings) -> list[Any]:
    """``games`` games of ``agent`` against itself, each from its own opening."""
    from drl.eval.arena import match_tasks, play_tasks

    # played out (egtb off): the endgame accuracy scores the moves in the database
    s = replace(s, event=s.event_or("drl analysis"), egtb=False)
    tasks = match_tasks(agent, agent, v, 2 * games, s, names=("agent", "agent (other side)"))
    chosen = [tasks[i] for i in range(0, 2 * games, 2)]
    if str(getattr(agent.player.evaluate, "device", "cpu")) != "cpu":
        s = replace(s, workers=1)
    return play_tasks(chosen, s, "self-play")[0]
