"""Single-agent Gymnasium env: the agent plays one colour, an opponent agent the other.

One env step is one **step action** (one hop; a multi-jump takes several env steps and the
agent keeps the turn until its move is complete); the opponent's full moves are played
inside :meth:`DraughtsEnv.step`. Observations and actions follow :mod:`drl.encode`.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from drl._configs import DEFAULT_MAX_PLIES
from drl.encode.actions import action_index
from drl.encode.planes import N_CHANNELS
from drl.envs.opponents import make_opponent
from drl.envs.render import render_ansi, render_rgb
from drl.envs.step_game import StepGame
from drl.envs.variants import Options, build_variant, role_variants
from drl.game import kernels as G
from drl.rules.board import Outcome
from drl.rules.core import objective
from drl.rules.variant import Variant

COLORS = ("black", "white")
ILLEGAL_ACTIONS = ("raise", "lose")


class DraughtsEnv(gym.Env):
    """Draughts, losing draughts or Give and Take against a fixed opponent.

    Args:
        variant: variant string or :class:`~drl.rules.Variant` (``"english"``,
            ``"give_and_take"``, ``"international"``, ...).
        role: Give and Take only: ``"taker"`` or ``"giver"``, the agent's role; the
            ``taker`` flag is then set each episode from the agent's colour. ``None`` keeps
            the variant's flags as they are.
        variant_options: more rule flags, a dict (``{"max_capture": True}``) or a string
            (``"max_capture=true,board_size=10"``).
        opponent: agent spec string for the other side, or an agent object with
            ``select_move(board)``/``reset(seed)``. ``"random"`` (default: uniformly random
            legal moves) is played inside the env's compiled step, seeded from the env's
            generator; any other spec is built by ``drl.agents.make``.
        agent_color: ``"black"``, ``"white"`` or ``"random"`` (drawn each episode from the
            env's seeded generator).
        max_plies: the episode is truncated (not drawn) after this many plies (full moves
            by either side) since reset; ``None`` for no limit.
        illegal_action: ``"lose"`` (default, as in PettingZoo's classic games and what
            Gymnasium's ``check_env`` expects of an env whose actions are masked: the
            episode ends, reward -1, ``info["termination"] == "illegal_action"``) or
            ``"raise"``: a ``ValueError`` naming the action and the legal ones, nothing
            played (to catch a masking bug in an agent).
        render_mode: ``None``, ``"ansi"`` (text) or ``"rgb_array"`` (``uint8[H, W, 3]``).

    Spaces:
        observation: ``Dict(observation=Box(0, 1, (C, n, n), float32),
        action_mask=Box(0, 1, (A,), int8))`` with C = 22, A = 896 (8x8) or 1800 (10x10).
        action: ``Discrete(A)``, step actions in the mover's frame (docs/internals.md).

    Rewards: +1 / -1 / 0 from the agent's side when the game ends by rule, 0 otherwise
    (also on truncation). ``info`` always holds ``action_mask``, ``agent_color``,
    ``role`` (``"taker"``/``"giver"`` in Give and Take, else None), ``objective``
    (``"take"``/``"give"``) and ``ply``; at the end also ``termination`` (a
    :class:`~drl.rules.Termination` name, ``"max_plies"`` or ``"illegal_action"``),
    ``winner`` (``"black"``/``"white"``/None), ``outcome`` (:class:`~drl.rules.Outcome` or
    None), ``result`` (White's score first, as :attr:`~drl.rules.Outcome.result`) and
    ``pdn`` (the game as PDN text, its result in the convention of the variant's GameType:
    English-board files give Black's score first).

    Raises:
        ValueError: on a bad argument (the message names it), on an illegal action with
            ``illegal_action="raise"``, or when a reset reaches no position where the
            agent can move: the game is decided first (a ``fen`` option) or ``max_plies``
            runs out during the opponent's opening moves.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}

    def __init__(
        self,
        variant: str | Variant = "english",
        role: str | None = None,
        variant_options: Options = None,
        opponent: Any = "random",
        agent_color: str = "random",
        max_plies: int | None = DEFAULT_MAX_PLIES,
        illegal_action: str = "lose",
        render_mode: str | None = None,
    ) -> None:
        if agent_color not in COLORS + ("random",):
            raise ValueError(
                f"agent_color must be 'black', 'white' or 'random', got {agent_color!r}"
            )
        if max_plies is not None and (
            isinstance(max_plies, bool)
            or not isinstance(max_plies, (int, np.integer))
            or max_plies < 1
        ):
            raise ValueError(f"max_plies must be a positive integer or None, got {max_plies!r}")
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action must be 'raise' or 'lose', got {illegal_action!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be None, 'ansi' or 'rgb_array', got {render_mode!r}"
            )
        self.variant = build_variant(variant, variant_options)
        self._variants = role_variants(self.variant, role)
        self.role = role
        self.agent_color = agent_color
        self.max_plies = None if max_plies is None else int(max_plies)
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self._opponent_spec = opponent
        self._fast_random = isinstance(opponent, str) and opponent.strip().lower() == "random"
        self.opponent = None if self._fast_random else make_opponent(opponent)
        self._has_roles = self.variant.role(0) is not None

        n = self.variant.board_size
        self._game = StepGame(self._variants[0], ply_limit=self.max_plies)
        self._n_actions = self._game.n_actions
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (N_CHANNELS, n, n), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (self._n_actions,), dtype=np.int8),
            }
        )
        self.action_space = spaces.Discrete(self._n_actions)
        self._agent = 0
        self._done = True
        self._end_info: dict[str, Any] = {}

    # ------------------------------------------------------------------ public API

    @property
    def board(self):
        """A copy of the current :class:`~drl.rules.Board` (completed moves only)."""
        return self._game.board.copy()

    @property
    def prefix(self) -> tuple[int, ...]:
        """Step actions the agent has played in its move in progress."""
        return tuple(int(a) for a in self._game.prefix[: self._game.plen])

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict]:
        """Start an episode.

        Args:
            seed: seeds the env's generator, which draws the agent's colour (if random) and
                the opponent's seed, so the whole episode is reproducible.
            options: ``{"fen": "..."}`` starts from that position instead of the start
                position; ``{"agent_color": "black"}`` overrides the colour for this episode.

        Returns:
            ``(observation, info)`` at the agent's first turn.
        """
        super().reset(seed=seed)
        options = dict(options or {})
        color = options.pop("agent_color", self.agent_color)
        fen = options.pop("fen", None)
        if options:
            raise ValueError(f"unknown reset options {sorted(options)}; valid: fen, agent_color")
        if color == "random":
            self._agent = int(self.np_random.integers(2))
        elif color in COLORS:
            self._agent = COLORS.index(color)
        else:
            raise ValueError(f"agent_color must be 'black', 'white' or 'random', got {color!r}")
        opp_seed = int(self.np_random.integers(2**62))
        if self.opponent is not None and hasattr(self.opponent, "reset"):
            self.opponent.reset(seed=opp_seed)
        self._game = StepGame(
            self._variants[self._agent],
            fen=fen,
            agent=self._agent,
            ply_limit=self.max_plies,
            seed=opp_seed,
        )
        self._done = False
        self._end_info = {}
        truncated = self._opponent_turns()
        start = fen or "the start position"
        outcome = self._game.outcome
        if outcome is not None:
            raise ValueError(
                f"the game is decided ({outcome.termination.name}, "
                f"{outcome.result}) before the agent ({COLORS[self._agent]}) "
                f"can move, from {start}"
            )
        if truncated:
            raise ValueError(
                f"max_plies={self.max_plies} is used up by the opponent's "
                f"{self._game.plies} plies before the agent "
                f"({COLORS[self._agent]}) can move, from {start}; raise "
                f"max_plies"
            )
        self._game.refresh()
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict]:
        """Play one step action of the agent, then the opponent's moves if that completes a move.

        Returns:
            ``(observation, reward, terminated, truncated, info)``.

        Raises:
            ValueError: an action that is not an integer (a float, a string, a bool), or
                an illegal action with ``illegal_action="raise"`` (nothing played).
            RuntimeError: stepping after the episode ended.
        """
        if self._done:
            raise RuntimeError("the episode is over (or not started); call reset()")
        game = self._game
        a = action_index(action)
        if not 0 <= a < self._n_actions:
            return self._illegal(a)
        code = game.step(a, self._fast_random)
        if code == G.STEP_ILLEGAL:
            return self._illegal(a)
        truncated = False
        if code == G.STEP_MOVE_DONE:
            if self._fast_random:  # the compiled step has played the replies already
                truncated = self._over_ply_limit()
            else:
                truncated = self._opponent_turns()
                game.refresh()
        reward = 0.0
        outcome = game.outcome
        if outcome is not None:
            reward = float(outcome.value(self._agent))
            self._finish(outcome)
        elif truncated:
            self._finish(None, termination="max_plies")
        return self._observation(), reward, outcome is not None, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """``bool[A]`` legal step actions now (sb3-contrib's ``MaskablePPO`` convention)."""
        return self._game.mask.astype(bool)

    def render(self) -> str | np.ndarray | None:
        """The current position as text (``"ansi"``) or an ``uint8[H, W, 3]`` image."""
        if self.render_mode is None:
            return None
        start, cur = self._game.jumper()
        state = self._game.state
        if self.render_mode == "ansi":
            return render_ansi(state, self._game.size, cur, start, self.variant.notation)
        return render_rgb(state, self._game.size, cur, start)

    # ------------------------------------------------------------------ internals

    def _opponent_turns(self) -> bool:
        """Play the opponent's moves until the agent is to move; True if truncated."""
        game = self._game
        if self._fast_random:
            game.random_replies()
        else:
            opponent = self.opponent
            assert opponent is not None  # made in __init__ unless the replies are compiled
            while game.outcome is None and game.turn != self._agent and not self._over_ply_limit():
                game.play_move(opponent.select_move(game.board.copy()))
        return self._over_ply_limit()

    def _over_ply_limit(self) -> bool:
        return (
            self._game.outcome is None
            and self.max_plies is not None
            and self._game.plies >= self.max_plies
        )

    def _observation(self) -> dict[str, np.ndarray]:
        self._mask_out = self._game.mask.copy()
        return {"observation": self._game.planes.copy(), "action_mask": self._mask_out}

    def _info(self) -> dict[str, Any]:
        game = self._game
        obj = int(objective(game.state, game.params, self._agent))
        info = {
            "action_mask": self._mask_out,
            "agent_color": COLORS[self._agent],
            "role": ("taker", "giver")[obj] if self._has_roles else None,
            "objective": ("take", "give")[obj],
            "ply": game.plies,
        }
        if self._end_info:
            info.update(self._end_info)
        return info

    def _finish(
        self, outcome: Outcome | None, termination: str | None = None, winner: int | None = None
    ) -> None:
        self._done = True
        if outcome is not None:
            termination = outcome.termination.name
            winner = None if outcome.winner is None else int(outcome.winner)
            result = outcome.result
        elif winner is not None:
            result = "1-0" if winner == 1 else "0-1"
        else:
            result = "*"
        agent = COLORS[self._agent]
        opponent = (
            self._opponent_spec
            if isinstance(self._opponent_spec, str)
            else type(self._opponent_spec).__name__
        )
        tags = {
            "Event": f"drl env {self.spec.id if self.spec else type(self).__name__}",
            "Black": "agent" if agent == "black" else opponent,
            "White": "agent" if agent == "white" else opponent,
            "Termination": termination,
        }
        self._end_info = {
            "termination": termination,
            "winner": None if winner is None else COLORS[winner],
            "outcome": outcome,
            "result": result,
            "pdn": self._game.pdn(tags, result),
        }

    def _illegal(self, a: int):
        game = self._game
        if self.illegal_action == "raise":
            legal = ", ".join(f"{i} ({game.step_text(int(i))})" for i in np.flatnonzero(game.mask))
            progress = f" after steps {list(self.prefix)}" if game.plen else ""
            raise ValueError(
                f"illegal action {a} ({game.step_text(a)}) for "
                f"{COLORS[game.turn]} in {game.board.fen()}{progress}; "
                f"legal actions: {legal or 'none'}"
            )
        self._finish(None, termination="illegal_action", winner=1 - self._agent)
        self._end_info["illegal_action"] = a
        return self._observation(), -1.0, True, False, self._info()
