"""Batched MCTS driver: B trees, one network call per batch of leaves.

Typical use::

    mcts = BatchedMCTS(SearchConfig(num_simulations=32), batch_size=B, board_size=8)
    result = mcts.run(roots, evaluator, rng=np.random.default_rng(0))

Each simulation round descends once in every tree, gathers the new leaves that need the
network into one ``[L, C, H, W]`` batch, calls the evaluator once, then expands those
leaves and backs their values up. Terminal leaves (rules ``status``, threefold
repetition, ``max_plies``) are backed up without the network.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from drl.encode.actions import num_actions as _num_actions
from drl.encode.mask import MAX_STEPS
from drl.encode.planes import N_CHANNELS
from drl.rules.core import ST_HASH, ST_NOPROG, ST_PLY, STATE_SIZE
from drl.search import kernels as K
from drl.search.gumbel import halving_schedule
from drl.search.types import Evaluator, SearchResult

__all__ = ["BatchedMCTS", "Roots", "SearchConfig"]

ROOT_SELECTIONS = ("puct", "gumbel")


@dataclass(frozen=True)
class SearchConfig:
    """Search settings.

    Attributes:
        num_simulations: simulations per root (the full budget).
        root_selection: ``"puct"`` (AlphaZero: PUCT everywhere, Dirichlet noise at the
            root when exploring, visit-count policy target) or ``"gumbel"`` (Gumbel
            top-m sampling and sequential halving at the root, PUCT below it, improved
            policy target; suited to small budgets).
        c_puct: exploration constant of PUCT (values are in [-1, 1]).
        fpu_reduction: unvisited children are valued at the parent's mean minus this.
        dirichlet_alpha: root noise concentration (PUCT, exploring only).
        dirichlet_epsilon: root noise weight (PUCT, exploring only).
        gumbel_max_considered: m, actions sampled at the root (Gumbel).
        gumbel_c_visit: ``c_visit`` of the sigma transform (Gumbel).
        gumbel_c_scale: ``c_scale`` of the sigma transform (Gumbel).
    """

    num_simulations: int = 32
    root_selection: str = "gumbel"
    c_puct: float = 1.5
    fpu_reduction: float = 0.2
    dirichlet_alpha: float = 0.5
    dirichlet_epsilon: float = 0.25
    gumbel_max_considered: int = 16
    gumbel_c_visit: float = 50.0
    gumbel_c_scale: float = 0.1

    def __post_init__(self) -> None:
        if self.num_simulations < 1:
            raise ValueError(f"num_simulations must be >= 1, got {self.num_simulations}")
        if self.root_selection not in ROOT_SELECTIONS:
            raise ValueError(f"root_selection must be one of {ROOT_SELECTIONS}, "
                             f"got {self.root_selection!r}")
        if self.gumbel_max_considered < 1:
            raise ValueError("gumbel_max_considered must be >= 1")
        if not 0.0 <= self.dirichlet_epsilon <= 1.0:
            raise ValueError("dirichlet_epsilon must lie in [0, 1]")
        if self.dirichlet_alpha <= 0.0:
            raise ValueError("dirichlet_alpha must be > 0")


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
    """

    states: np.ndarray
    prefixes: np.ndarray
    prefix_lens: np.ndarray
    repetitions: np.ndarray
    params: np.ndarray
    history: np.ndarray
    history_len: np.ndarray

    @staticmethod
    def from_positions(states: list[np.ndarray], params: list[np.ndarray] | np.ndarray,
                       prefixes: list[tuple[int, ...]] | None = None,
                       histories: list[list[int]] | None = None) -> Roots:
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
            pre[i, :len(p)] = p
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
                    raise ValueError(f"history {i} has {len(histories[i])} entries, its state "
                                     f"is at ply {ply}")
                hist[i, :ply] = histories[i]
                lo = max(0, ply - int(st[i, ST_NOPROG]))
                reps[i] = int(np.count_nonzero(hist[i, lo:ply] == st[i, ST_HASH]))
                hlen[i] = ply + 1
            else:
                hlen[i] = ply + 1  # earlier plies unknown: left 0, which matches no position
            hist[i, ply] = st[i, ST_HASH]
        return Roots(st, pre, plen, reps, par, hist, hlen)


