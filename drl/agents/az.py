"""The trained network with search as a player: ``az:ckpt=PATH,sims=N``.

:class:`NetworkPlayer` picks full moves for many boards at once: every board that needs
a decision is searched in one batched MCTS call per step (a multi-jump takes one search
per step, a single legal step is played without search); the steps are played by the
game core, :mod:`drl.game.kernels`. :class:`NetworkAgent` puts a player behind the agent
interface of :mod:`drl.agents` as a batched agent (:meth:`NetworkAgent.select_moves`
searches every board in one call); :class:`AZAgent` is the one that loads a drl-train
checkpoint, the ``az`` kind. torch is imported only when a network is built.
"""

from __future__ import annotations

import math
import time as _time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from drl.agents._board import move_from_row
from drl.agents.base import Agent
from drl.egtb._search import GameDatabases
from drl.game import kernels as G
from drl.game.batch import GameStates
from drl.rules import Board, Move, Variant
from drl.rules.core import MOVE_WIDTH
from drl.search import BatchedMCTS, Evaluator, Roots, SearchConfig

if TYPE_CHECKING:
    pass

__all__ = [
    "MAX_SIMULATIONS",
    "MAX_TIMED_SIMULATIONS",
    "AZAgent",
    "NetworkAgent",
    "NetworkPlayer",
    "RootAnalysis",
    "check_outputs",
    "load_network",
    "network_config",
    "search_config_from_checkpoint",
]


MAX_TIMED_SIMULATIONS = 1_000_000
"""Most simulations of one search on a clock (``az:time=`` without ``sims=``): its tree
grows to what the measured speed fits in the time, about 750 bytes per simulation."""

_FIRST_TIMED_CAPACITY = 4096  # simulations a player on a clock starts with


def check_time(seconds: object) -> float | None:
    """``seconds`` per move as a float, or None.

    Raises:
        ValueError: not a finite number above 0.
    """
    if seconds is None:
        return None
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float, np.floating)):
        raise ValueError(f"time must be a number of seconds, got {seconds!r}")
    if not 0 < seconds < math.inf:  # also refuses nan
        raise ValueError(f"time must be a finite number of seconds > 0, got {seconds}")
    return float(seconds)


MAX_SIMULATIONS = 100_000
"""The largest ``sims=`` of an ``az`` spec, and of the budget a checkpoint stores (about
750 bytes per simulation and game in flight)."""


def search_config_from_checkpoint(
    payload: dict, simulations: int | None = None, source: str = "checkpoint"
) -> SearchConfig:
    """The search settings the checkpoint was trained with (budget optionally replaced).

    Args:
        payload: a checkpoint payload; its ``config_yaml`` holds the training config.
        simulations: the simulations per step to use instead of the stored budget
            (1..:data:`MAX_SIMULATIONS`).
        source: the checkpoint, for messages.

    Raises:
        ValueError: ``simulations`` is out of range.
        CheckpointError: (a ``ValueError``) the stored config is malformed, a stored
            search setting is outside its range, or the stored budget (used when
            ``simulations`` is None) is outside 1..:data:`MAX_SIMULATIONS`; the message
            names ``source`` and the key.
    """
    from drl.nn._payload import stored_search
    from drl.nn.errors import CheckpointError

    fields = dict(SearchConfig().__dict__)
    stored = stored_search(payload, source, fields)
    fields.update(stored)
    if simulations is not None:
        if isinstance(simulations, bool) or not 1 <= int(simulations) <= MAX_SIMULATIONS:
            raise ValueError(f"simulations={simulations}: must be in 1..{MAX_SIMULATIONS} per step")
        fields["num_simulations"] = int(simulations)
    elif "num_simulations" in stored:
        sims = stored["num_simulations"]
        if isinstance(sims, bool) or not isinstance(sims, int) or not 1 <= sims <= MAX_SIMULATIONS:
            raise CheckpointError(
                f"{source}: config_yaml search.num_simulations={sims!r} is not a budget "
                f"the az agent plays (1..{MAX_SIMULATIONS}); pass sims=N to choose one"
            )
    try:
        return SearchConfig(**fields)
    except (TypeError, ValueError) as err:
        raise CheckpointError(f"{source}: config_yaml search: {err}") from None


