"""The arena: games between agents, with colour and role swaps, in parallel, as PDN.

A match between agents A and B is a list of :class:`GameTask` s. Games are grouped by
opening: from each opening A plays Black and White; in Give and Take (one Taker, one
Giver) each agent also plays each role from each opening, so an opening is used four
times (A Black Taker, A White Giver, A White Taker, A Black Giver; the Taker's colour is
the variant flag ``taker``). Openings are seeded random short openings of ``k`` plies, or
a list of FENs. Every game comes back as a :class:`~drl.eval.records.GameRecord` and is
written to PDN.

Games with a batched agent (``Agent.batched``, e.g. the network player ``az``) are played
in this process, many in flight at a time (:func:`play_in_flight`): each round, the
batched agent chooses its moves in every game where it is to move in one
``select_moves`` call, so its network sees one batch of leaves for all of them. The
other games run in worker processes (``concurrent.futures``), one game at a time each
(:func:`play_game`). Both loops give every game the same moves for the same seeds.

Scores: a game cut at ``max_plies`` is reported as truncated (termination
``"max_plies"``, result ``*``) and counts half a point for each side in statistics.
"""

from __future__ import annotations

import concurrent.futures as cf
import copy
import multiprocessing as mp
import os
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from drl.agents import Agent, is_batched, make, spec_name
from drl.eval.records import COLORS, GameRecord
from drl.rules import Board, Variant
from drl.rules.pdn import board_to_pdn

__all__ = [
    "GameTask",
    "MatchResult",
    "check_agents",
    "play_game",
    "play_in_flight",
    "run_games",
    "play_match",
    "make_openings",
    "match_tasks",
    "role_variant",
    "write_pdn",
    "DEFAULT_IN_FLIGHT",
]

DEFAULT_IN_FLIGHT = 32
"""Games played at once by :func:`play_in_flight` (each holds its own instance of every
non-batched agent in it)."""


@dataclass(frozen=True)
class GameTask:
    """Everything a worker needs to play one game.

    Attributes:
        index: game number (records come back sorted by it).
        black_spec, white_spec: agent spec strings (or :class:`Agent` objects when games
            run in this process).
        black_name, white_name: names for records and PDN (unique within a match).
        variant: full variant string (with its ``taker`` flag in Give and Take).
        opening: FEN of the start position, or None for the variant's start position.
        opening_index: which opening this is.
        seed: game seed; the agents are reset with seeds derived from it.
        max_plies: cap on plies from the opening (the game is then truncated).
        event: PDN ``Event`` tag.
        round: PDN ``Round`` tag.
    """

    index: int
    black_spec: str | Agent
    white_spec: str | Agent
    black_name: str
    white_name: str
    variant: str
    opening: str | None
    opening_index: int
    seed: int
    max_plies: int = 400
    event: str = "drl arena"
    round: str = ""

    def __post_init__(self) -> None:
        check_max_plies(self.max_plies)


def check_max_plies(max_plies: object) -> None:
    """Raise ``ValueError`` unless ``max_plies`` is an integer >= 1 (a cap of 0 plies
    would record every game as truncated before its first move)."""
    if isinstance(max_plies, bool) or not isinstance(max_plies, (int, np.integer)) or max_plies < 1:
        raise ValueError(f"max_plies must be an integer >= 1, got {max_plies!r}")


def check_openings(openings: object) -> None:
    """Raise ``ValueError`` unless ``openings`` is None, a number of plies >= 0 or a
    sequence of FEN strings (checked against the variant later)."""
    if openings is None or isinstance(openings, (list, tuple)):
        return
    if isinstance(openings, bool) or not isinstance(openings, (int, np.integer)) or openings < 0:
        raise ValueError(
            f"openings must be None, a number of random plies >= 0 or a list "
            f"of FENs, got {openings!r}"
        )


@dataclass
class MatchResult:
    """Games of one match (or of any set of tasks).

    Attributes:
        players: names of the players, in the order given.
        variant: the base variant string.
        records: the games, sorted by index.
        pdn_path: where the PDN was written, or None.
    """

    players: tuple[str, ...]
    variant: str
    records: list[GameRecord] = field(default_factory=list)
    pdn_path: Path | None = None

    def elo_games(self) -> list[tuple[str, str, float]]:
        """``(black, white, score of black)`` for :func:`drl.eval.elo.fit_elo`."""
        return [(r.black, r.white, r.score_of(r.black)) for r in self.records]

    def score(self, player: str) -> float:
        """Total points of ``player`` (draw and truncation = 1/2)."""
        return sum(r.score_of(player) for r in self.records if player in (r.black, r.white))


