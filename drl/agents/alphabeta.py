"""``alphabeta:depth=N`` / ``alphabeta:time=SECONDS``: iterative-deepening negamax.

The compiled search is in :mod:`drl.agents._alphabeta` and its evaluation in
:mod:`drl.agents._evaluate`; with ``ckpt=PATH`` (a checkpoint of a ``sparse`` network)
the quiet leaves are scored by the network's value instead, computed inside the
compiled search the way draughts engines use such networks. This module drives
iterative deepening: depth 1, 2, ... up to ``depth``, or until ``time`` seconds are
spent. Time is enforced through a node budget (estimated from the speed of the finished
iterations), so a search whose budget runs out is abandoned and the previous depth's
move is played. A forced win or loss found at some depth ends the deepening (shallower
proofs are shortest).
"""

from __future__ import annotations

import math
import time as _time
from typing import Any

import numpy as np

from drl.agents import _alphabeta as ab
from drl.agents._board import kernel_inputs, move_from_row, require_moves, search_history
from drl.agents.base import Agent
from drl.rules import Board, Move, Variant

__all__ = ["AlphaBetaAgent"]


class AlphaBetaAgent(Agent):
    """Alpha-beta search player.

    Args:
        depth: nominal search depth in plies (>= 1); with ``time`` it caps the depth.
        time: seconds per move (> 0); None searches exactly to ``depth``.
        tt_bits: log2 of the transposition-table entries (48 bytes each).
        seed: tie-break seed among equally scored root moves.
        ckpt: a checkpoint file or run folder of a ``sparse`` network whose value
            scores the quiet leaves (``NET_SCALE`` times the value); None = the static
            evaluation.
        egtb: probe the endgame database of the board's variant where one is on disk
            (``drl-egtb build``; none is built here): below the root, a position whose
            exact result it gives ends the line (``drl.egtb``, counters included).

    Attributes (after each move): ``last_depth`` (completed depth), ``last_score``
    (centi-men for the mover, ``±(1_000_000 - plies)`` for a forced result),
    ``last_nodes`` (nodes searched, all iterations), ``last_seconds``.

    Raises:
        ValueError: neither or invalid ``depth``/``time``; a checkpoint that cannot be
            read or holds a network without a compiled forward pass; (at the first
            move) a board of another size than the network's.
        TrainingDiverged: a weight of the network, or one of its outputs on the start
            position, is NaN or infinite (the check of the ``az`` agent).
    """

    def __init__(
        self,
        depth: int | None = None,
        time: float | None = None,
        tt_bits: int = 19,
        seed: int | None = None,
        ckpt: str | None = None,
        egtb: bool = True,
    ) -> None:
        if depth is None and time is None:
            depth = 4
        if depth is not None and not 1 <= depth < ab.MAX_PLY // 2:
            raise ValueError(f"depth must be in 1..{ab.MAX_PLY // 2 - 1}, got {depth}")
        if time is not None and not 0 < time < math.inf:  # also refuses nan
            raise ValueError(f"time must be a finite number of seconds > 0, got {time}")
        self.depth = depth
        self.time = time
        self.name = f"alphabeta:depth={depth}" if time is None else f"alphabeta:time={time}"
        self._net, self._scratch, self._net_board = ab.NO_NET, ab.NO_SCRATCH, 0
        self._net_stack = ab.NO_NET_STACK
        self._net_config: object = None
        self._source = ""
        self._trained_on: str | None = None
        self._fits: set[int] = set()  # board sizes checked (and searched once)
        if ckpt is not None:
            self._load(ckpt)
            self.name += ",ckpt"
        self.egtb = egtb
        self._databases: dict[str, tuple] = {}
        self._buf = ab.SearchBuffers(tt_bits)
        # the leaf evaluation as search_root takes it fastest (plain tuples)
        self._leaf_eval = (tuple(self._net), tuple(self._scratch), tuple(self._net_stack))
        self._rng = np.random.default_rng(seed)
        self.last_depth = 0
        self.last_score = 0
        self.last_nodes = 0
        self.last_seconds = 0.0

    def _load(self, ckpt: str) -> None:
        from drl.agents._nnue import make_net_stack
        from drl.agents.az import check_outputs, load_network
        from drl.encode.sparse_net import make_scratch
        from drl.nn.evaluator import check_weights

        path, payload, net, _device = load_network(ckpt, "cpu")
        export = getattr(net, "compiled_weights", None)
        if export is None:
            raise ValueError(
                f"alphabeta ckpt={ckpt}: checkpoint {path} holds a {net.arch!r} network; "
                "the search needs one with a compiled forward pass (arch 'sparse')"
            )
        self._source = f"checkpoint {path}"
        self._net = check_weights(export(), self._source)
        check_outputs(net, self._source)  # the hidden layers too, not only the value
        self._scratch = make_scratch(self._net)
        self._net_stack = make_net_stack(self._net, ab.MAX_PLY + 1, incremental=False)
        self._net_board = int(net.config.board_size)
        self._net_config = net.config
        trained_on = payload.get("variant")
        self._trained_on = None if trained_on is None else str(trained_on)

    def set_incremental(self, on: bool) -> None:
        """Update the network's first layer along the search path, or recompute it.

        ``True``: updated from the pieces each move changes (:mod:`drl.agents._nnue`);
        ``False`` (the default): recomputed at every leaf, which measured 4-6% faster with
        the 256/32 networks (``benchmarks/search_speed.py``: the second layer dominates).
        """
        self._net_stack.ctl[0] = 1 if on else 0

    def check_variant(self, variant: Variant | str) -> None:
        """With ``ckpt``: raise ``ValueError`` unless the network fits ``variant``'s board.

        See :func:`drl.nn.check_variant`, which also warns once when the network was
        trained under other rules. Without ``ckpt`` every variant fits. The first time a
        board size is seen, a depth-1 search of its start position loads (or builds) the
        compiled search, so that a clock started after this check times the search only;
        the tables it filled are cleared and the move-order seed is left as it was.
        """
        v = Variant.parse(variant)
        if v.board_size in self._fits:
            return
        if self._net_board:
            from drl.nn import check_variant

            check_variant(self._net_config, v, self._source, self._trained_on, "sparse")
        self._fits.add(v.board_size)
        depth, limit = self.depth, self.time
        self.depth, self.time = 1, None
        try:
            self.search(Board(v))
        finally:
            self.depth, self.time = depth, limit
            self._buf.clear()

    def reset(self, seed: int | None = None) -> None:
        """Clear the transposition table and history counters; reseed the move ordering."""
        self._buf.clear()
        self._rng = np.random.default_rng(seed)

    def select_move(self, board: Board) -> Move:
        """The best move of :meth:`search` (a single legal move is played unsearched)."""
        self.check_variant(board.variant)  # before the forced-move shortcut
        legal = require_moves(board)
        rank = self._rng.permutation(ab.MAX_MOVES).astype(np.int64)
        if len(legal) == 1:
            self.last_depth, self.last_score, self.last_nodes = 0, 0, 0
            self.last_seconds = 0.0
            return legal[0]
        best_row, _ = self.search(board, rank)
        return move_from_row(board, best_row)

    def search(self, board: Board, rank: np.ndarray | None = None) -> tuple[np.ndarray, int]:
        """Run the iterative deepening on ``board``.

        Args:
            board: the position (with its history, for repetitions).
            rank: int64 [MAX_MOVES] tie-break ranks of the root moves (kernel order);
                default: kernel order.

        Returns:
            ``(best move row int64[MOVE_WIDTH], score)``.
        """
        self.check_variant(board.variant)
        state, params = kernel_inputs(board)
        path = search_history(board, ab.MAX_PLY + 1)
        if rank is None:
            rank = np.arange(ab.MAX_MOVES, dtype=np.int64)
        root = (state, params, path, rank, self._database(board.variant))  # an ab.SearchRoot
        ctl = self._buf.stack.ctl
        max_depth = self.depth if self.depth is not None else ab.MAX_PLY // 2 - 1
        start = _time.perf_counter()
        total_nodes = 0
        best_row = None
        score = 0
        done_depth = 0
        for d in range(1, max_depth + 1):
            if self.time is None or d == 1:
                limit = np.iinfo(np.int64).max // 2
            else:
                elapsed = _time.perf_counter() - start
                rate = total_nodes / max(elapsed, 1e-6)
                limit = int(rate * (self.time - elapsed))
                if limit <= 0:
                    break
            ctl[:] = 0
            ctl[ab.C_LIMIT] = limit
            s = self._search_root(root, d)
            total_nodes += int(ctl[ab.C_NODES])
            if ctl[ab.C_ABORT]:
                break
            best_row = self._buf.stack.moves[0, ctl[ab.C_BEST]].copy()
            score = int(s)
            done_depth = d
            if abs(score) > ab.WIN_BOUND:
                break
        if best_row is None:  # the first iteration never aborts; kept for safety
            best_row = np.array(board.legal_moves[0].row)
        self.last_depth = done_depth
        self.last_score = score
        self.last_nodes = total_nodes
        self.last_seconds = _time.perf_counter() - start
        return best_row, score

    def _database(self, variant: Variant) -> tuple:
        """The kernel tuple of ``variant``'s endgame database on disk, else ``ab.NO_EGTB``."""
        key = str(variant)
        if key not in self._databases:
            db = None
            if self.egtb:
                from drl.egtb import EgtbError, open_database

                try:
                    db = open_database(variant)
                except EgtbError:  # rules without databases (role swaps)
                    db = None
            self._databases[key] = ab.NO_EGTB if db is None else db.kernel
        return self._databases[key]

    def _search_root(self, root: tuple[Any, ...], d: int) -> int:
        stack, tables = self._buf.args
        try:
            return ab.search_root(root, d, stack, tables, *self._leaf_eval)
        except FloatingPointError as err:
            from drl.nn.errors import TrainingDiverged

            raise TrainingDiverged(
                f"{self.name}: the value of the network of {self._source} is not finite at "
                "a leaf (finite weights that overflow): its weights have diverged; use an "
                "earlier checkpoint",
                what=f"network output {err}",
            ) from None
