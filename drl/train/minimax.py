"""Minimax self-play (``algo=minimax``): games played by alpha-beta with the learned value.

Each move of a self-play game is chosen by the compiled iterative-deepening alpha-beta
search of ``alphabeta:ckpt=`` (:mod:`drl.agents._alphabeta`), whose quiet leaves are scored
by the current network's value head, computed inside the search. The network then learns
the values that search computed, mixed with the game's result:

- value target: ``(1 - mix) * z + mix * q``, ``z`` the game result for the player to move
  (played out, or adjudicated at the ply cap as in AlphaZero self-play) and ``q`` the
  search's value of the move played (its root score over ``NET_SCALE``, a forced win or
  loss ``±1``; :func:`root_value`); the learner mixes them
  (:func:`drl.train.learner.value_target`, with ``mix`` as its weight);
- policy target: the search's best move (one-hot on its first step, and on each later step
  of a capture played in several steps), so that the policy head stays usable by
  ``az:ckpt=``.

Exploration: in the first ``explore_plies`` plies of a game every root move is searched
with a full window to ``depth - 1`` plies below it, and the move played is sampled from the
softmax of their values at ``temperature``; later moves are the principal-variation
search's best move. Root moves that score the same are ordered by a seeded shuffle, so a
game depends only on the actor's seed (and, through the seed, on the worker's rank).

:class:`MinimaxActor` is :class:`~drl.train.selfplay.SelfPlayActor` with another way of
choosing a move: games in flight, recording, numbering, PDN, adjudication and delivery
are the same code, so everything downstream (replay buffer, learner, run folder,
checkpoints, metrics) is shared with AlphaZero self-play.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from drl._checks import INT32_MAX, check_range
from drl.agents import _alphabeta as ab
from drl.encode.actions import path_step_index
from drl.encode.sparse_net import SparseWeights
from drl.game import kernels as G
from drl.rules import Variant
from drl.rules.core import (
    M_NSTEPS,
    MAX_MOVES,
    MOVE_WIDTH,
    ST_PLY,
    ST_TURN,
    STATE_SIZE,
    apply_move_into,
    generate_moves,
)
from drl.search import Evaluator, SearchConfig
from drl.search.types import compiled_weights
from drl.train.buffer import GameBatch
from drl.train.selfplay import SelfPlayActor, SelfPlayConfig, SelfPlayStats

__all__ = [
    "ALGOS",
    "MinimaxActor",
    "MinimaxConfig",
    "MinimaxSearcher",
    "make_actor",
    "root_value",
    "sample_move",
]

ALGOS: tuple[str, ...] = ("az", "minimax")
"""The self-play algorithms (``algo=...``): AlphaZero's MCTS, and alpha-beta minimax."""

_NO_LIMIT = np.iinfo(np.int64).max // 2


