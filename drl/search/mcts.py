"""Batched MCTS driver: B trees, one network call per batch of leaves.

Typical use::

    mcts = BatchedMCTS(SearchConfig(num_simulations=32), batch_size=B, board_size=8)
    result = mcts.run(roots, evaluator, rng=np.random.default_rng(0))
    play(result.action)  # already sampled (PUCT temperature / Gumbel noise) or best

Each simulation round descends once in every tree, gathers the new leaves that need the
network into one ``[L, C, H, W]`` batch, calls the evaluator once, then expands those
leaves and backs their values up (:mod:`drl.search.kernels`). An evaluator with a
compiled forward pass (``compiled_weights()``, the ``sparse`` network) is run inside the
compiled search instead: the whole search is one call (:mod:`drl.search.inline`).
Terminal leaves (the game core's end of game, a position the endgame database solves,
``max_plies``) are backed up without the network. The root selection
(:mod:`drl.search.root`) turns the searched trees into the action and policy target.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from drl.egtb._search import NO_DATABASE
from drl.encode.actions import num_actions as _num_actions
from drl.encode.mask import MAX_STEPS
from drl.encode.planes import N_CHANNELS
from drl.encode.sparse_net import SparseWeights
from drl.game.batch import GameStates
from drl.game.kernels import G_PLEN, G_PREFIX, G_REPS
from drl.nn.errors import TrainingDiverged
from drl.rules.core import ST_HASH, ST_PLY, STATE_SIZE, count_repetitions
from drl.search import kernels as K
from drl.search.config import SearchConfig
from drl.search.inline import search_with_net
from drl.search.root import make_root_selection
from drl.search.tree import (
    SearchParams,
    Tree,
    allocate,
    allocate_leaves,
    with_edge_capacity,
    with_history_capacity,
)
from drl.search.types import Evaluator, SearchResult, compiled_weights

__all__ = ["BatchedMCTS", "Roots", "SearchConfig"]


@dataclass(frozen=True)
class Roots:
    """B search roots in step space (see ``drl.encode.mask``).

    Attributes:
        states: ``[B, STATE_SIZE]`` int64 game states.
        prefixes: ``[B, MAX_STEPS]`` int64 steps of the move in progress.
        prefix_lens: ``[B]`` int64 steps played in it (0 at the start of a move).
        repetitions: ``[B]`` int64 earlier occurrences of each root position.
        params: ``[B, PARAMS_SIZE]`` int64 variant parameters per game (games may differ,
            e.g. in which colour is the Taker, but not in board size).
        history: ``[B, H]`` int64 Zobrist hash of each game's position at every ply
            ``0..history_len-1`` (index = ``ST_PLY``), the root's own position included;
            0 marks an unknown entry.
        history_len: ``[B]`` int64.
        egtb: ``[B]`` int64, how each game's positions are looked up in the search's
            endgame database (:attr:`BatchedMCTS.database`): -1 not at all, else the
            lookup's ``flip`` (:meth:`drl.egtb._search.GameDatabases.flag`); None: no
            game probes it.
    """

    states: np.ndarray
    prefixes: np.ndarray
    prefix_lens: np.ndarray
    repetitions: np.ndarray
    params: np.ndarray
    history: np.ndarray
    history_len: np.ndarray
    egtb: np.ndarray | None = None

    @staticmethod
    def from_games(games: GameStates, egtb: np.ndarray | None = None) -> Roots:
        """The roots of B games of the game core, each at its current step.

        The one way from a :class:`~drl.game.batch.GameStates` to the search: every
        history entry up to each game's ply is known (``history_len = ST_PLY + 1``). The
        arrays are views of ``games``' (the search copies them into its trees), so step
        the games only after the search. ``egtb`` is :attr:`egtb` (``int64[B]``, or None:
        no game probes the endgame database).
        """
        pos = games.pos
        return Roots(
            states=pos[:, :STATE_SIZE],
            prefixes=pos[:, G_PREFIX : G_PREFIX + MAX_STEPS],
            prefix_lens=pos[:, G_PLEN],
            repetitions=pos[:, G_REPS],
            params=games.params,
            history=games.hist,
            history_len=pos[:, ST_PLY] + 1,
            egtb=egtb,
        )

    @staticmethod
    def from_positions(
        states: list[np.ndarray],
        params: list[np.ndarray] | np.ndarray,
        prefixes: list[tuple[int, ...]] | None = None,
        histories: list[list[int]] | None = None,
    ) -> Roots:
        """Stack single positions into :class:`Roots`.

        Args:
            states: B ``int64[STATE_SIZE]`` game states.
            params: one ``int64[PARAMS_SIZE]`` array for all, or B of them.
            prefixes: step actions of each move in progress (default none).
            histories: each game's earlier position hashes by ply, ``ST_PLY`` entries
                (default: unknown, only the root position itself is known).

        Raises:
            ValueError: if a history does not match its state's ply count.
        """
        b = len(states)
        st = np.stack([np.asarray(s, np.int64) for s in states])
        par = np.asarray(params, np.int64)
        par = np.broadcast_to(par, (b, par.shape[-1])).copy() if par.ndim == 1 else par
        pre = np.zeros((b, MAX_STEPS), np.int64)
        plen = np.zeros(b, np.int64)
        for i, p in enumerate(prefixes or [()] * b):
            pre[i, : len(p)] = p
            plen[i] = len(p)
        plies = st[:, ST_PLY]
        h = int(plies.max()) + 1
        hist = np.zeros((b, h), np.int64)
        hlen = np.zeros(b, np.int64)
        reps = np.zeros(b, np.int64)
        for i in range(b):
            ply = int(plies[i])
            if histories is not None and histories[i] is not None:
                if len(histories[i]) != ply:
                    raise ValueError(
                        f"history {i} has {len(histories[i])} entries, its state is at ply {ply}"
                    )
                hist[i, :ply] = histories[i]
                reps[i] = int(count_repetitions(hist[i], st[i]))
                hlen[i] = ply + 1
            else:
                hlen[i] = ply + 1  # earlier plies unknown: left 0, which matches no position
            hist[i, ply] = st[i, ST_HASH]
        return Roots(st, pre, plen, reps, par, hist, hlen)


class BatchedMCTS:
    """Preallocated trees for up to ``batch_size`` games searched together.

    Args:
        config: :class:`~drl.search.SearchConfig`.
        batch_size: B, the most roots per call.
        board_size: 8 or 10 (fixes A and the observation shape).
        max_plies: positions at this ply or later are leaves valued 0 inside the tree
            (training truncation); 0 = off.
        edge_capacity: initial edges per tree; grows on demand.

    Attributes:
        tree: the :class:`~drl.search.tree.Tree` of the last search (read-only use).
        database: the endgame database's kernel tuple the searches probe
            (``Database.kernel``; :data:`~drl.egtb._search.NO_DATABASE`, the default,
            holds no position). A new move-boundary node of a game whose ``Roots.egtb``
            is not -1, and whose exact result the database gives, is a solved leaf:
            valued +1, -1 or 0 without the network, never expanded
            (:func:`drl.search.kernels.solve_leaf`).
        speed: simulations per second (all trees together) of the last search run on a
            clock (``run(deadline=...)``), None before the first; it sizes the next one's
            plan and chunks.
    """

    CHUNKS_PER_SEARCH = 32
    """A search on a clock reads it about this many times: its chunks of simulations
    are sized to this share of its time, so it ends within about one such share of its
    deadline."""

    def __init__(
        self,
        config: SearchConfig,
        batch_size: int,
        board_size: int,
        max_plies: int = 0,
        edge_capacity: int | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.config = config
        self.batch_size = b = int(batch_size)
        self.board_size = int(board_size)
        self.num_actions = a = _num_actions(self.board_size)
        self.max_plies = int(max_plies)
        self.root_selection = make_root_selection(config)
        self.params = SearchParams(
            root_selection=int(self.root_selection.code),
            c_puct=float(config.c_puct),
            fpu_reduction=float(config.fpu_reduction),
            dirichlet_alpha=float(config.dirichlet_alpha),
            c_visit=float(config.gumbel_c_visit),
            c_scale=float(config.gumbel_c_scale),
            max_plies=self.max_plies,
        )
        self.database: tuple = NO_DATABASE
        self._egtb = np.full(b, -1, np.int64)  # each game's lookup (Roots.egtb)
        n = config.num_simulations + 1
        self._n = n
        e = int(edge_capacity or max(64, 8 * n))
        self.tree: Tree = allocate(b, n, e, a, config.num_simulations, history=64 + n)
        self.leaves = allocate_leaves(b, a, (N_CHANNELS, self.board_size, self.board_size))
        self.speed: float | None = None

    @property
    def edge_capacity(self) -> int:
        """Edges per tree currently allocated."""
        return int(self.tree.action.shape[1])

    def run(
        self,
        roots: Roots,
        evaluate: Evaluator,
        rng: np.random.Generator,
        active: np.ndarray | None = None,
        budgets: np.ndarray | None = None,
        explore: bool | np.ndarray = True,
        deadline: float | None = None,
    ) -> SearchResult:
        """Search B roots and choose the action to play at each.

        Args:
            roots: the positions; ``len(roots.states) <= batch_size``.
            evaluate: the network (see :class:`~drl.search.types.Evaluator`).
            rng: numpy generator; seeds the noise and draws the sampled actions, so runs
                are reproducible.
            active: ``[B]`` bool, roots to search (default all); a searched root's game
                must not be over.
            budgets: ``[B]`` int64 simulations per root, each <= ``num_simulations``
                (default: the full budget). Playout-cap randomisation uses this.
            explore: bool or ``[B]`` bool: add root noise (Dirichlet for PUCT, Gumbel
                samples for Gumbel) and, for PUCT, sample the action by temperature
                (``SearchConfig.temperature``, ``temperature_plies``). False gives the
                deterministic evaluation search.
            deadline: search until this :func:`time.perf_counter` time, in chunks of
                simulations (:meth:`_search_inline_until`), at most ``num_simulations``;
                ``budgets`` (default: what the measured :attr:`speed` fits in) is then
                only the plan of Gumbel's halving, whose last phase goes on past it.

        Returns:
            :class:`~drl.search.types.SearchResult`; rows of inactive roots are zero.

        Raises:
            ValueError: on shape mismatches, a budget out of range or a root whose game
                is over.
        """
        bsz = len(roots.states)
        if bsz > self.batch_size:
            raise ValueError(f"{bsz} roots but the search was built for {self.batch_size}")
        act, bud = self._budgets(bsz, active, budgets, deadline)
        expl = np.zeros(self.batch_size, np.bool_)
        expl[:bsz] = explore
        self._load_roots(roots, bud)
        leaves = self.leaves
        n_leaves = K.init_roots(self.tree, leaves)
        has = leaves.slot[:bsz] >= 0
        legal = np.zeros((bsz, self.num_actions), np.bool_)
        legal[has] = leaves.mask[leaves.slot[:bsz][has]]
        root_legal = np.zeros(self.batch_size, np.int64)
        root_legal[:bsz][has] = leaves.num_legal[leaves.slot[:bsz][has]]
        self.root_selection.start(self.tree, expl, root_legal, past_budget=deadline is not None)
        leaf_evals, batches = self._search(evaluate, rng, act, root_legal, n_leaves, deadline)
        if deadline is not None:
            bud = self.tree.budget.copy()  # the simulations run

        visits = np.zeros((bsz, self.num_actions), np.float32)
        q = np.zeros((bsz, self.num_actions), np.float32)
        value = np.zeros(bsz, np.float32)
        K.root_statistics(self.tree, visits, q, value)
        action, policy = self.root_selection.finish(self.tree, visits, expl[:bsz], rng)
        return SearchResult(
            action=action.astype(np.int64),
            visits=visits,
            q=q,
            policy=policy,
            root_value=value,
            legal=legal,
            simulations=int(bud.sum()),
            leaf_evals=leaf_evals,
            net_batches=batches,
        )

    def _budgets(
        self,
        bsz: int,
        active: np.ndarray | None,
        budgets: np.ndarray | None,
        deadline: float | None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`run`'s ``[batch_size]`` roots searched and simulations per root.

        Raises:
            ValueError: a searched root's budget outside ``1..num_simulations``.
        """
        n_sims = self.config.num_simulations
        act = np.zeros(self.batch_size, np.bool_)
        act[:bsz] = True if active is None else np.asarray(active, np.bool_)
        bud = np.zeros(self.batch_size, np.int64)
        if budgets is None and deadline is not None:
            budgets = np.full(bsz, self._planned(deadline, int(act.sum())), np.int64)
        bud[:bsz] = n_sims if budgets is None else np.asarray(budgets, np.int64)
        if np.any(bud[act] < 1) or np.any(bud > n_sims):
            raise ValueError(f"budgets must lie in 1..{n_sims}")
        bud[~act] = 0
        return act, bud

    def _search(
        self,
        evaluate: Evaluator,
        rng: np.random.Generator,
        act: np.ndarray,
        root_legal: np.ndarray,
        n_leaves: int,
        deadline: float | None,
    ) -> tuple[int, int]:
        """Run the simulations of the loaded roots, inline or batched; see :meth:`run`.

        Returns (leaves evaluated, network calls).
        """
        weights = compiled_weights(evaluate)
        if deadline is not None:
            self.tree.budget[act] = self.config.num_simulations  # the clock stops it
        if weights is None:
            rounds = int(self.tree.budget.max(initial=0))
            return self._search_batched(n_leaves, rounds, evaluate, rng, deadline)
        if int(root_legal.max(initial=0)) > self.edge_capacity:
            self.tree = with_edge_capacity(self.tree, 2 * int(root_legal.max()))
        if deadline is None:
            return self._search_inline(weights, rng), 0
        return self._search_inline_until(weights, rng, act, deadline), 0

    def _planned(self, deadline: float, searched: int) -> int:
        """Simulations per root that the measured speed fits in before ``deadline``.

        ``num_simulations`` while the speed is unknown; at least 1.
        """
        cap = self.config.num_simulations
        if self.speed is None:
            return cap
        left = deadline - time.perf_counter()
        return int(np.clip(self.speed * left / max(searched, 1), 1, cap))

    def _chunk(self, seconds: float, searched: int) -> int:
        """Simulations per root of a chunk of about ``seconds`` at the measured speed."""
        if self.speed is None:
            return 16
        return max(1, int(self.speed * seconds / max(searched, 1)))

    def _search_batched(
        self,
        n_roots: int,
        rounds: int,
        evaluate: Evaluator,
        rng: np.random.Generator,
        deadline: float | None = None,
    ) -> tuple[int, int]:
        """Run the simulations in rounds of one network call each.

        With a ``deadline`` the clock is read after every round, and the rounds stop
        when the next would end past it; ``tree.budget`` is then the simulations run.

        Returns (leaves evaluated, network calls).
        """
        leaf_evals = batches = 0
        start = last = time.perf_counter()
        if n_roots:
            self._evaluate_and_expand(n_roots, evaluate, rng)
            leaf_evals, batches = n_roots, 1
        ran = 0
        for sim in range(rounds):
            n_leaves = K.select_leaves(
                self.tree, self.leaves, self.params, sim, self.database, self._egtb
            )
            if n_leaves:
                self._evaluate_and_expand(n_leaves, evaluate, rng)
                leaf_evals += n_leaves
                batches += 1
            ran = sim + 1
            if deadline is not None:
                now = time.perf_counter()
                if now + (now - last) > deadline:
                    break
                last = now
        if deadline is not None:
            searched = self.tree.budget > 0
            self.tree.budget[searched] = np.minimum(self.tree.budget[searched], ran)
            spent = time.perf_counter() - start
            self.speed = int(self.tree.budget.sum()) / max(spent, 1e-9)
        return leaf_evals, batches

    def _search_inline(self, weights: SparseWeights, rng: np.random.Generator) -> int:
        """Run the whole search in compiled code; returns the leaves evaluated.

        The network is evaluated at each leaf (:func:`drl.search.inline.search_with_net`),
        the trees shared over numba's threads (``numba.set_num_threads``).
        """
        done = np.full(self.batch_size, -1, np.int64)
        seed = int(rng.integers(0, 2**31 - 1))
        return self._inline_calls(weights, done, seed)

    def _search_inline_until(
        self, weights: SparseWeights, rng: np.random.Generator, act: np.ndarray, deadline: float
    ) -> int:
        """:meth:`_search_inline` in chunks until ``deadline`` (see :meth:`run`).

        The chunks are sized by the measured speed (about :attr:`CHUNKS_PER_SEARCH` per
        search, the last one to what fits before the deadline); the clock is read
        between them, and the search stops when the next chunk would end past the
        deadline or every root has run ``num_simulations`` (at least one chunk runs).
        The roots in ``act`` have ``budget`` = ``num_simulations``; on return ``budget``
        is the simulations each ran. Returns the leaves evaluated.
        """
        cap = int(self.tree.budget.max(initial=0))
        searched = int(act.sum())
        done = np.full(self.batch_size, -1, np.int64)
        seed = int(rng.integers(0, 2**31 - 1))
        start = time.perf_counter()
        chunk = self._chunk((deadline - start) / self.CHUNKS_PER_SEARCH, searched)
        evals = ran = 0
        last = start
        while True:
            before, ran = ran, min(cap, ran + chunk)
            self.tree.budget[act] = ran
            evals += self._inline_calls(weights, done, seed)
            now = time.perf_counter()
            self.speed = searched * ran / max(now - start, 1e-9)
            # the next chunk is sized by the slower of the search's mean speed and the
            # last chunk's (a tree slows down as it deepens)
            recent = min(self.speed, searched * (ran - before) / max(now - last, 1e-9))
            last = now
            left = deadline - now
            if ran >= cap or recent * left < searched:
                break
            step = self._chunk((deadline - start) / self.CHUNKS_PER_SEARCH, searched)
            chunk = min(step, int(recent * left / searched))
        return evals

    def _inline_calls(self, weights: SparseWeights, done: np.ndarray, seed: int) -> int:
        """Call the compiled search until every tree has run its budget.

        The edge arrays grow as it asks. Returns the leaves evaluated.
        """
        evals = 0
        while True:
            try:
                complete, n = search_with_net(
                    self.tree, self.params, weights, done, seed, self.database, self._egtb
                )
            except FloatingPointError as err:
                raise TrainingDiverged(
                    f"network output {err} is not finite at a leaf of the compiled search "
                    "(finite weights that overflow): the network's weights have diverged "
                    "(a learning rate too high, or a damaged checkpoint); go back to an "
                    "earlier checkpoint",
                    what=f"network output {err}",
                ) from None
            evals += int(n)
            if complete:
                return evals
            self.tree = with_edge_capacity(self.tree, 2 * self.edge_capacity)

    def _load_roots(self, roots: Roots, budget: np.ndarray) -> None:
        """Write the roots' positions, variants, histories and budgets into the tree."""
        bsz = len(roots.states)
        states = np.asarray(roots.states, np.int64)
        plies = states[:, ST_PLY][budget[:bsz] > 0]
        width = int(plies.max(initial=0)) + self._n + 1
        if width > self.tree.hist.shape[1]:
            self.tree = with_history_capacity(self.tree, max(width, 2 * self.tree.hist.shape[1]))
        tree = self.tree
        tree.budget[:] = budget
        self._egtb[:] = -1
        if roots.egtb is not None:
            self._egtb[:bsz] = roots.egtb
        pos = tree.pos[:bsz, 0]
        pos[:] = 0
        pos[:, :STATE_SIZE] = states
        pos[:, G_PREFIX : G_PREFIX + MAX_STEPS] = roots.prefixes
        pos[:, G_PLEN] = roots.prefix_lens
        pos[:, G_REPS] = roots.repetitions
        tree.params[:bsz] = roots.params
        hist = tree.hist
        hist[:] = 0
        src = np.asarray(roots.history, np.int64)
        w = min(src.shape[1], hist.shape[1])
        known = np.arange(w) < np.asarray(roots.history_len, np.int64)[:, None]
        hist[:bsz, :w] = np.where(known, src[:, :w], 0)

    def _evaluate_and_expand(
        self, n_leaves: int, evaluate: Evaluator, rng: np.random.Generator
    ) -> None:
        leaves = self.leaves
        slots = leaves.slot
        queued = slots >= 0
        need = int((self.tree.num_edges[queued] + leaves.num_legal[slots[queued]]).max())
        if need > self.edge_capacity:
            self.tree = with_edge_capacity(self.tree, max(need, 2 * self.edge_capacity))
        out = evaluate(leaves.obs[:n_leaves], leaves.mask[:n_leaves])
        logits = np.asarray(out.logits, np.float32)
        values = np.asarray(out.value, np.float32).reshape(-1)
        if logits.shape != (n_leaves, self.num_actions) or values.shape != (n_leaves,):
            raise ValueError(
                f"evaluator returned logits {logits.shape} and values "
                f"{values.shape} for {n_leaves} leaves"
            )
        seed = int(rng.integers(0, 2**31 - 1))
        K.expand_and_backup(
            self.tree, leaves, np.ascontiguousarray(logits), values, self.params, seed
        )
