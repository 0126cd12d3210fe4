"""Evaluation of the network (with search) against baseline agents, games in lockstep.

The games of a match are played side by side: at each round every game where the network
is to move is searched in one batched call, and the baseline agent moves in the others.
The colour/role/opening schedule is the arena's (``drl.eval.arena.match_tasks``): in Give
and Take the network plays both roles with both colours from every opening. Results are
:class:`~drl.eval.records.GameRecord` s, summarised with ``drl.eval.stats``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from drl.agents import make, spec_name
from drl.eval.arena import match_tasks, record_game
from drl.eval.records import GameRecord
from drl.eval.stats import WDL, summarize
from drl.rules import Board, Variant
from drl.search import Evaluator, SearchConfig
from drl.train.az import NetworkPlayer

__all__ = ["BaselineResult", "evaluate_against", "play_lockstep"]

NET_NAME = "az"


@dataclass(frozen=True)
class BaselineResult:
    """The network's results against one baseline.

    Attributes:
        baseline: the baseline's spec.
        summary: W/D/L of the network overall, by colour and (Give and Take) by role.
        records: the games.
    """

    baseline: str
    summary: dict[str, WDL]
    records: list[GameRecord]


def play_lockstep(evaluate: Evaluator, search: SearchConfig, baseline: str,
                  variant: Variant | str, games: int, openings: int = 2, seed: int = 0,
                  max_plies: int = 200) -> list[GameRecord]:
    """Play ``games`` games of the network against ``baseline`` side by side.

    Args:
        evaluate: the network.
        search: the network's search settings (played without noise).
        baseline: agent spec of the opponent.
        variant: the variant (Give and Take: roles and colours are swapped per game).
        games: number of games (>= 1).
        openings: plies of seeded random openings (0 = start position).
        seed: match seed.
        max_plies: truncation (half a point each).

    Returns:
        Records sorted by game index; the network is named ``"az"``.

    Raises:
        ValueError: bad baseline spec, variant or counts.
    """
    base_name = spec_name(baseline)
    names = (NET_NAME, base_name if base_name != NET_NAME else f"{base_name}#2")
    tasks = match_tasks(NET_NAME, baseline, variant, games,
                        openings or None, seed, max_plies, names=names, event="drl evaluation")
    opponent = make(baseline)
    opponent.reset(seed=seed)
    player = NetworkPlayer(evaluate, search, seed)
    boards = [Board(t.variant, fen=t.opening) for t in tasks]
    fens = [b.fen() for b in boards]
    net_color = [0 if t.black_name == NET_NAME else 1 for t in tasks]
    done = [False] * len(tasks)
    start = time.perf_counter()

    def finished(i: int) -> bool:
        return boards[i].outcome() is not None or boards[i].ply >= max_plies

    for i in range(len(tasks)):
        done[i] = finished(i)
    while not all(done):
        live = [i for i in range(len(tasks)) if not done[i]]
        net_turn = [i for i in live if int(boards[i].turn) == net_color[i]]
        for i in live:
            if i not in net_turn:
                boards[i].push(opponent.select_move(boards[i]))
        if net_turn:
            for i, m in zip(net_turn, player.choose_moves([boards[i] for i in net_turn])):
                boards[i].push(m)
        for i in live:
            done[i] = finished(i)
    seconds = time.perf_counter() - start
    records = []
    for t, board, fen in zip(tasks, boards, fens):
        records.append(record_game(t, board, fen, seconds / len(tasks)))
    return records


def evaluate_against(evaluate: Evaluator, search: SearchConfig, baselines: Sequence[str],
                     variant: Variant | str, games: int, openings: int = 2, seed: int = 0,
                     max_plies: int = 200) -> list[BaselineResult]:
    """:func:`play_lockstep` against each baseline, summarised (overall/colour/role)."""
    out = []
    for k, spec in enumerate(baselines):
        records = play_lockstep(evaluate, search, spec, variant, games, openings,
                                seed + 7919 * k, max_plies)
        out.append(BaselineResult(spec, summarize(records, NET_NAME), records))
    return out


def elo_for_log(w: WDL, cap: float = 800.0) -> float:
    """The Elo difference of a W/D/L, clipped to ``[-cap, cap]`` (finite, for plots)."""
    return float(np.clip(w.elo, -cap, cap)) if not np.isnan(w.elo) else 0.0