@dataclass(frozen=True)
class MinimaxConfig:
    """Minimax self-play settings (the ``minimax`` config keys, read with ``algo=minimax``).

    Attributes:
        depth: nominal alpha-beta depth of each self-play move in plies (iterative
            deepening from 1; captures are searched on past it).
        mix: share of the search's value in the value target, in [0, 1]: 0 teaches
            the game result alone, 1 the search's value alone (``train.search_value_weight``
            is AlphaZero's share and is not used by ``algo=minimax``).
        explore_plies: plies at the start of each game whose move is sampled from the
            softmax of the root moves' values (each searched to ``depth - 1`` plies
            below it); 0 plays the best move throughout.
        temperature: of that softmax, in value units (the value head's [-1, 1] scale):
            a move valued ``temperature`` below the best is e times less likely.
        tt_bits: log2 of the transposition-table entries of each self-play process
            (48 bytes each); the table is cleared whenever new weights arrive.

    Raises:
        ValueError: ``name=value: must ...``: ``depth`` outside [1, 63], ``mix`` outside
            [0, 1], ``explore_plies`` outside [0, 2**31 - 1], ``temperature`` not in
            (0, 100], ``tt_bits`` outside [10, 26].
    """

    depth: int = 3
    mix: float = 0.5
    explore_plies: int = 8
    temperature: float = 0.1
    tt_bits: int = 18

    def __post_init__(self) -> None:
        check_range("depth", self.depth, 1, ab.MAX_PLY // 2 - 1)
        check_range("mix", self.mix, 0, 1, why=" (the search value's share of the target)")
        check_range("explore_plies", self.explore_plies, 0, INT32_MAX)
        check_range("temperature", self.temperature, 0, 100, open_low=True)
        check_range("tt_bits", self.tt_bits, 10, 26)


def root_value(score: int | np.ndarray) -> np.ndarray:
    """A search score as a value on the value head's scale, for the player to move.

    Args:
        score: the alpha-beta score(s): ``NET_SCALE`` times the network's value, or
            ``±(WIN - plies)`` for a forced win or loss (``drl.agents._alphabeta``).

    Returns:
        float32 in [-1, 1], the shape of ``score``: ``score / NET_SCALE`` clipped, and
        exactly ``±1`` for a forced result.
    """
    s = np.asarray(score, np.float64)
    v = np.clip(s / ab.NET_SCALE, -1.0, 1.0)
    v = np.where(np.abs(s) > ab.WIN_BOUND, np.sign(s), v)
    return v.astype(np.float32)


def sample_move(
    values: np.ndarray, rank: np.ndarray, temperature: float, rng: np.random.Generator
) -> tuple[int, int]:
    """The best root move and one sampled from the softmax of the values.

    Args:
        values: ``[n]`` float values of the root moves for the player to move (n >= 1).
        rank: ``[n]`` tie-break ranks: of equally valued moves the lowest rank is best.
        temperature: softmax temperature (> 0, value units).
        rng: draws the sample.

    Returns:
        ``(best, sampled)`` indices into ``values``.
    """
    v = np.asarray(values, np.float64)
    top = v.max()
    best = int(np.flatnonzero(v == top)[np.argmin(rank[v == top])])
    p = np.exp((v - top) / temperature)
    return best, int(rng.choice(len(v), p=p / p.sum()))


class MinimaxSearcher:
    """The compiled alpha-beta search of self-play, scoring quiet leaves with a network.

    Args:
        tt_bits: log2 of the transposition-table entries.

    Attributes:
        nodes: nodes searched since it was made (all searches).
    """

    def __init__(self, tt_bits: int = 18) -> None:
        self.buffers = ab.SearchBuffers(tt_bits)
        self._leaf: tuple = (tuple(ab.NO_NET), tuple(ab.NO_SCRATCH), tuple(ab.NO_NET_STACK))
        self._moves = np.zeros((MAX_MOVES, MOVE_WIDTH), np.int64)
        self._child = np.zeros(STATE_SIZE, np.int64)
        self._order = np.arange(MAX_MOVES, dtype=np.int64)
        self.nodes = 0

    def load(self, net: SparseWeights) -> None:
        """Score the leaves with ``net`` from now on; the transposition table is cleared."""
        from drl.agents._nnue import make_net_stack
        from drl.encode.sparse_net import make_scratch

        stack = make_net_stack(net, ab.MAX_PLY + 1, incremental=False)
        self._leaf = (tuple(net), tuple(make_scratch(net)), tuple(stack))
        self.buffers.clear()

    def _search(self, root: tuple, depth: int) -> int:
        ctl = self.buffers.stack.ctl
        ctl[:] = 0
        ctl[ab.C_LIMIT] = _NO_LIMIT
        stack, tables = self.buffers.args
        try:
            score = ab.search_root(root, depth, stack, tables, *self._leaf)
        except FloatingPointError as err:
            from drl.nn.errors import TrainingDiverged

            raise TrainingDiverged(
                "minimax self-play: the network's value is not finite at a leaf",
                what=f"network output {err}",
            ) from None
        self.nodes += int(ctl[ab.C_NODES])
        return int(score)

    def _deepen(self, root: tuple, depth: int) -> int:
        """Iterative deepening to ``depth`` (0: the leaf value and captures only)."""
        score = self._search(root, 0) if depth <= 0 else 0
        for d in range(1, depth + 1):
            score = self._search(root, d)
            if abs(score) > ab.WIN_BOUND:
                break
        return score

    def best(
        self, state: np.ndarray, params: np.ndarray, path: np.ndarray, rank: np.ndarray, depth: int
    ) -> tuple[np.ndarray, int]:
        """The best move of ``state`` and its score, searched to ``depth`` plies.

        Args:
            state: ``int64[STATE_SIZE]`` a position with at least one legal move.
            params: ``int64[PARAMS_SIZE]`` its rules.
            path: ``int64[ply + MAX_PLY + 1]`` the game's hashes by ply, room after it.
            rank: ``int64[MAX_MOVES]`` tie-break ranks of the root moves (kernel order).
            depth: plies (>= 1).

        Returns:
            ``(move row int64[MOVE_WIDTH], score)`` (see :func:`root_value`).
        """
        score = self._deepen((state, params, path, rank, ab.NO_EGTB), depth)
        row = self.buffers.stack.moves[0, self.buffers.stack.ctl[ab.C_BEST]].copy()
        return row, score

    def root_scores(
        self, state: np.ndarray, params: np.ndarray, path: np.ndarray, depth: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Every legal move of ``state`` and its score, each searched with a full window.

        The arguments are those of :meth:`best`; each move's position is searched to
        ``depth - 1`` plies.

        Returns:
            ``(rows int64[n, MOVE_WIDTH] in kernel order, scores int64[n])``, the scores
            for the player to move in ``state``.
        """
        n = generate_moves(state, params, self._moves)
        rows = self._moves[:n].copy()
        scores = np.empty(n, np.int64)
        for k in range(n):
            child = np.empty(STATE_SIZE, np.int64)
            apply_move_into(state, params, rows[k], child)
            scores[k] = -self._deepen((child, params, path, self._order, ab.NO_EGTB), depth - 1)
        return rows, scores


@dataclass
class _Plan:
    """The move a slot is playing, step by step, and what its positions are taught."""

    steps: list[int]
    q_root: float  # the search's value of the position the move starts from
    q_move: float  # the value of the move played
    target: int  # the best move's first step
    best: bool  # the move played is the best one


class MinimaxActor(SelfPlayActor):
    """Plays self-play games with alpha-beta on the network's value; records positions.

    The games are played, numbered, recorded and delivered as by
    :class:`~drl.train.selfplay.SelfPlayActor` (see its ``play``); only the choice of each
    move differs (the module docstring).

    Args:
        variants: as for ``SelfPlayActor``.
        search: the AlphaZero search settings (unused by the moves, kept for the base).
        config: the self-play settings (games in flight, ply cap, adjudication).
        seed: seeds the root-move shuffles and the exploration.
        minimax: :class:`MinimaxConfig`.

    Raises:
        ValueError: as ``SelfPlayActor``; at ``play``, a network without a compiled
            forward pass (``model.arch`` other than ``sparse``).
    """

    def __init__(
        self,
        variants: Sequence[Variant],
        search: SearchConfig,
        config: SelfPlayConfig,
        seed: int = 0,
        minimax: MinimaxConfig | None = None,
    ) -> None:
        super().__init__(variants, search, config, seed)
        self.minimax = minimax if minimax is not None else MinimaxConfig()
        self.searcher = MinimaxSearcher(self.minimax.tt_bits)
        self._plans: list[_Plan | None] = [None] * config.games_in_flight
        self._steps = np.zeros(MAX_MOVES, np.int64)

    def play(
        self,
        evaluate: Evaluator,
        num_games: int,
        on_games: Callable[[GameBatch, list[str]], None] | None = None,
        chunk: int = 32,
        progress: Callable[[int], None] | None = None,
    ) -> SelfPlayStats:
        """See :meth:`SelfPlayActor.play`; the network's compiled weights are loaded first."""
        weights = compiled_weights(evaluate)
        if weights is None:
            raise ValueError(
                "algo=minimax needs a network evaluated inside the compiled search "
                "(model=sparse); this network has no compiled forward pass"
            )
        self.searcher.load(weights)
        return super().play(evaluate, num_games, on_games, chunk, progress)

    def _play_step(self, evaluate: Evaluator, stats: SelfPlayStats) -> float:
        """One step of every slot: a search where a move starts, each position recorded."""
        b = self.config.games_in_flight
        for i in range(b):
            if self._slots[i] is None:
                self._slots[i] = self._new_game(i)
                self._plans[i] = None
        self._games.observe(self._all, self._obs)
        obs = self._obs.astype(np.float16)
        actions = np.zeros(b, np.int64)
        for i in range(b):
            g = self._slots[i]
            assert g is not None
            plan = self._plans[i]
            if plan is None or not plan.steps:
                plan = self._plans[i] = self._plan(i, stats)
            legal = self._legal(i)
            start = int(self._games.pos[i, G.G_PLEN]) == 0
            a = plan.steps.pop(0)
            actions[i] = a
            q = plan.q_root if start else plan.q_move
            if len(legal) == 1:
                if self.config.record_forced:
                    self._record(g, obs[i], legal, np.ones(1, np.float32), 0.0, q)
                continue
            target = plan.target if start else a
            policy = (legal == target).astype(np.float32)
            weight = 1.0 if (start or plan.best) and policy.sum() == 1 else 0.0
            self._record(g, obs[i], legal, policy, weight, q)
        self._advance(actions)
        return 0.0

    def _legal(self, i: int) -> np.ndarray:
        """The legal steps of slot ``i``, ascending (``int64[k]``)."""
        pos, params = self._games.pos[i], self._games.params[i]
        G.generate(pos, params, self._moves)
        k = G.legal_step_list(pos, params, self._moves, self._steps)
        return self._steps[:k].copy()

    def _plan(self, i: int, stats: SelfPlayStats) -> _Plan:
        """Choose slot ``i``'s move (it is at a move boundary): searched unless forced."""
        pos, params = self._games.pos[i], self._games.params[i]
        state = pos[:STATE_SIZE].copy()
        n = generate_moves(state, params, self._moves)
        turn = int(pos[ST_TURN])
        if n == 1:
            row = self._moves[0].copy()
            steps = _steps_of(row, turn, params)
            return _Plan(steps, math.nan, math.nan, steps[0], True)
        m = self.minimax
        ply = int(pos[ST_PLY])
        path = np.zeros(ply + ab.MAX_PLY + 2, np.int64)
        path[: ply + 1] = self._games.hist[i, : ply + 1]
        rank = self.rng.permutation(MAX_MOVES).astype(np.int64)
        before = self.searcher.nodes
        if ply < m.explore_plies:
            rows, scores = self.searcher.root_scores(state, params, path, m.depth)
            values = root_value(scores)
            best, k = sample_move(values, rank[: len(rows)], m.temperature, self.rng)
            target = _steps_of(rows[best], turn, params)[0]
            q_root, q_move, row = float(values[best]), float(values[k]), rows[k]
        else:
            row, score = self.searcher.best(state, params, path, rank, m.depth)
            q_root = q_move = float(root_value(score))
            best = k = 0
            target = _steps_of(row, turn, params)[0]
        stats.simulations += self.searcher.nodes - before
        stats.searched += 1
        return _Plan(_steps_of(row, turn, params), q_root, q_move, target, best == k)


def _steps_of(row: np.ndarray, turn: int, params: np.ndarray) -> list[int]:
    """The step actions of a move row, in playing order."""
    return [int(path_step_index(row, j, turn, params)) for j in range(int(row[M_NSTEPS]))]


def make_actor(
    variants: Sequence[Variant],
    search: SearchConfig,
    config: SelfPlayConfig,
    seed: int = 0,
    minimax: MinimaxConfig | dict[str, Any] | None = None,
) -> SelfPlayActor:
    """The self-play actor of an algorithm: AlphaZero's, or minimax's given ``minimax``.

    Args:
        variants: the variants games are played under, in turn.
        search: the AlphaZero search settings.
        config: the self-play settings.
        seed: seeds the actor's moves.
        minimax: None for AlphaZero self-play; a :class:`MinimaxConfig` (or its fields as
            a dict, as worker processes receive it) for minimax self-play.
    """
    if minimax is None:
        return SelfPlayActor(variants, search, config, seed)
    if isinstance(minimax, dict):
        minimax = MinimaxConfig(**minimax)
    return MinimaxActor(variants, search, config, seed, minimax)
