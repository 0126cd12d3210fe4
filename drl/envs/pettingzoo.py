"""PettingZoo AEC env: two learning agents, ``"black"`` and ``"white"``.

Each agent observes ``{"observation": float32[C, n, n], "action_mask": int8[A]}`` from its
own chair (:mod:`drl.encode`); the mask is all zeros for the agent not to move. Actions
are step actions, so the same agent is selected again until its multi-jump is complete.
Rewards are +1 / -1 / 0 at the end of the game by rule; ``max_plies`` truncates both
agents. ``infos[agent]`` holds ``role`` (``"taker"``/``"giver"`` in Give and Take, else
None), ``objective`` and, at the end, ``termination``, ``winner``, ``result`` and ``pdn``.

>>> from drl.envs.pettingzoo import env
>>> e = env(variant="give_and_take")
>>> e.reset(seed=0)
>>> e.agent_selection, e.infos["black"]["role"], e.infos["white"]["role"]
('black', 'taker', 'giver')
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from drl._configs import DEFAULT_MAX_PLIES
from drl.encode.actions import action_index
from drl.encode.planes import N_CHANNELS
from drl.envs.render import render_ansi, render_rgb
from drl.envs.step_game import StepGame
from drl.envs.variants import Options, build_variant
from drl.game import kernels as G
from drl.rules.core import objective
from drl.rules.variant import Variant

AGENTS = ("black", "white")


def _agent_index(agent: object) -> int:
    """0 for ``"black"``, 1 for ``"white"``; ``ValueError`` listing the agents otherwise."""
    if agent in AGENTS:
        return AGENTS.index(agent)
    raise ValueError(f"unknown agent {agent!r}; the agents are {', '.join(AGENTS)}")


def env(**kwargs: Any) -> AECEnv:
    """The AEC env wrapped in PettingZoo's order-enforcing wrapper; kwargs as :class:`raw_env`."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