# -- building tasks ---------------------------------------------------------------------


def role_variant(variant: Variant | str, taker: str) -> Variant:
    """The variant with ``taker`` as the Taker's colour (Give and Take; else unchanged).

    Raises:
        ValueError: ``taker`` is not ``"black"`` or ``"white"``.
    """
    v = Variant.parse(variant)
    if taker not in COLORS:
        raise ValueError(f"taker must be 'black' or 'white', got {taker!r}")
    if not v.is_asymmetric:
        return v
    objectives = ("take", "give") if taker == "black" else ("give", "take")
    return v.replace(taker=taker, objectives=objectives)


def make_openings(variant: Variant | str, count: int, plies: int, seed: int = 0) -> list[str]:
    """Seeded random openings: ``count`` FENs reached by ``plies`` random legal moves.

    Openings that end the game (under either Taker colour in Give and Take) are drawn
    again; duplicates are kept (they are rare and harmless).

    Raises:
        ValueError: negative ``count``/``plies``, or no live opening found.
    """
    if count < 0 or plies < 0:
        raise ValueError(f"count and plies must be >= 0, got {count}, {plies}")
    v = Variant.parse(variant)
    variants = [role_variant(v, "black"), role_variant(v, "white")] if v.is_asymmetric else [v]
    rng = np.random.default_rng(seed)
    out: list[str] = []
    for _ in range(count):
        for _attempt in range(100):
            board = Board(v)
            ok = True
            for _ply in range(plies):
                legal = board.legal_moves
                if not legal or board.is_game_over():
                    ok = False
                    break
                board.push_unchecked(legal[int(rng.integers(len(legal)))])
            fen = board.fen()
            if ok and all(not Board(w, fen=fen).is_game_over() for w in variants):
                out.append(fen)
                break
        else:
            raise ValueError(f"no live {plies}-ply opening found for {v}")
    return out


