"""How long an opponent of the browser board may think, and how a search given up on stops.

Every opponent move and every analysis a page starts has a hard limit: the game's
``move_time`` (or :data:`MAX_MOVE_TIME` when the page sets none) plus
:data:`~drl.web.settings.GRACE` seconds. A search still running then, or one whose game is
closed meanwhile (deleted, evicted, replaced), is stopped by :class:`SearchStopper`:

- ``alphabeta``: its node budget (``ctl[C_LIMIT]`` of the compiled search) is set below the
  nodes searched, so the search returns at its next node;
- ``mcts``: the root of its tree is marked as decided, so each remaining simulation ends
  at the root at once;
- ``az`` with a network evaluated in batches: the next network call raises
  :class:`SearchAborted`; with a compiled (``sparse``) network the search runs in compiled
  code to its simulation budget, which the spec bounds (``sims`` <= 100,000, seconds);
- ``random`` and ``greedy`` answer at once; ``hub``/``dxp`` engines are given up on by
  their own time limit and stopped with their game.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

import numpy as np

from drl.agents import Agent
from drl.agents.az import MAX_SIMULATIONS  # the range of sims=, and of a stored budget

__all__ = ["MAX_MOVE_TIME", "MAX_SIMULATIONS", "SearchAborted", "SearchStopper", "abortable"]

MAX_MOVE_TIME = 120.0
"""Seconds an opponent move or analysis may take when the page sets no ``move_time``."""


POKE_SECONDS = 0.005
"""How often a search being stopped is told again (a new iteration resets its budget)."""


class SearchAborted(RuntimeError):
    """A search stopped because the page gave up on it."""


class _AbortableEvaluator:
    """A network evaluator that raises :class:`SearchAborted` once :attr:`stop` is set.

    Everything else (``net``, ``compiled_weights``...) is the wrapped evaluator's.
    """

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.stop = threading.Event()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.stop.is_set():
            raise SearchAborted("the search was given up on")
        return self.inner(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def abortable(agent: Agent) -> Agent:
    """Prepare ``agent`` so that :class:`SearchStopper` can stop its searches.

    An ``az`` agent's evaluator is wrapped (:class:`_AbortableEvaluator`); other agents
    are returned as they are.

    Args:
        agent: a freshly built opponent.

    Returns:
        The same agent.

    Raises:
        ValueError: an ``az`` agent whose simulation budget (its checkpoint's default) is
            above :data:`MAX_SIMULATIONS`.
    """
    player = getattr(agent, "player", None)
    sims = getattr(getattr(player, "search", None), "num_simulations", None)
    if isinstance(sims, int) and sims > MAX_SIMULATIONS:
        raise ValueError(
            f"a search of {sims} simulations per step is above the {MAX_SIMULATIONS} this "
            "server runs: give sims= in the spec"
        )
    evaluate = getattr(player, "evaluate", None)
    if evaluate is not None and not isinstance(evaluate, _AbortableEvaluator):
        player.evaluate = _AbortableEvaluator(evaluate)  # type: ignore[union-attr]
    return agent


def _poke(agent: Agent) -> Callable[[], None] | None:
    """One nudge that makes ``agent``'s running search return soon; None for none."""
    buffers = getattr(agent, "_buf", None)  # alphabeta: the compiled search's control row
    ctl = getattr(getattr(buffers, "stack", None), "ctl", None)
    if isinstance(ctl, np.ndarray):
        from drl.agents._alphabeta import C_LIMIT

        def stop_alphabeta() -> None:
            ctl[C_LIMIT] = -1

        return stop_alphabeta
    tree = getattr(agent, "_tree", None)  # mcts: a decided root ends every simulation
    code = getattr(tree, "code", None)
    if isinstance(code, np.ndarray):

        def stop_mcts() -> None:
            code[0] = 0

        return stop_mcts
    evaluate = getattr(getattr(agent, "player", None), "evaluate", None)
    if isinstance(evaluate, _AbortableEvaluator):
        return evaluate.stop.set
    return None


class SearchStopper:
    """Stops the search of one agent that a page gave up on.

    Args:
        agent: the opponent (prepared with :func:`abortable`).
    """

    def __init__(self, agent: Agent) -> None:
        self._poke = _poke(agent)
        self._reset = getattr(getattr(agent, "player", None), "evaluate", None)
        self._nudging: threading.Thread | None = None

    @property
    def can_stop(self) -> bool:
        """Whether this agent's search can be stopped before its end."""
        return self._poke is not None

    def stop(self, running: Future) -> None:
        """Nudge the search until ``running`` (its call on the game's worker) is done.

        Returns at once; a daemon thread nudges every :data:`POKE_SECONDS` and ends
        with the search.
        """
        poke = self._poke
        if poke is None or running.done():
            return

        def nudge() -> None:
            while not running.done():
                poke()
                try:
                    running.exception(POKE_SECONDS)
                except Exception:  # cancelled or timed out: look again
                    continue
            if isinstance(self._reset, _AbortableEvaluator):
                self._reset.stop.clear()

        self._nudging = threading.Thread(target=nudge, name="drl-web-stop", daemon=True)
        self._nudging.start()

    def ready(self) -> None:
        """Before a new search: wait until the nudges of a stopped one have ended.

        The stopped search has ended by then (a new search is refused while it runs), so
        this wait is short; no nudge reaches the new search.
        """
        nudging, self._nudging = self._nudging, None
        if nudging is not None:
            nudging.join()