class BatchedMCTS:
    """Preallocated trees for up to ``batch_size`` games searched together.

    Args:
        config: :class:`SearchConfig`.
        batch_size: B, the most roots per call.
        board_size: 8 or 10 (fixes A and the observation shape).
        max_plies: positions at this ply or later count as draws inside the tree
            (training truncation); 0 = off.
        edge_capacity: initial edges per tree; grows on demand.
    """

    def __init__(self, config: SearchConfig, batch_size: int, board_size: int,
                 max_plies: int = 0, edge_capacity: int | None = None) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.config = config
        self.batch_size = b = int(batch_size)
        self.board_size = int(board_size)
        self.num_actions = a = _num_actions(self.board_size)
        self.max_plies = int(max_plies)
        n = config.num_simulations + 1
        self._n = n
        e = int(edge_capacity or max(64, 8 * n))
        i64, f64 = np.int64, np.float64
        self.n_state = np.zeros((b, n, STATE_SIZE), i64)
        self.n_prefix = np.zeros((b, n, MAX_STEPS), i64)
        self.n_plen = np.zeros((b, n), i64)
        self.n_player = np.zeros((b, n), i64)
        self.n_reps = np.zeros((b, n), i64)
        self.n_term = np.zeros((b, n), i64)
        self.n_tvalue = np.zeros((b, n), f64)
        self.n_parent = np.zeros((b, n), i64)
        self.n_pedge = np.zeros((b, n), i64)
        self.n_estart = np.zeros((b, n), i64)
        self.n_ecount = np.zeros((b, n), i64)
        self.n_visits = np.zeros((b, n), i64)
        self.n_value = np.zeros((b, n), f64)
        self.n_used = np.zeros(b, i64)
        self._alloc_edges(e)
        self.e_used = np.zeros(b, i64)
        self.g_score = np.zeros((b, a), f64)
        self.root_value = np.zeros(b, f64)
        self.leaf = np.zeros(b, i64)
        self.slot_of = np.zeros(b, i64)
        self.counts = np.zeros(b, i64)
        self.obs = np.zeros((b, N_CHANNELS, self.board_size, self.board_size), np.float32)
        self.mask = np.zeros((b, a), np.bool_)

    def _alloc_edges(self, e: int, keep: int = 0) -> None:
        b = self.batch_size
        new = {
            "e_action": np.zeros((b, e), np.int64),
            "e_prior": np.zeros((b, e), np.float64),
            "e_child": np.full((b, e), -1, np.int64),
            "e_visits": np.zeros((b, e), np.int64),
            "e_value": np.zeros((b, e), np.float64),
        }
        for name, arr in new.items():
            if keep:
                arr[:, :keep] = getattr(self, name)[:, :keep]
            setattr(self, name, arr)
        self.edge_capacity = e

    def _ensure_edges(self, num_leaves: int) -> None:
        need = 0
        for b in range(self.batch_size):
            s = self.slot_of[b]
            if s >= 0:
                need = max(need, int(self.e_used[b] + self.counts[s]))
        if need > self.edge_capacity:
            self._alloc_edges(max(need, 2 * self.edge_capacity), keep=self.edge_capacity)

    def run(self, roots: Roots, evaluate: Evaluator, rng: np.random.Generator,
            active: np.ndarray | None = None, budgets: np.ndarray | None = None,
            explore: bool | np.ndarray = True) -> SearchResult:
        """Search B roots.

        Args:
            roots: the positions; ``len(roots.states) <= batch_size``.
            evaluate: the network (see :class:`~drl.search.types.Evaluator`).
            rng: numpy generator; seeds the noise, so runs are reproducible.
            active: ``[B]`` bool, roots to search (default all); a searched root must
                have a legal step.
            budgets: ``[B]`` int64 simulations per root, each <= ``num_simulations``
                (default: the full budget). Playout-cap randomisation uses this.
            explore: bool or ``[B]`` bool: add root noise (Dirichlet for PUCT, Gumbel
                samples for Gumbel). False gives the deterministic evaluation search.

        Returns:
            :class:`~drl.search.types.SearchResult`; rows of inactive roots are zero.

        Raises:
            ValueError: on shape mismatches, a budget out of range or a root with no
                legal step.
        """
        cfg = self.config
        bsz = len(roots.states)
        if bsz > self.batch_size:
            raise ValueError(f"{bsz} roots but the search was built for {self.batch_size}")
        full = self.batch_size
        act = np.zeros(full, np.bool_)
        act[:bsz] = True if active is None else np.asarray(active, np.bool_)
        bud = np.zeros(full, np.int64)
        bud[:bsz] = cfg.num_simulations if budgets is None else np.asarray(budgets, np.int64)
        if np.any(bud[act] < 1) or np.any(bud > cfg.num_simulations):
            raise ValueError(f"budgets must lie in 1..{cfg.num_simulations}")
        expl = np.zeros(full, np.bool_)
        expl[:bsz] = explore
        hist_len = np.zeros(full, np.int64)
        hist_len[:bsz] = roots.history_len
        hist = self._pad(roots.history, full)
        states = self._pad(roots.states, full)
        params = self._pad(roots.params, full)
        prefixes = self._pad(roots.prefixes, full)
        plens = self._pad(roots.prefix_lens, full)
        reps = self._pad(roots.repetitions, full)

        n_leaves = K.init_roots(act, states, prefixes, plens, reps, params, self.n_state,
                                self.n_prefix, self.n_plen, self.n_player, self.n_reps,
                                self.n_term, self.n_parent, self.n_pedge, self.n_estart,
                                self.n_ecount, self.n_visits, self.n_value, self.n_used,
                                self.e_used, self.leaf, self.slot_of, self.obs, self.mask,
                                self.counts)
        legal = np.zeros((bsz, self.num_actions), np.bool_)
        for b in range(bsz):
            if self.slot_of[b] >= 0:
                legal[b] = self.mask[self.slot_of[b]]
        gumbel = cfg.root_selection == "gumbel"
        noise_eps = np.where(expl & (not gumbel), cfg.dirichlet_epsilon, 0.0)
        gumbel_scale = np.where(expl & gumbel, 1.0, 0.0)
        visit_seq = np.zeros((full, cfg.num_simulations), np.int64)
        if gumbel:
            for b in range(bsz):
                s = self.slot_of[b]
                if s >= 0:
                    m = min(cfg.gumbel_max_considered, int(self.counts[s]))
                    visit_seq[b, :bud[b]] = halving_schedule(m, int(bud[b]))
        leaf_evals, batches = 0, 0
        leaf_evals, batches = self._evaluate_and_expand(n_leaves, evaluate, rng, noise_eps,
                                                        gumbel_scale, leaf_evals, batches)
        zero_eps = np.zeros(full, np.float64)
        zero_g = np.zeros(full, np.float64)
        for sim in range(int(bud.max(initial=0))):
            n_leaves = K.select_leaves(
                sim, act, bud, params, self.max_plies, hist, hist_len, cfg.c_puct,
                cfg.fpu_reduction, gumbel, visit_seq, self.g_score, self.root_value,
                cfg.gumbel_c_visit, cfg.gumbel_c_scale, self.n_state, self.n_prefix,
                self.n_plen, self.n_player, self.n_reps, self.n_term, self.n_tvalue,
                self.n_parent, self.n_pedge, self.n_estart, self.n_ecount, self.n_visits,
                self.n_value, self.n_used, self.e_action, self.e_prior, self.e_child,
                self.e_visits, self.e_value, self.leaf, self.slot_of, self.obs, self.mask,
                self.counts)
            leaf_evals, batches = self._evaluate_and_expand(n_leaves, evaluate, rng, zero_eps,
                                                            zero_g, leaf_evals, batches)

        visits = np.zeros((full, self.num_actions), np.float32)
        q = np.zeros((full, self.num_actions), np.float32)
        improved = np.zeros((full, self.num_actions), np.float32)
        g_action = np.zeros(full, np.int64)
        value = np.zeros(full, np.float32)
        K.root_outputs(act, gumbel, self.g_score, self.root_value, cfg.gumbel_c_visit,
                       cfg.gumbel_c_scale, self.n_ecount, self.n_visits, self.n_value,
                       self.e_action, self.e_prior, self.e_visits, self.e_value, visits, q,
                       improved, g_action, value)
        visits, q, improved = visits[:bsz], q[:bsz], improved[:bsz]
        g_action, value = g_action[:bsz], value[:bsz]
        if gumbel:
            policy, action = improved, g_action
        else:
            tot = visits.sum(axis=1, keepdims=True)
            policy = np.divide(visits, tot, out=np.zeros_like(visits), where=tot > 0)
            action = np.where(act[:bsz], np.argmax(visits, axis=1), -1)
        return SearchResult(action=action.astype(np.int64), visits=visits, q=q, policy=policy,
                            root_value=value, legal=legal,
                            simulations=int(bud[act].sum()), leaf_evals=leaf_evals,
                            net_batches=batches)

    def _evaluate_and_expand(self, n_leaves, evaluate, rng, noise_eps, gumbel_scale,
                             leaf_evals, batches):
        if n_leaves == 0:
            return leaf_evals, batches
        self._ensure_edges(n_leaves)
        out = evaluate(self.obs[:n_leaves], self.mask[:n_leaves])
        logits = np.asarray(out.logits, np.float32)
        values = np.asarray(out.value, np.float32).reshape(-1)
        if logits.shape != (n_leaves, self.num_actions) or values.shape != (n_leaves,):
            raise ValueError(f"evaluator returned logits {logits.shape} and values "
                             f"{values.shape} for {n_leaves} leaves")
        seed = int(rng.integers(0, 2**31 - 1))
        K.expand_and_backup(logits, values, self.leaf, self.slot_of, self.mask, noise_eps,
                            self.config.dirichlet_alpha, gumbel_scale, seed, self.n_player,
                            self.n_estart, self.n_ecount, self.n_visits, self.n_value,
                            self.n_parent, self.n_pedge, self.e_used, self.e_action,
                            self.e_prior, self.e_child, self.e_visits, self.e_value,
                            self.g_score, self.root_value)
        return leaf_evals + n_leaves, batches + 1

    @staticmethod
    def _pad(arr: np.ndarray, rows: int) -> np.ndarray:
        arr = np.ascontiguousarray(arr, dtype=np.int64)
        if len(arr) == rows:
            return arr
        out = np.zeros((rows,) + arr.shape[1:], np.int64)
        out[:len(arr)] = arr
        return out