def _unique_names(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a != b else (f"{a}#1", f"{b}#2")


def match_tasks(
    agent_a: str | Agent,
    agent_b: str | Agent,
    variant: Variant | str,
    games: int,
    openings: int | Sequence[str] | None = 4,
    seed: int = 0,
    max_plies: int = 400,
    names: tuple[str, str] | None = None,
    event: str = "drl arena",
    first_index: int = 0,
) -> list[GameTask]:
    """The tasks of an A-vs-B match (see the module doc for the colour/role schedule).

    Args:
        agent_a, agent_b: spec strings (or agents, for in-process play).
        variant: the variant (Give and Take: its ``taker`` flag is set per game).
        games: number of games (>= 1); a multiple of 2 (4 in Give and Take) plays every
            colour/role combination equally often.
        openings: plies of the seeded random openings, a list of FENs (used in turn), or
            None / 0 for the start position.
        seed: match seed (openings and agent seeds).
        max_plies: per-game cap.
        names: display names of A and B (default: their specs, made unique).
        event: PDN ``Event`` tag.
        first_index: index of the first task.

    Raises:
        ValueError: ``games < 1``, ``max_plies < 1``, negative ``openings``, bad variant,
            bad FEN in ``openings``.
    """
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    check_max_plies(max_plies)
    check_openings(openings)
    v = Variant.parse(variant)
    cycle = 4 if v.is_asymmetric else 2
    n_open = -(-games // cycle)
    if openings is None or (isinstance(openings, int) and openings == 0):
        fens: list[str | None] = [None] * n_open
    elif isinstance(openings, int):
        fens = list(make_openings(v, n_open, openings, seed))
    else:
        fens = list(openings)
        if not fens:
            raise ValueError("openings: the list of FENs is empty")
        for f in fens:
            Board(v, fen=f)  # raises FENError early, naming the FEN
    if names is None:
        names = _unique_names(spec_name(agent_a), spec_name(agent_b))
    name_a, name_b = names
    ss = np.random.SeedSequence(seed)
    game_seeds = ss.generate_state(games, dtype=np.uint32)
    tasks = []
    for g in range(games):
        o, c = divmod(g, cycle)
        a_black = c in (0, 3)
        if v.is_asymmetric:
            a_taker = c in (0, 2)
            taker_color = (
                ("black" if a_black else "white") if a_taker else ("white" if a_black else "black")
            )
            gv = role_variant(v, taker_color)
        else:
            gv = v
        black, white = (agent_a, agent_b) if a_black else (agent_b, agent_a)
        bname, wname = (name_a, name_b) if a_black else (name_b, name_a)
        tasks.append(
            GameTask(
                index=first_index + g,
                black_spec=black,
                white_spec=white,
                black_name=bname,
                white_name=wname,
                variant=str(gv),
                opening=fens[o % len(fens)],
                opening_index=o % len(fens),
                seed=int(game_seeds[g]),
                max_plies=max_plies,
                event=event,
                round=str(g + 1),
            )
        )
    return tasks


# -- playing ----------------------------------------------------------------------------

_AGENTS: dict[tuple[str, int], Agent] = {}


def _agent(spec: str | Agent, slot: int) -> Agent:
    if isinstance(spec, Agent):
        return spec
    key = (spec, slot)
    if key not in _AGENTS:
        _AGENTS[key] = make(spec)
    return _AGENTS[key]


def check_agents(specs: Sequence[str | Agent], variant: Variant | str) -> None:
    """Check before any game that the agents can play ``variant``
    (:meth:`Agent.check_variant`, e.g. an ``az`` checkpoint's board size). Agent objects
    and batched specs are checked here (a batched spec's agent is built once and kept
    for its games); the agents of other specs are checked as each game starts.

    Raises:
        ValueError: a bad spec, or an agent that cannot play ``variant`` (the message
            names what does not fit).
    """
    v = Variant.parse(variant)
    for spec in specs:
        if isinstance(spec, Agent) or is_batched(spec):
            _agent(spec, 2).check_variant(v)


def play_game(task: GameTask) -> GameRecord:
    """Play one game to its end or to ``task.max_plies``.

    Returns:
        The :class:`GameRecord`, with its PDN text.

    Raises:
        RuntimeError: an agent returned an illegal move (the message names it).
    """
    start = time.perf_counter()
    variant = Variant.parse(task.variant)
    board = Board(variant, fen=task.opening)
    opening_fen = board.fen()
    black = _agent(task.black_spec, 0)
    white = _agent(task.white_spec, 1)
    black.check_variant(variant)
    white.check_variant(variant)
    black.reset(seed=task.seed * 2)
    white.reset(seed=task.seed * 2 + 1)
    players = (black, white)
    outcome = board.outcome()
    while outcome is None and board.ply < task.max_plies:
        agent = players[int(board.turn)]
        _push(board, agent, agent.select_move(board))
        outcome = board.outcome()
    return record_game(task, board, opening_fen, time.perf_counter() - start)


def _push(board: Board, agent: Agent, move: object) -> None:
    try:
        board.push(move)  # type: ignore[arg-type]
    except ValueError as err:
        raise RuntimeError(
            f"{agent.name} played an illegal move {move} in {board.fen()}: {err}"
        ) from None


class _Game:
    """A game in flight: its board, its two agents and whether it has ended."""

    def __init__(self, task: GameTask, players: tuple[Agent, Agent]) -> None:
        self.task = task
        self.start = time.perf_counter()
        variant = Variant.parse(task.variant)
        for agent in players:
            agent.check_variant(variant)
        self.board = Board(variant, fen=task.opening)
        self.opening_fen = self.board.fen()
        self.players = players
        self.over = self._ended()

    def _ended(self) -> bool:
        return self.board.outcome() is not None or self.board.ply >= self.task.max_plies

    def to_move(self) -> Agent:
        return self.players[int(self.board.turn)]

    def push(self, agent: Agent, move: object) -> None:
        _push(self.board, agent, move)
        self.over = self._ended()

    def record(self) -> GameRecord:
        return record_game(
            self.task, self.board, self.opening_fen, time.perf_counter() - self.start
        )


class _Instances:
    """Agents of the games in flight: batched agents are shared (one per spec or object),
    non-batched ones are one instance per game, built from the spec (or copied from the
    object) and reused by the next game once theirs has ended."""

    def __init__(self) -> None:
        self._free: dict[object, list[Agent]] = {}
        self._shared: dict[object, Agent] = {}

    @staticmethod
    def _key(spec: str | Agent) -> object:
        return ("id", id(spec)) if isinstance(spec, Agent) else spec

    def acquire(self, spec: str | Agent, seed: int) -> Agent:
        key = self._key(spec)
        if is_batched(spec):
            if key not in self._shared:
                agent = _agent(spec, 2)
                agent.reset(seed=seed)
                self._shared[key] = agent
            return self._shared[key]
        free = self._free.setdefault(key, [])
        if free:
            agent = free.pop()
        elif isinstance(spec, Agent):
            agent = copy.deepcopy(spec)
        else:
            agent = make(spec)
        agent.reset(seed=seed)
        return agent

    def release(self, spec: str | Agent, agent: Agent) -> None:
        if not agent.batched:
            self._free[self._key(spec)].append(agent)


def play_in_flight(
    tasks: Sequence[GameTask],
    in_flight: int = DEFAULT_IN_FLIGHT,
    on_record: Callable[[GameRecord], None] | None = None,
) -> list[GameRecord]:
    """Play tasks in this process with up to ``in_flight`` games at a time.

    Each round the non-batched agents move in every game until a batched agent is to move
    (or the game ends); then each batched agent chooses its moves in all the games where
    it is to move with one :meth:`~drl.agents.Agent.select_moves` call. A batched agent is
    built once per spec (or is the object given) and shared by the games; a non-batched
    agent has an instance of its own in each game (built from its spec, or a deep copy of
    the object given), reset with the game's seed as :func:`play_game` does, so every game
    gets the moves :func:`play_game` would play.

    Args:
        tasks: the games.
        in_flight: most games played at once (>= 1).
        on_record: called with each finished game (in completion order).

    Returns:
        Records sorted by task index.

    Raises:
        ValueError: ``in_flight < 1``.
        RuntimeError: an agent returned an illegal move (the message names it).
    """
    if in_flight < 1:
        raise ValueError(f"in_flight must be >= 1, got {in_flight}")
    agents = _Instances()
    pending = deque(tasks)
    live: list[_Game] = []
    records: list[GameRecord] = []
    while pending or live:
        while pending and len(live) < in_flight:
            t = pending.popleft()
            live.append(
                _Game(
                    t,
                    (
                        agents.acquire(t.black_spec, t.seed * 2),
                        agents.acquire(t.white_spec, t.seed * 2 + 1),
                    ),
                )
            )
        for g in live:
            while not g.over and not g.to_move().batched:
                agent = g.to_move()
                g.push(agent, agent.select_move(g.board))
        waiting: dict[int, tuple[Agent, list[_Game]]] = {}
        for g in live:
            if not g.over:
                agent = g.to_move()
                waiting.setdefault(id(agent), (agent, []))[1].append(g)
        for agent, games in waiting.values():
            for g, move in zip(games, agent.select_moves([g.board for g in games]), strict=True):
                g.push(agent, move)
        still = []
        for g in live:
            if not g.over:
                still.append(g)
                continue
            agents.release(g.task.black_spec, g.players[0])
            agents.release(g.task.white_spec, g.players[1])
            rec = g.record()
            records.append(rec)
            if on_record:
                on_record(rec)
        live = still
    return sorted(records, key=lambda r: r.index)


def record_game(task: GameTask, board: Board, opening_fen: str, seconds: float) -> GameRecord:
    """The record of a finished (or truncated) game, with its PDN.

    Args:
        task: the game's task (names, variant, seed, PDN ``Event``/``Round``).
        board: the board after the last move; its root is the opening.
        opening_fen: FEN of the opening.
        seconds: wall time of the game.
    """
    outcome = board.outcome()
    root = board.root()
    roles = (root.role(0), root.role(1))
    if outcome is None:
        result, winner, termination = "*", None, "max_plies"
    else:
        result = outcome.result
        winner = None if outcome.winner is None else COLORS[int(outcome.winner)]
        termination = outcome.termination.name.lower()
    tags = {
        "Event": task.event,
        "Round": task.round or str(task.index + 1),
        "Black": task.black_name,
        "White": task.white_name,
        "Variant": task.variant,
        "SetUp": "1",
        "FEN": opening_fen,
        "Termination": termination,
    }
    if roles[0] is not None and roles[1] is not None:  # a variant gives both or none
        tags["BlackRole"], tags["WhiteRole"] = roles[0], roles[1]
    # The Outcome, not its White-first text: the writer puts the result in the file's
    # convention (English-board GameType 21 gives Black's score first).
    pdn = board_to_pdn(board, tags, outcome if outcome is not None else "*")
    return GameRecord(
        index=task.index,
        black=task.black_name,
        white=task.white_name,
        variant=task.variant,
        roles=roles,
        opening=opening_fen,
        opening_index=task.opening_index,
        moves=tuple(str(m) for m in board.move_stack),
        result=result,
        winner=winner,
        termination=termination,
        plies=board.ply,
        seed=task.seed,
        pdn=pdn,
        seconds=seconds,
    )


def default_workers() -> int:
    """min(2, CPUs available)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - non-Linux
        cpus = os.cpu_count() or 1
    return max(1, min(2, cpus))


def run_games(
    tasks: Sequence[GameTask],
    workers: int | None = None,
    progress: bool = True,
    description: str = "games",
    on_record: Callable[[GameRecord], None] | None = None,
    in_flight: int = DEFAULT_IN_FLIGHT,
) -> list[GameRecord]:
    """Play tasks: games with a batched agent in this process, many in flight
    (:func:`play_in_flight`); the others in parallel processes when ``workers > 1``.

    Args:
        tasks: the games.
        workers: processes for the games without a batched agent (default
            :func:`default_workers`); 1 plays them in this process (required when those
            tasks hold :class:`Agent` objects rather than specs).
        progress: show a progress bar (tqdm, on stderr).
        description: progress-bar label.
        on_record: called with each finished game (in completion order).
        in_flight: most games with a batched agent played at once.

    Returns:
        Records sorted by task index.

    Raises:
        ValueError: ``workers < 1`` or ``in_flight < 1``, or Agent objects of non-batched
            agents with ``workers > 1``.
    """
    from tqdm.auto import tqdm

    workers = default_workers() if workers is None else workers
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    if in_flight < 1:
        raise ValueError(f"in_flight must be >= 1, got {in_flight}")
    batched: dict[object, bool] = {}

    def has_batched(t: GameTask) -> bool:
        for spec in (t.black_spec, t.white_spec):
            key = ("id", id(spec)) if isinstance(spec, Agent) else spec
            if key not in batched:
                batched[key] = is_batched(spec)
            if batched[key]:
                return True
        return False

    together = [t for t in tasks if has_batched(t)]
    alone = [t for t in tasks if not has_batched(t)]
    if workers > 1 and any(
        isinstance(t.black_spec, Agent) or isinstance(t.white_spec, Agent) for t in alone
    ):
        raise ValueError(
            "agents given as objects can only play with workers=1; pass spec "
            "strings to play in parallel"
        )
    records: list[GameRecord] = []
    bar = tqdm(total=len(tasks), desc=description, disable=not progress, unit="game", leave=False)

    def done(rec: GameRecord) -> None:
        records.append(rec)
        if on_record:
            on_record(rec)
        bar.update()

    try:
        if workers == 1 or len(alone) <= 1:
            play_in_flight(together, in_flight, done)
            for t in alone:
                done(play_game(t))
        else:
            ctx = mp.get_context("spawn")
            with cf.ProcessPoolExecutor(
                max_workers=min(workers, len(alone)), mp_context=ctx
            ) as pool:
                futures = [pool.submit(play_game, t) for t in alone]
                play_in_flight(together, in_flight, done)  # meanwhile, in this process
                for fut in cf.as_completed(futures):
                    done(fut.result())
    finally:
        bar.close()
    return sorted(records, key=lambda r: r.index)


def write_pdn(records: Sequence[GameRecord], path: str | os.PathLike) -> Path:
    """Write the games' PDN, concatenated, to ``path`` (parent folders are created)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(r.pdn for r in records), encoding="utf-8")
    return path


def play_match(
    agent_a_spec: str | Agent,
    agent_b_spec: str | Agent,
    variant: Variant | str = "english",
    games: int = 20,
    *,
    openings: int | Sequence[str] | None = 4,
    seed: int = 0,
    workers: int | None = None,
    max_plies: int = 400,
    pdn_path: str | os.PathLike | None = None,
    progress: bool = True,
    event: str = "drl arena",
) -> MatchResult:
    """Play a match A vs B with colours (and Give and Take roles) swapped.

    Args:
        agent_a_spec, agent_b_spec: agent specs (e.g. ``"alphabeta:depth=4"``), or agent
            objects (those of non-batched agents with ``workers=1``).
        variant: variant string (``"give_and_take:max_capture=true"``...).
        games: number of games (see :func:`match_tasks` for the schedule).
        openings: random-opening plies, a list of FENs, or None for the start position.
        seed: match seed.
        workers: processes (default min(2, CPUs)).
        max_plies: per-game cap; longer games are reported as truncated.
        pdn_path: write all games to this PDN file.
        progress: show a progress bar.
        event: PDN ``Event`` tag.

    Returns:
        :class:`MatchResult` with records sorted by game index.

    Raises:
        ValueError: bad specs (listing the valid agents), variant, openings or counts.
    """
    names = _unique_names(spec_name(agent_a_spec), spec_name(agent_b_spec))  # checks specs
    v = Variant.parse(variant)
    check_agents([agent_a_spec, agent_b_spec], v)
    tasks = match_tasks(
        agent_a_spec, agent_b_spec, v, games, openings, seed, max_plies, names=names, event=event
    )
    records = run_games(tasks, workers, progress, description=f"{names[0]} vs {names[1]}")
    out = MatchResult(players=names, variant=str(v), records=records)
    if pdn_path is not None:
        out.pdn_path = write_pdn(records, pdn_path)
    return out
