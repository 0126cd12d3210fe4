"""The games of one ``drl-web`` server, each under its own id.

Two tabs are two games: each has its own board, opponent and lock, so nothing one does
reaches the other. :meth:`GameStore.close_all` (the server stopping) stops every opponent
and writes every game's PDN one last time when a save folder is set; each file is
written whole or not at all (``drl._atomic.write_atomic``).
"""

from __future__ import annotations

import logging
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

from drl._atomic import write_atomic
from drl.agents import Agent, make
from drl.web.budget import GAME_BYTES, MemoryBudget, agent_bytes, default_budget, opponent_bytes
from drl.web.game import WebGame
from drl.web.settings import GameSettings, NotFound

__all__ = ["GameNotFound", "GameStore"]

log = logging.getLogger("drl.web")


class GameNotFound(NotFound):
    """No game has the id asked for (closed, or the server was restarted)."""


class GameStore:
    """The live games, by id; the oldest unused ones are closed beyond ``max_games``.

    Each game reserves its memory in ``budget`` (its opponent's tables, tree or network,
    estimated from the spec before it is built and measured after); a new game that would
    go over the budget is refused (:class:`~drl.web.budget.BudgetFull`) and nothing is
    closed.

    Args:
        max_games: most games kept open at once (each may hold a network or an engine).
        save_dir: when set, each game's PDN is written to ``<save_dir>/<id>.pdn`` after
            every change and when the server stops (the folder is created).
        build_agent: builds an opponent from its spec (default :func:`drl.agents.make`).
        budget: the server's memory budget, shared with its replays (default: one of
            :func:`~drl.web.budget.default_budget` bytes).

    Raises:
        ValueError: ``max_games`` below 1.
        OSError: ``save_dir`` cannot be created.
    """

    def __init__(
        self,
        max_games: int = 32,
        save_dir: str | Path | None = None,
        build_agent: Callable[[str], Agent] = make,
        budget: MemoryBudget | None = None,
    ) -> None:
        if max_games < 1:
            raise ValueError(f"max_games must be at least 1, got {max_games}")
        self.max_games = max_games
        self.save_dir = None if save_dir is None else Path(save_dir).expanduser()
        if self.save_dir is not None:
            self.save_dir.mkdir(parents=True, exist_ok=True)
        self.build_agent = build_agent
        self.budget = budget if budget is not None else MemoryBudget(default_budget())
        self._games: OrderedDict[str, WebGame] = OrderedDict()
        self._held: dict[str, int] = {}  # bytes reserved by each game
        self._lock = threading.Lock()

    def new(self, settings: GameSettings, replace: str | None = None) -> WebGame:
        """Start a game, building its opponent.

        Args:
            settings: the new-game form's choices.
            replace: the id of a game of the same page that this one replaces, which is
                closed; None to replace none.

        Returns:
            The new game, kept in the store.

        Raises:
            GameError: bad settings (see :class:`~drl.web.WebGame`), or
                :class:`~drl.web.budget.BudgetFull`: the memory budget cannot hold the
                game; no game is closed then.
        """
        game = self._build(settings, replace)
        evicted = []
        with self._lock:
            self._games[game.id] = game
            old = self._games.pop(replace, None) if replace else None
            if old is not None:
                evicted.append(old)
            while len(self._games) > self.max_games:
                evicted.append(self._games.popitem(last=False)[1])
        for done in evicted:
            self._finish(done)
        log.info("game %s: %s against %s", game.id, game.variant, game.agent.name)
        return game

    def _build(self, settings: GameSettings, replace: str | None) -> WebGame:
        """Build a game within the memory budget (a replaced game's memory counts as free).

        Raises:
            GameError: bad settings, or the budget cannot hold the game.
        """
        with self._lock:
            credit = self._held.get(replace, 0) if replace else 0
        what = f"a game against {settings.opponent!r}"
        estimate = GAME_BYTES + opponent_bytes(settings.opponent)
        self.budget.reserve(estimate, what, credit)
        try:
            game = WebGame(settings, secrets.token_hex(8), self.build_agent)
        except BaseException:
            self.budget.release(estimate)
            raise
        measured = GAME_BYTES + (agent_bytes(game.agent) or estimate - GAME_BYTES)
        try:
            if measured > estimate:
                self.budget.reserve(measured - estimate, what, credit)
            else:
                self.budget.release(estimate - measured)
        except BaseException:
            self.budget.release(estimate)
            game.close()
            raise
        with self._lock:
            self._held[game.id] = measured
        return game

    def held(self, game_id: str) -> int:
        """Bytes the game ``game_id`` holds in the budget (0 for no such game)."""
        with self._lock:
            return self._held.get(game_id, 0)

    def get(self, game_id: str) -> WebGame:
        """The game ``game_id`` (marked as just used).

        Args:
            game_id: the game's id.

        Returns:
            The game.

        Raises:
            GameNotFound: no such game.
        """
        with self._lock:
            game = self._games.get(game_id)
            if game is None:
                raise GameNotFound(f"no game {game_id!r} (closed or from an earlier server)")
            self._games.move_to_end(game_id)
            return game

    def __len__(self) -> int:
        with self._lock:
            return len(self._games)

    def remove(self, game_id: str) -> bool:
        """Close the game ``game_id`` (nothing happens for an unknown id).

        Args:
            game_id: the game's id.

        Returns:
            Whether there was such a game.
        """
        with self._lock:
            game = self._games.pop(game_id, None)
        if game is not None:
            self._finish(game)
        return game is not None

    def save(self, game: WebGame) -> Path | None:
        """Write ``game``'s PDN to the save folder (atomically).

        The moves completed so far are written without waiting for an opponent that is
        thinking (:meth:`WebGame.pdn`). An error is logged, not raised: the game goes on.

        Args:
            game: the game to save.

        Returns:
            The file written, or None without a save folder or when writing failed.
        """
        if self.save_dir is None:
            return None
        path = self.save_dir / f"{game.id}.pdn"
        try:
            write_atomic(path, game.pdn())
        except OSError as err:
            log.error("game %s: could not write %s: %s", game.id, path, err)
            return None
        return path

    def _finish(self, game: WebGame) -> None:
        """Save and close one game, giving back its memory; a failure to stop is logged."""
        self.save(game)
        try:
            game.close()
        except Exception as err:  # one bad opponent must not keep the others running
            log.error("game %s: closing %s failed: %s", game.id, game.agent.name, err)
        with self._lock:
            held = self._held.pop(game.id, 0)
        self.budget.release(held)

    def close_all(self) -> int:
        """Save and close every game (the server is stopping).

        Returns:
            How many games were closed.
        """
        with self._lock:
            games = list(self._games.values())
            self._games.clear()
        for game in games:
            self._finish(game)
        return len(games)