class raw_env(AECEnv):  # noqa: N801 - PettingZoo's naming convention
    """Two-agent draughts in step space.

    Args:
        variant: variant string or :class:`~drl.rules.Variant` (``"english"``,
            ``"give_and_take"``, ``"international"``, ...).
        variant_options: more rule flags (dict or ``"flag=value,..."``).
        max_plies: truncate after this many plies (``None``: no limit).
        illegal_action: ``"lose"`` (default, as in PettingZoo's classic games: the
            offender gets -1, the other agent +1, the game ends) or ``"raise"``
            (``ValueError`` naming the legal actions, nothing played).
        render_mode: ``None``, ``"ansi"`` or ``"rgb_array"``.

    Raises:
        ValueError: a bad argument, or an illegal action under ``illegal_action="raise"``.
    """

    metadata: dict[str, Any] = {
        "render_modes": ["ansi", "rgb_array"],
        "name": "drl_draughts_v0",
        "is_parallelizable": False,
        "render_fps": 4,
    }

    def __init__(
        self,
        variant: str | Variant = "english",
        variant_options: Options = None,
        max_plies: int | None = DEFAULT_MAX_PLIES,
        illegal_action: str = "lose",
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if illegal_action not in ("raise", "lose"):
            raise ValueError(f"illegal_action must be 'raise' or 'lose', got {illegal_action!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be None, 'ansi' or 'rgb_array', got {render_mode!r}"
            )
        if max_plies is not None and (
            isinstance(max_plies, bool)
            or not isinstance(max_plies, (int, np.integer))
            or max_plies < 1
        ):
            raise ValueError(f"max_plies must be a positive integer or None, got {max_plies!r}")
        self.variant = build_variant(variant, variant_options)
        self.max_plies = max_plies
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        n = self.variant.board_size
        self._game = StepGame(self.variant)
        self._has_roles = self.variant.role(0) is not None
        a = self._game.n_actions
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (N_CHANNELS, n, n), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (a,), dtype=np.int8),
            }
        )
        self._obs_spaces = {agent: obs_space for agent in AGENTS}
        self._act_spaces = {agent: spaces.Discrete(a) for agent in AGENTS}
        self._zero_mask = np.zeros(a, dtype=np.int8)

    def observation_space(self, agent: str) -> spaces.Space:
        """The observation space of an agent (the same object on every call).

        Raises:
            ValueError: ``agent`` is not ``"black"`` or ``"white"``.
        """
        return self._obs_spaces[AGENTS[_agent_index(agent)]]

    def action_space(self, agent: str) -> spaces.Space:
        """``Discrete(A)`` step actions (the same object on every call).

        Raises:
            ValueError: ``agent`` is not ``"black"`` or ``"white"``.
        """
        return self._act_spaces[AGENTS[_agent_index(agent)]]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a game. ``options={"fen": "..."}`` starts from that position.

        The game itself has no randomness; ``seed`` only seeds the action spaces.

        Options other than ``fen`` are ignored with a ``UserWarning`` naming them (not an
        error as in the Gymnasium env: PettingZoo's API test resets with an arbitrary
        option and expects it to be accepted).
        """
        options = dict(options or {})
        fen = options.pop("fen", None)
        if options:
            warnings.warn(
                f"unknown reset options {sorted(options)} ignored; valid: fen",
                UserWarning,
                stacklevel=2,
            )
        if seed is not None:
            for i, agent in enumerate(AGENTS):
                self._act_spaces[agent].seed(seed + i)
        self._game = StepGame(self.variant, fen=fen)
        self.agents = list(AGENTS)
        self.rewards = {agent: 0 for agent in AGENTS}
        self._cumulative_rewards = {agent: 0 for agent in AGENTS}
        self.terminations = {agent: False for agent in AGENTS}
        self.truncations = {agent: False for agent in AGENTS}
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in AGENTS}
        self.agent_selection = AGENTS[self._game.turn]
        self._game.refresh()
        self._update_infos()
        if self._game.outcome is not None:
            self._end(self._game.outcome.winner, self._game.outcome.termination.name)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation: planes from its own view and its legal-step mask.

        Raises:
            ValueError: ``agent`` is not ``"black"`` or ``"white"``.
        """
        viewer = _agent_index(agent)
        game = self._game
        game.refresh(viewer=viewer)
        planes = game.planes.copy()
        if viewer != game.turn or self.terminations[agent] or self.truncations[agent]:
            return {"observation": planes, "action_mask": self._zero_mask.copy()}
        return {"observation": planes, "action_mask": game.mask.copy()}

    def step(self, action: Any) -> None:
        """Play one step action of the selected agent.

        Raises:
            ValueError: an action that is not an integer (a float, a string, a bool), or
                an illegal one under ``illegal_action="raise"``.
            RuntimeError: every agent is done (the game is over and both have been
                stepped out); call ``reset()``.
        """
        agent = self.agent_selection
        if agent not in self.terminations:
            raise RuntimeError("the game is over and no agent is left to act; call reset()")
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = action_index(action)  # before anything changes
        game = self._game
        self._cumulative_rewards[agent] = 0
        self._clear_rewards()
        code = game.step(a) if 0 <= a < game.n_actions else G.STEP_ILLEGAL
        if code == G.STEP_ILLEGAL:
            if self.illegal_action == "raise":
                game.refresh()
                legal = ", ".join(
                    f"{i} ({game.step_text(int(i))})" for i in np.flatnonzero(game.mask)
                )
                raise ValueError(
                    f"illegal action {a} ({game.step_text(a)}) for {agent} in "
                    f"{game.board.fen()}; legal actions: {legal or 'none'}"
                )
            self._end(1 - AGENTS.index(agent), "illegal_action")
            self._accumulate_rewards()
            return
        if code == G.STEP_MOVE_DONE:
            outcome = game.outcome
            if outcome is not None:
                self._end(outcome.winner, outcome.termination.name)
            elif self.max_plies is not None and game.plies >= self.max_plies:
                for ag in AGENTS:
                    self.truncations[ag] = True
                self._update_infos(termination="max_plies", winner=None, result="*")
            self.agent_selection = AGENTS[game.turn]
        if not (self.terminations[agent] or self.truncations[agent]):
            self._update_infos()
        self._accumulate_rewards()

    def render(self) -> str | np.ndarray | None:
        """Text (``"ansi"``) or ``uint8[H, W, 3]`` image (``"rgb_array"``) of the position."""
        if self.render_mode is None:
            return None
        start, cur = self._game.jumper()
        if self.render_mode == "ansi":
            return render_ansi(self._game.state, self._game.size, cur, start, self.variant.notation)
        return render_rgb(self._game.state, self._game.size, cur, start)

    def close(self) -> None:
        """Nothing to release."""

    # ------------------------------------------------------------------ internals

    def _end(self, winner: int | None, termination: str) -> None:
        for i, ag in enumerate(AGENTS):
            self.terminations[ag] = True
            self.rewards[ag] = 0 if winner is None else (1 if int(winner) == i else -1)
        result = "1/2-1/2" if winner is None else ("1-0" if int(winner) == 1 else "0-1")
        self._update_infos(
            termination=termination,
            winner=None if winner is None else AGENTS[int(winner)],
            result=result,
        )

    def _update_infos(self, **end: Any) -> None:
        game = self._game
        pdn = None
        if end:
            result = end["result"] if end["termination"] != "illegal_action" else "*"
            pdn = game.pdn(
                {
                    "Event": "drl pettingzoo",
                    "Black": "black",
                    "White": "white",
                    "Termination": end["termination"],
                },
                result,
            )
        for i, ag in enumerate(AGENTS):
            obj = int(objective(game.state, game.params, i))
            info = {
                "role": ("taker", "giver")[obj] if self._has_roles else None,
                "objective": ("take", "give")[obj],
                "ply": game.plies,
            }
            if end:
                info.update(end, pdn=pdn)
            self.infos[ag] = info
