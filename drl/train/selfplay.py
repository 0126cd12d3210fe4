"""Self-play actor: B games in flight, one batched search per step, games recorded.

Every slot holds one game. At each step every slot whose position has a single legal
step plays it at once (recorded with policy weight 0); the others are searched together
by :class:`~drl.search.BatchedMCTS` (one network call per batch of leaves). A finished
slot starts a new game at once, so the batch stays full; games still in flight when
:meth:`SelfPlayActor.play` returns go on at the next call, and so do games that finished
in the last step beyond the number asked for: a call delivers exactly the games it was
asked for.

Games are numbered when they are delivered, in delivery order, so the numbers of the
games an actor hands out are contiguous whatever order they finished in (a game's
number is its ``Round`` in the PDN, minus one). :func:`renumber_games` numbers a
delivered batch afresh, for a driver that gathers the games of several actors.

A game that reaches a position whose exact result the endgame database of its variant
gives (``egtb``; counters of the game included, :mod:`drl.egtb._probe`) ends there with
that result, recorded with the ``Termination "database"`` and ``Database`` tags in its
PDN (a win or loss only where its history cannot draw it by repetition first), and the
searches solve such positions in their trees; only a database already on disk is used
(:func:`drl.egtb.egtb_dir`: none is built during training).

In Give and Take the actor can alternate which colour is the Taker from game to game
(``variants`` holds both role assignments), so the one network learns both roles; the
observation's objective planes tell it which role it is playing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from drl._checks import INT32_MAX, check_range
from drl.agents.alphabeta import AlphaBetaAgent
from drl.egtb._search import GameDatabases, database_code, history_allows
from drl.encode.actions import num_actions as _num_actions
from drl.encode.planes import N_CHANNELS
from drl.game import kernels as G
from drl.game.batch import GameStates
from drl.rules import Board, Move, Variant
from drl.rules.core import (
    M_CAPTURED,
    M_FROM,
    M_NSTEPS,
    M_PATH,
    MOVE_WIDTH,
    ST_BK,
    ST_BM,
    ST_NOPROG,
    ST_PLY,
    ST_TURN,
    ST_WK,
    ST_WM,
    STATE_SIZE,
    code_winner,
    initial_state,
)
from drl.rules.notation import format_move
from drl.rules.pdn import game_type_tag, result_for_file, write_game
from drl.search import BatchedMCTS, Evaluator, Roots, SearchConfig, SearchResult
from drl.train.buffer import GameBatch
from drl.train.games import (
    RESULT_DRAW,
    RESULT_TRUNCATED,
    SelfPlayStats,
    adjudicate,
    renumber_games,
)

__all__ = [
    "RESULT_DRAW",
    "RESULT_TRUNCATED",
    "SelfPlayActor",
    "SelfPlayConfig",
    "SelfPlayStats",
    "adjudicate",
    "renumber_games",
]

_ONE = np.ones(1, np.float32)  # the policy target of a forced step


@dataclass(frozen=True)
class SelfPlayConfig:
    """Self-play settings.

    Attributes:
        games_in_flight: B, games played side by side (the search batch).
        max_plies: a game reaching this many plies is truncated (value target 0,
            reported as truncation, never as a draw by rule).
        full_search_prob: playout-cap randomisation: probability of a full search
            (``num_simulations``, root noise, policy recorded for training); otherwise a
            fast search of ``fast_simulations`` without noise whose policy is not trained
            on. 1.0 turns the option off.
        fast_simulations: budget of the fast searches.
        record_forced: keep positions with a single legal step (value training only).
        adjudicate_depth: a game cut at ``max_plies`` is adjudicated by an alpha-beta
            search of this depth (plies) from its last position, and its positions are
            taught that result instead of 0; 0 turns adjudication off.
        adjudicate_margin: the adjudicating search's score (centi-men for the player to
            move, a man = 100) from which the side ahead is judged the winner; below it
            the game is a draw. A forced win or loss the search finds is exact.
        egtb: use the variant's endgame database where one is on disk (``drl-egtb
            build``; none is built during training): a game ends at the first position
            whose exact result it gives (counters included) with that result (PDN tag
            ``Database``), its positions taught it, and the searches solve such leaves.

    Raises:
        ValueError: ``name=value: must ...`` for a value out of its range: the counts
            ``games_in_flight``, ``max_plies`` and ``fast_simulations`` in
            [1, 2**31 - 1]; ``full_search_prob`` in (0, 1]; ``adjudicate_depth`` in
            [0, 20]; ``adjudicate_margin`` in [1, 100000] (a forced result scores about
            1,000,000: a margin near it would judge a forced win a draw).
    """

    games_in_flight: int = 128
    max_plies: int = 200
    full_search_prob: float = 0.3
    fast_simulations: int = 12
    record_forced: bool = True
    adjudicate_depth: int = 4
    adjudicate_margin: int = 100
    egtb: bool = True

    def __post_init__(self) -> None:
        check_range("games_in_flight", self.games_in_flight, 1, INT32_MAX)
        check_range("max_plies", self.max_plies, 1, INT32_MAX)
        check_range("full_search_prob", self.full_search_prob, 0, 1, open_low=True)
        check_range("fast_simulations", self.fast_simulations, 1, INT32_MAX)
        check_range("adjudicate_depth", self.adjudicate_depth, 0, 20)
        check_range("adjudicate_margin", self.adjudicate_margin, 1, 100_000)


def _move_texts(rows: list[np.ndarray], variant: Variant) -> list[str]:
    """The PDN texts of the move rows a game played (what ``str(Move.from_row(...))`` gives).

    The rows come from the move generator, so they are not checked again as
    :meth:`~drl.rules.Move.from_row` checks a row it is given.
    """
    n, algebraic = variant.board_size, variant.notation == "algebraic"
    texts = []
    for row in rows:
        v = row.tolist()
        path = [v[M_FROM], *v[M_PATH : M_PATH + v[M_NSTEPS]]]
        texts.append(format_move(path, v[M_CAPTURED] != 0, n, algebraic))
    return texts


class _RecordedGame:
    """One game in a slot: its position and history, the moves played and the positions recorded.

    The game-core position, parameters and history are the slot's row of the actor's
    :class:`~drl.game.batch.GameStates` while it is played.

    ``index`` is -1 until the game is delivered and numbered.
    """

    def __init__(
        self,
        variant: Variant,
        params: np.ndarray,
        pos: np.ndarray,
        hist: np.ndarray,
        moves: np.ndarray,
    ) -> None:
        self.index = -1
        self.variant = variant
        self.params = params
        self.pos = pos
        self.hist = hist
        hist[:] = 0
        G.start(pos, initial_state(params), params, moves, hist)
        self.obs: list[np.ndarray] = []
        self.legal: list[np.ndarray] = []
        self.policy: list[np.ndarray] = []
        self.weight: list[float] = []
        self.search_value: list[float] = []
        self.player: list[int] = []
        self.ply: list[int] = []
        self.rows: list[np.ndarray] = []
        self.result = -1
        self.adjudicated = -1
        self.database = False  # ended by the endgame database
        self.taker = -1
        if variant.is_asymmetric:
            self.taker = 0 if variant.taker == "black" else 1

    def leave_slot(self) -> None:
        """Keep a copy of the final position: the slot's rows go to the next game."""
        self.pos = self.pos.copy()
        self.hist = self.hist.copy()

    def moves(self) -> list[Move]:
        """The moves played, as :class:`~drl.rules.Move` objects."""
        n, notation = self.variant.board_size, self.variant.notation
        return [Move.from_row(row, n, notation) for row in self.rows]