@dataclass(frozen=True)
class RootAnalysis:
    """What one search found at the start of a move (:meth:`NetworkAgent.analyse`).

    Attributes:
        value: the search value of the position in ``[-1, 1]`` for the player to move
            (their objective: in Give and Take a Giver's value counts giving away).
        steps: ``(step action, visit share)`` of the most visited first steps, most
            visited first; the shares are of all root visits, in ``(0, 1]``.
        simulations: simulations the search ran.
    """

    value: float
    steps: tuple[tuple[int, float], ...]
    simulations: int


class NetworkPlayer:
    """Chooses full moves for a batch of boards with network-guided search.

    Args:
        evaluate: the network (an :class:`~drl.search.Evaluator`).
        search: search settings; noise is off (deterministic play). With ``time``,
            ``num_simulations`` is the most simulations of one search.
        seed: seeds the search's tie-breaking generator.
        time: seconds per move: every search of a move runs until the move's time is
            spent (:meth:`BatchedMCTS.run`'s ``deadline``; a move whose later steps need
            a search past it runs one short chunk more for each), its tree growing with
            the measured speed up to ``num_simulations``. The time is the whole call's:
            boards chosen for together share it, so a game on a clock is played one at
            a time. None: ``num_simulations`` per search.
        egtb: probe the endgame database of the boards' variant where one is on disk
            (``drl-egtb build``; none is built here): a leaf whose exact result it gives,
            counters included, is solved (:attr:`BatchedMCTS.database`).

    Attributes:
        simulations: search simulations run so far (summed over boards).
        searches: batched search calls made so far.

    Raises:
        ValueError: ``time`` is not a finite number of seconds above 0.
    """

    def __init__(
        self,
        evaluate: Evaluator,
        search: SearchConfig,
        seed: int = 0,
        time: float | None = None,
        egtb: bool = True,
    ) -> None:
        self.evaluate = evaluate
        self.search = search
        self.time = check_time(time)
        self.databases = GameDatabases(egtb)
        self.rng = np.random.default_rng(seed)
        self._mcts: BatchedMCTS | None = None
        self._late = 0.0  # on a clock: seconds the moves end past their searches' deadline
        self.simulations = 0
        self.searches = 0

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without its search trees (rebuilt at the next search)."""
        state = dict(self.__dict__)
        state["_mcts"] = None
        return state

    def _capacity(self) -> int:
        """Simulations the tree is built for: the budget, or on a clock what it needs."""
        cap = self.search.num_simulations
        if self.time is None:
            return cap
        m = self._mcts
        now = _FIRST_TIMED_CAPACITY if m is None else m.config.num_simulations
        speed = None if m is None else m.speed
        if speed is not None and speed * self.time * 1.25 > now:
            now = 1 << math.ceil(math.log2(speed * self.time * 1.25))
        return min(cap, now)

    def _tree(self, n: int, board_size: int) -> BatchedMCTS:
        m = self._mcts
        capacity = self._capacity()
        if (
            m is None
            or m.batch_size < n
            or m.board_size != board_size
            or m.config.num_simulations != capacity
        ):
            search = replace(self.search, num_simulations=capacity)
            speed = None if m is None else m.speed
            m = BatchedMCTS(search, max(n, 1), board_size)
            m.speed = speed
            self._mcts = m
        return m

    def _deadline(self) -> float | None:
        """When the searches of the move started now must end (None without a clock).

        The move's time, less what the searched moves so far have run past it on average
        (the work around the searches, a chunk's overrun): a correction that makes the
        mean time per move converge to ``time``.
        """
        return None if self.time is None else _time.perf_counter() + self.time - self._late

    def _settle(self, deadline: float | None) -> None:
        """Fold how far a searched move ended from its time into the next deadlines."""
        if deadline is None or self.time is None:
            return
        over = _time.perf_counter() - (deadline + self._late)  # past the move's own time
        self._late = min(max(self._late + 0.25 * over, 0.0), self.time / 2)

    def warm_up(self, variant: Variant) -> None:
        """On a clock, search ``variant``'s start position briefly, off the clock.

        The compiled code of a move (search and game steps) is loaded and the search's
        speed measured before the first move is timed (a first move would otherwise
        spend part of its time loading it): a move is chosen there twice, with at most
        0.05 s each.
        Without a clock it does nothing. The player's generator and counters are kept.
        """
        if self.time is None:
            return
        board = Board(variant)
        if board.outcome() is not None:
            return
        kept = (self.time, self.rng, self.simulations, self.searches, self._late)
        self.time, self.rng = min(self.time, 0.05), np.random.default_rng(0)
        try:
            for _ in range(2):  # the second with the speed the first measured
                self.choose_moves([board])
        finally:
            self.time, self.rng, self.simulations, self.searches, self._late = kept

    def choose_moves(self, boards: Sequence[Board]) -> list[Move]:
        """One move for each board (each game must be going on).

        Raises:
            ValueError: if a board's game is over or the boards mix board sizes.
        """
        if not boards:
            return []
        sizes = {b.variant.board_size for b in boards}
        if len(sizes) != 1:
            raise ValueError(f"boards mix board sizes {sorted(sizes)}")
        n = len(boards)
        deadline = self._deadline()
        games = GameStates.from_boards(boards)
        mcts = self._tree(n, sizes.pop())
        count, single = np.zeros(n, np.int64), np.zeros(n, np.int64)
        played, result = np.zeros((n, MOVE_WIDTH), np.int64), np.zeros(n, np.int64)
        chosen: list[Move | None] = [None] * n
        todo = np.ones(n, np.bool_)
        searched = False
        while todo.any():
            games.legal_counts(todo, count, single)
            actions = single.copy()
            need = todo & (single < 0)
            if need.any():
                res = mcts.run(
                    Roots.from_games(games, egtb=self._probes(boards, mcts)),
                    self.evaluate,
                    self.rng,
                    active=need,
                    explore=False,
                    deadline=deadline,
                )
                actions[need] = res.action[need]
                self.simulations += int(res.simulations)
                self.searches += 1
                searched = True
            games.step(actions, todo, played, result)
            bad = todo & (result == G.STEP_ILLEGAL)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise RuntimeError(
                    f"search chose an illegal step {actions[i]} in {boards[i].fen()}"
                )
            for i in np.flatnonzero(todo & (result == G.STEP_MOVE_DONE)).tolist():
                chosen[i] = move_from_row(boards[i], played[i])
                todo[i] = False
        if searched:
            self._settle(deadline)
        return chosen  # type: ignore[return-value]

    def analyse(self, board: Board, top: int = 5) -> RootAnalysis:
        """Report what one search of ``board`` finds, without playing a step.

        The search is the one :meth:`choose_moves` makes at the start of the move; no step
        is played.

        Args:
            board: a position whose game is going on.
            top: how many of the most visited first steps to report (at least 1).

        Returns:
            The search value and the most visited first steps (:class:`RootAnalysis`).

        Raises:
            ValueError: the game is over, or ``top`` is below 1.
        """
        if top < 1:
            raise ValueError(f"top must be at least 1, got {top}")
        deadline = self._deadline()
        games = GameStates.from_boards([board])
        mcts = self._tree(1, board.variant.board_size)
        res = mcts.run(
            Roots.from_games(games, egtb=self._probes([board], mcts)),
            self.evaluate,
            self.rng,
            active=None,
            explore=False,
            deadline=deadline,
        )
        self.simulations += int(res.simulations)
        self.searches += 1
        visits = res.visits[0].astype(np.float64) * res.legal[0]
        total = float(visits.sum())
        order = [int(a) for a in np.argsort(-visits, kind="stable")[:top] if visits[a] > 0]
        shares = tuple((a, float(visits[a] / total)) for a in order) if total > 0 else ()
        return RootAnalysis(float(res.root_value[0]), shares, int(res.simulations))

    def _probes(self, boards: Sequence[Board], mcts: BatchedMCTS) -> np.ndarray:
        """How the search looks up each board's positions in its endgame database.

        ``int64[B]`` for ``Roots.egtb`` (:meth:`~drl.egtb._search.GameDatabases.flag`);
        gives ``mcts`` the database those lookups read (:attr:`databases`).
        """
        mcts.database = self.databases.kernel
        return np.array([self.databases.flag(b.variant) for b in boards], np.int64)


def network_config(evaluate: object) -> Any:
    """The config of the network behind an evaluator (``NetworkEvaluator.net.config``).

    None for an evaluator that does not expose one (a stand-in such as a uniform policy).
    """
    return getattr(getattr(evaluate, "net", None), "config", None)


class NetworkAgent(Agent):
    """A :class:`NetworkPlayer` as a batched :class:`~drl.agents.Agent`.

    Before it plays a board size for the first time the agent checks that its network
    fits it (:func:`drl.nn.check_variant`: board size, step actions, input planes), so a
    network of another board fails before its first move, with a message naming
    ``source``.

    A player on a clock (``player.time``) makes the agent not batched: each game's move
    gets the whole time (:meth:`select_moves` searches the boards one by one), and the
    arena plays its games one at a time.

    Args:
        player: the player (network and search settings).
        name: the agent's name.
        source: what holds the network, for messages (default: the agent's name).
        trained_on: the variant the network was trained on, for messages.
    """

    batched = True

    def __init__(
        self,
        player: NetworkPlayer,
        name: str = "az",
        source: str | None = None,
        trained_on: str | None = None,
    ) -> None:
        self.player = player
        self.name = name
        self.source = source
        self.trained_on = trained_on
        self.batched = player.time is None
        self._fits: set[int] = set()  # board sizes checked

    def check_variant(self, variant: Variant | str) -> None:
        """Raise ``ValueError`` unless the network fits ``variant``'s board.

        See :func:`drl.nn.check_variant`; evaluators without a network config are not
        checked.
        """
        v = Variant.parse(variant)
        if v.board_size in self._fits:
            return
        config = network_config(self.player.evaluate)
        if config is not None:
            from drl.nn import check_variant

            source = self.source or f"the network of agent {self.name}"
            arch = getattr(self.player.evaluate.net, "arch", None)  # type: ignore[attr-defined]
            check_variant(config, v, source, self.trained_on, arch)
        self.player.warm_up(v)  # on a clock: before the first move is timed
        self._fits.add(v.board_size)

    def reset(self, seed: int | None = None) -> None:
        """Reseed the player's generator (the search's random draws)."""
        self.player.rng = np.random.default_rng(seed)

    def select_move(self, board: Board) -> Move:
        """The network's move in ``board``.

        Raises:
            ValueError: the network does not fit the board (:meth:`check_variant`), or
                the game is over.
        """
        self.check_variant(board.variant)
        return self.player.choose_moves([board])[0]

    def analyse(self, board: Board, top: int = 5) -> RootAnalysis:
        """Search ``board`` once and report its value and most visited first steps.

        The search uses the agent's settings (see :meth:`NetworkPlayer.analyse`); it is for
        display, apart from :meth:`select_move`.

        Args:
            board: a position whose game is going on.
            top: how many of the most visited first steps to report (at least 1).

        Returns:
            The search value and the most visited first steps (:class:`RootAnalysis`).

        Raises:
            ValueError: the network does not fit the board, the game is over, or ``top``
                is below 1.
        """
        self.check_variant(board.variant)
        return self.player.analyse(board, top)

    def select_moves(self, boards: Sequence[Board]) -> list[Move]:
        """One move per board: a search over all boards of a board size at once.

        On a clock, one search per board instead, each with the whole time.

        Raises:
            ValueError: the network does not fit a board (:meth:`check_variant`), or a
                game is over.
        """
        if self.player.time is not None:  # each move has the whole time
            return [self.select_move(b) for b in boards]
        out: list[Move | None] = [None] * len(boards)
        for size in sorted({b.variant.board_size for b in boards}):
            idx = [i for i, b in enumerate(boards) if b.variant.board_size == size]
            self.check_variant(boards[idx[0]].variant)
            for i, m in zip(idx, self.player.choose_moves([boards[i] for i in idx]), strict=True):
                out[i] = m
        return out  # type: ignore[return-value]


def load_network(
    ckpt: str, device: str = "auto", variant: Variant | str | None = None
) -> tuple[Path, dict, Any, str]:
    """Read a checkpoint and rebuild its network (in eval mode), for any agent that plays it.

    The payload and the network's shapes are checked before anything is built
    (:func:`drl.nn.load`). Every agent that plays the network then calls
    :func:`check_outputs`, so a network whose weights overflow is refused by every agent,
    whichever outputs that agent uses.

    Args:
        ckpt: a checkpoint file, or a run folder (its newest good checkpoint).
        device: ``cpu``, ``cuda`` or ``auto``.
        variant: when given, the network is checked against it (``drl.nn.check_variant``).

    Returns:
        ``(checkpoint path, payload, network, device)``.

    Raises:
        CheckpointError: (a ``ValueError``) the checkpoint is missing, damaged, malformed
            or not a drl checkpoint, or its network does not fit ``variant``; the message
            names the checkpoint.
    """
    import torch

    from drl.nn import load
    from drl.nn.checkpoint import CheckpointError, load_source

    path, payload = load_source(ckpt)
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    source = f"checkpoint {path}"
    try:
        net = load(payload, device, variant=variant, source=source)
    except CheckpointError:
        raise
    except ValueError as err:  # the network does not fit the variant
        raise CheckpointError(str(err)) from None
    return path, payload, net, device


def check_outputs(net: Any, source: str, device: str = "cpu") -> None:
    """Evaluate the start position of the network's board once; every output must be finite.

    The position is that of English draughts on 8x8 and International on 10x10 (a network
    that reads other planes than this version's is left to :func:`drl.nn.check_variant`).

    Raises:
        TrainingDiverged: an output (logits, value, auxiliary heads) is NaN or infinite;
            the message names ``source`` and the output.
    """
    import torch

    from drl.encode import MAX_STEPS, N_CHANNELS, encode_planes
    from drl.nn.errors import TrainingDiverged

    size = int(net.config.board_size)
    if int(net.config.in_channels) != N_CHANNELS or size not in (8, 10):
        return
    board = Board("english" if size == 8 else "international")
    obs = np.zeros((1, N_CHANNELS, size, size), np.float32)
    prefix = np.zeros(MAX_STEPS, np.int64)
    encode_planes(np.asarray(board.state, np.int64), board.variant.params, prefix, 0, 0, obs[0])
    with torch.inference_mode():
        out = net(torch.from_numpy(obs).to(device))
    for name in ("policy_logits", "value", "pieces_left", "plies_left"):
        y = getattr(out, name, None)
        if y is not None and not bool(torch.isfinite(y).all()):
            raise TrainingDiverged(
                f"{source}: network output {name} is not finite on the start position: "
                "the network's weights overflow (diverged training, or a damaged "
                "checkpoint); go back to an earlier checkpoint",
                what=f"network output {name}",
            )


class AZAgent(NetworkAgent):
    """A checkpointed network with batched MCTS, the ``az`` agent kind.

    Args:
        ckpt: path of a training checkpoint (``ckpt-*.pt``) or of a run folder (its
            newest good checkpoint is used).
        sims: simulations per step (default: the budget it was trained with); with
            ``time``, the most simulations of one search (default
            :data:`MAX_TIMED_SIMULATIONS`).
        device: ``cpu``, ``cuda`` or ``auto``.
        seed: tie-breaking seed.
        time: seconds per move, with the same meaning as ``alphabeta:time=``: each
            search runs until the move's time is spent (:class:`NetworkPlayer`); the
            agent is then not batched (one game at a time).
        variant: the variant the agent will play; when given, the network is checked
            against it here (else before the first move of each board size).
        egtb: probe the variant's endgame database where one is on disk
            (:class:`NetworkPlayer`).

    Attributes:
        path: the checkpoint file read.
        trained_on: the variant string the checkpoint was trained on (None if unknown).

    Raises:
        CheckpointError: (a ``ValueError``) if the checkpoint is missing, damaged,
            malformed or not a drl checkpoint, its stored budget is out of range (without
            ``sims`` or ``time``), or its network does not fit ``variant`` (the message
            names the checkpoint, and the key or the board size and variant).
        ValueError: ``time`` is not a finite number of seconds above 0.
        TrainingDiverged: the network's outputs are not finite (:func:`check_outputs`).
    """

    def __init__(
        self,
        ckpt: str,
        sims: int | None = None,
        device: str = "auto",
        seed: int | None = None,
        variant: Variant | str | None = None,
        time: float | None = None,
        egtb: bool = True,
    ) -> None:
        from drl.nn import NetworkEvaluator

        time = check_time(time)  # before the checkpoint is read
        path, payload, self.net, device = load_network(ckpt, device, variant)
        check_outputs(self.net, f"checkpoint {path}", device)
        self.path = path
        trained_on = payload.get("variant")
        self.trained_on = None if trained_on is None else str(trained_on)
        grows = time is not None and sims is None  # the tree grows with the clock
        search = search_config_from_checkpoint(payload, 1 if grows else sims, f"checkpoint {path}")
        if grows:  # (the stored budget plays no part)
            search = replace(search, num_simulations=MAX_TIMED_SIMULATIONS)
        super().__init__(
            NetworkPlayer(NetworkEvaluator(self.net, device), search, seed or 0, time, egtb),
            f"az:sims={search.num_simulations}" if time is None else f"az:time={time}",
            source=f"checkpoint {path}",
            trained_on=self.trained_on,
        )