@dataclass
class _Delivery:
    """What one :meth:`SelfPlayActor.play` call hands out.

    Its finished games, passed to ``on_games`` in chunks of ``chunk`` (see ``play``).
    """

    num_games: int
    on_games: Callable[[GameBatch, list[str]], None] | None
    chunk: int
    progress: Callable[[int], None] | None
    stats: SelfPlayStats
    pending: list[tuple[GameBatch, str]] = field(default_factory=list)

    def add(self, batch: GameBatch, pdn: str) -> None:
        """Take one game (already counted in ``stats``)."""
        self.pending.append((batch, pdn))
        if self.progress is not None:
            self.progress(self.stats.games)
        if len(self.pending) >= self.chunk:
            self.flush()

    def flush(self) -> None:
        """Pass the games taken so far to ``on_games``."""
        if self.on_games is not None and self.pending:
            self.on_games(
                GameBatch.concat([p[0] for p in self.pending]), [p[1] for p in self.pending]
            )
            self.pending = []


class SelfPlayActor:
    """Plays self-play games with a network and records training positions.

    Args:
        variants: the variants games are played under, used in turn (e.g. Give and Take
            with the Taker black, then white). All must share one board size.
        search: search settings for the full searches.
        config: :class:`SelfPlayConfig`.
        seed: seeds move sampling and search noise.

    Raises:
        ValueError: if ``variants`` is empty or mixes board sizes.
    """

    def __init__(
        self,
        variants: Sequence[Variant],
        search: SearchConfig,
        config: SelfPlayConfig,
        seed: int = 0,
    ) -> None:
        if not variants:
            raise ValueError("self-play needs at least one variant")
        sizes = {v.board_size for v in variants}
        if len(sizes) != 1:
            raise ValueError(f"self-play variants mix board sizes {sorted(sizes)}")
        self.variants = list(variants)
        self.board_size = sizes.pop()
        self.num_actions = _num_actions(self.board_size)
        self.config = config
        self.search_config = search
        self.rng = np.random.default_rng(seed)
        self.mcts = BatchedMCTS(
            search, config.games_in_flight, self.board_size, max_plies=config.max_plies
        )
        b = config.games_in_flight
        self._slots: list[_RecordedGame | None] = [None] * b
        self._done: list[_RecordedGame] = []  # finished, not delivered yet (oldest first)
        self._next_index = 0
        self.games_started = 0
        self._moves = G.move_buffer()
        # the games in flight, one row per slot, stepped together (drl.game.batch)
        self._games = GameStates.zeros(b, config.max_plies + 2)
        self._obs = np.zeros((b, N_CHANNELS, self.board_size, self.board_size), np.float32)
        self._played = np.zeros((b, MOVE_WIDTH), np.int64)
        self._count = np.zeros(b, np.int64)
        self._single = np.zeros(b, np.int64)
        self._step = np.zeros(b, np.int64)
        self._all = np.ones(b, np.bool_)
        self._databases = GameDatabases(config.egtb)
        self._egtb = np.array([self._databases.flag(v) for v in self.variants], np.int64)
        self.mcts.database = self._databases.kernel
        self._slot_egtb = np.full(b, -1, np.int64)  # each slot's game's lookup (Roots.egtb)
        self._adjudicator: AlphaBetaAgent | None = None
        if config.adjudicate_depth > 0:
            self._adjudicator = AlphaBetaAgent(depth=config.adjudicate_depth, tt_bits=16)

    @property
    def next_game_index(self) -> int:
        """Index the next delivered game will get.

        Each delivered game takes the next one (the training loop sets it to the number of
        games the run has saved).
        """
        return self._next_index

    @next_game_index.setter
    def next_game_index(self, value: int) -> None:
        self._next_index = int(value)

    @property
    def games_started(self) -> int:
        """Games started so far; game k is played under ``variants[k % len(variants)]``.

        Set it to shift the role alternation, e.g. to continue a run's.
        """
        return self._started

    @games_started.setter
    def games_started(self, value: int) -> None:
        self._started = int(value)

    def _new_game(self, slot: int) -> _RecordedGame:
        k = self._started % len(self.variants)
        v = self.variants[k]
        self._started += 1
        self._slot_egtb[slot] = self._egtb[k]
        games = self._games
        games.params[slot] = v.params
        return _RecordedGame(v, games.params[slot], games.pos[slot], games.hist[slot], self._moves)

    def play(
        self,
        evaluate: Evaluator,
        num_games: int,
        on_games: Callable[[GameBatch, list[str]], None] | None = None,
        chunk: int = 32,
        progress: Callable[[int], None] | None = None,
    ) -> SelfPlayStats:
        """Play until exactly ``num_games`` more games are delivered.

        Games that finished beyond ``num_games`` in the last step are kept and delivered
        first by the next call, like the games still in flight.

        Args:
            evaluate: the network.
            num_games: games to deliver in this call (>= 1).
            on_games: called with each chunk of finished games (positions and PDN texts,
                one per game, numbered from :attr:`next_game_index` in delivery order)
                as soon as ``chunk`` games have finished, and with the rest at the end;
                the training loop writes them to the replay buffer here.
            chunk: games per ``on_games`` call.
            progress: called with the number of games delivered after each one.

        Returns:
            :class:`SelfPlayStats` of this call.

        Raises:
            ValueError: if ``num_games < 1``.
        """
        if num_games < 1:
            raise ValueError(f"num_games must be >= 1, got {num_games}")
        t0 = time.perf_counter()
        stats = SelfPlayStats()
        out = _Delivery(num_games, on_games, chunk, progress, stats)
        entropy_sum = 0.0
        self._deliver(out)
        while stats.games < num_games:
            entropy_sum += self._play_step(evaluate, stats)
            self._deliver(out)
        out.flush()
        stats.seconds = time.perf_counter() - t0
        stats.target_entropy = entropy_sum / max(stats.searched, 1)
        return stats

    def _deliver(self, out: _Delivery) -> None:
        """Number the finished games, oldest first, and hand them to ``out``.

        Games go until ``out`` has all it asked for; the rest wait for the next call.
        """
        while self._done and out.stats.games < out.num_games:
            g = self._done.pop(0)
            g.index = self._next_index
            self._next_index += 1
            out.add(*self._finish(g, out.stats))

    # -- one step ---------------------------------------------------------------------
    def _play_step(self, evaluate: Evaluator, stats: SelfPlayStats) -> float:
        """One step of every slot, each position recorded.

        A new game starts in each free slot, then forced steps are played at once and the
        other games' steps by one batched search. Returns the summed entropy of the search
        policies recorded for training.
        """
        b = self.config.games_in_flight
        for i in range(b):
            if self._slots[i] is None:
                self._slots[i] = self._new_game(i)
        self._games.legal_counts(self._all, self._count, self._single)
        forced = self._single.copy()
        searched = forced < 0
        actions = forced.copy()
        full = np.zeros(b, np.bool_)
        result = None
        entropy = 0.0
        if searched.any():
            full, result, entropy = self._search(evaluate, searched, stats)
            actions[searched] = result.action[searched]  # sampled by the search
        self._games.observe(self._all, self._obs)
        self._record_step(forced, searched, full, result)
        self._advance(actions)
        return entropy

    def _search(
        self, evaluate: Evaluator, searched: np.ndarray, stats: SelfPlayStats
    ) -> tuple[np.ndarray, SearchResult, float]:
        """Search the games with a choice of steps, each search full or fast.

        Each is a full search with probability ``full_search_prob`` (else a fast one).
        Returns which searches were full, the result and the summed entropy of the full
        searches' policies.
        """
        cfg = self.config
        full = self.rng.random(cfg.games_in_flight) < cfg.full_search_prob
        sims = self.search_config.num_simulations
        budgets = np.where(full, sims, min(cfg.fast_simulations, sims))
        result = self.mcts.run(
            Roots.from_games(self._games, egtb=self._slot_egtb),
            evaluate,
            self.rng,
            active=searched,
            budgets=budgets,
            explore=full,
        )
        stats.simulations += result.simulations
        stats.leaf_evals += result.leaf_evals
        stats.net_batches += result.net_batches
        trained = searched & full
        entropy = 0.0
        if trained.any():
            p = result.policy[trained]
            logp = np.log(np.where(p > 0, p, 1.0))
            entropy = float(-(p * logp).sum())
            stats.searched += int(trained.sum())
        return full, result, entropy

    def _record_step(
        self,
        forced: np.ndarray,
        searched: np.ndarray,
        full: np.ndarray,
        result: SearchResult | None,
    ) -> None:
        """Record every slot's position before its step.

        A forced step is recorded with policy weight 0 (if ``record_forced``), a searched
        one with the search's policy (weight 1 for a full search) and value.
        """
        obs = self._obs.astype(np.float16)
        # every slot's numbers read at once (Python objects per slot cost more than the copy)
        turn, ply = self._games.pos[:, ST_TURN].tolist(), self._games.pos[:, ST_PLY].tolist()
        steps = forced.astype(np.int16)
        if result is not None:
            rows, cols = np.nonzero(result.legal)  # by slot, each slot's steps in order
            ends = np.searchsorted(rows, np.arange(len(searched) + 1)).tolist()
            legal, policy = cols.astype(np.int16), result.policy[rows, cols]
            value, weight = result.root_value.tolist(), np.where(full, 1.0, 0.0).tolist()
        slots: list[_RecordedGame] = self._slots  # type: ignore[assignment]
        for i, was_searched in enumerate(searched.tolist()):
            g = slots[i]
            if not was_searched:
                if self.config.record_forced:
                    self._record(g, obs[i], steps[i : i + 1], _ONE, 0.0, np.nan, turn[i], ply[i])
            else:
                assert result is not None, "a game with a choice of moves was searched"
                a, z = ends[i], ends[i + 1]
                self._record(
                    g, obs[i], legal[a:z], policy[a:z], weight[i], value[i], turn[i], ply[i]
                )

    def _advance(self, actions: np.ndarray) -> None:
        """Play each slot's step.

        A game that ends frees its slot and waits for delivery.
        """
        self._games.step(actions, self._all, self._played, self._step)
        if (self._step == G.STEP_ILLEGAL).any():
            bad = int(np.flatnonzero(self._step == G.STEP_ILLEGAL)[0])
            raise RuntimeError(f"self-play chose an illegal step {int(actions[bad])}")
        slots: list[_RecordedGame] = self._slots  # type: ignore[assignment]
        for i in np.flatnonzero(self._step == G.STEP_MOVE_DONE).tolist():
            if self._move_done(slots[i], i):
                self._done.append(slots[i])
                self._slots[i] = None

    def _record(
        self,
        g: _RecordedGame,
        obs: np.ndarray,
        legal: np.ndarray,
        policy: np.ndarray,
        weight: float,
        q: float,
        player: int | None = None,
        ply: int | None = None,
    ) -> None:
        """Add one position to ``g``: its ``k`` legal steps and their policy target.

        ``player`` and ``ply`` default to those of ``g``'s position.
        """
        g.obs.append(obs.copy())
        g.legal.append(legal.astype(np.int16, copy=False))
        g.policy.append(np.asarray(policy, np.float32))
        g.weight.append(weight)
        g.search_value.append(q)
        g.player.append(int(g.pos[ST_TURN]) if player is None else player)
        g.ply.append(int(g.pos[ST_PLY]) if ply is None else ply)

    def _move_done(self, g: _RecordedGame, slot: int) -> bool:
        """Book the move game ``g`` just completed; returns True when the game is over.

        Over by rule, by the endgame database, or truncated at ``max_plies``; its slot
        is then free.
        """
        g.rows.append(self._played[slot].copy())
        if G.is_over(g.pos):
            g.result = int(code_winner(g.pos[G.G_CODE]))
        elif self._slot_egtb[slot] >= 0 and self._solved(g, int(self._slot_egtb[slot])):
            g.database = True
        elif G.truncated(g.pos, self.config.max_plies):
            g.result = RESULT_TRUNCATED
            if self._adjudicator is not None:
                g.adjudicated = adjudicate(
                    self._board(g), self._adjudicator, self.config.adjudicate_margin
                )
        else:
            return False
        g.leave_slot()
        return True

    def _solved(self, g: _RecordedGame, flip: int) -> bool:
        """Set ``g.result`` and return True where the database gives the exact result.

        A decided win or loss is taken only where the game's history cannot draw it by
        repetition first (:func:`drl.egtb._search.history_allows`), as in the arena.
        """
        kernel = (*self._databases.kernel[:6], flip)
        code = int(database_code(g.pos[:STATE_SIZE], g.params, kernel))
        if code < 0:
            return False
        winner = int(code_winner(code))
        ply, quiet = int(g.pos[ST_PLY]), int(g.pos[ST_NOPROG])
        if winner != RESULT_DRAW and not history_allows(
            g.hist, ply, quiet, g.variant.repetition_draw or 0
        ):
            return False
        g.result = winner
        return True

    def _finish(self, g: _RecordedGame, stats: SelfPlayStats) -> tuple[GameBatch, str]:
        result = g.result
        player = np.asarray(g.player, np.int64)
        taught = g.adjudicated if result == RESULT_TRUNCATED else result
        if taught in (0, 1):
            value = np.where(player == taught, 1.0, -1.0).astype(np.float32)
        else:
            value = np.zeros(len(player), np.float32)
        q = np.asarray(g.search_value, np.float32)
        q = np.clip(np.where(np.isnan(q), value, q), -1.0, 1.0).astype(np.float32)
        men = g.variant.rows_of_men * g.variant.board_size // 2
        black = bin(int(g.pos[ST_BM] | g.pos[ST_BK])).count("1") / men
        white = bin(int(g.pos[ST_WM] | g.pos[ST_WK])).count("1") / men
        pieces = np.where(player[:, None] == 0, [[black, white]], [[white, black]])
        final_ply = int(g.pos[ST_PLY])
        offsets = np.zeros(len(player) + 1, np.int64)
        offsets[1:] = np.cumsum([len(a) for a in g.legal])
        batch = GameBatch(
            obs=np.stack(g.obs),
            legal_offsets=offsets,
            legal_actions=np.concatenate(g.legal),
            policy=np.concatenate(g.policy),
            policy_weight=np.asarray(g.weight, np.float32),
            value=value,
            pieces_left=pieces.astype(np.float32),
            plies_left=(final_ply - np.asarray(g.ply)).astype(np.float32),
            player=player.astype(np.int8),
            game_index=np.full(len(player), g.index, np.int64),
            game_plies=np.array([final_ply], np.int64),
            game_result=np.array([result], np.int64),
            game_taker=np.array([g.taker], np.int64),
            search_value=q,
            game_adjudicated=np.array([g.adjudicated], np.int64),
        )
        stats.games += 1
        stats.positions += len(player)
        stats.game_plies.append(final_ply)
        stats.results.append(result)
        stats.takers.append(g.taker)
        stats.adjudicated.append(g.adjudicated)
        return batch, self._pdn(g)

    def _board(self, g: _RecordedGame) -> Board:
        board = Board(g.variant)
        for move in g.moves():
            board.push_unchecked(move)
        return board

    def _pdn(self, g: _RecordedGame) -> str:
        """The game as PDN, written from its move rows.

        Self-play starts from the variant's start position, so no board is replayed.
        """
        game_type, variant_tag = game_type_tag(g.variant)
        tags = {
            "Event": "drl self-play",
            "Round": str(g.index + 1),
            "Black": "self-play",
            "White": "self-play",
        }
        if g.taker >= 0:
            tags["BlackRole"] = "taker" if g.taker == 0 else "giver"
            tags["WhiteRole"] = "giver" if g.taker == 0 else "taker"
        result = ("0-1", "1-0", "1/2-1/2")[g.result] if g.result < 3 else "*"  # White first
        if g.result == RESULT_TRUNCATED:
            tags["Termination"] = "max_plies"
            if g.adjudicated >= 0:
                tags["Adjudicated"] = ("black", "white", "draw")[g.adjudicated]
        if g.database:  # the exact result of the last position, by the endgame database
            tags["Termination"] = "database"
            tags["Database"] = ("black", "white", "draw")[g.result]
        tags["GameType"] = game_type
        if variant_tag is not None:
            tags["Variant"] = variant_tag
        texts = _move_texts(g.rows, g.variant)
        return write_game(texts, tags, result_for_file(result, g.variant))
