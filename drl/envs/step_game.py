"""``StepGame``: one game played one step action at a time (the envs' game).

The game lives in the game core's arrays (:mod:`drl.game.kernels`: the position
``pos``, its legal moves, the hash-by-ply history) plus a move log; the envs step it
with one fused kernel call per env step, random replies included
(:mod:`drl.envs._kernels`). A
:class:`~drl.rules.Board` with the same moves is built only when asked for
(:attr:`StepGame.board`: rendering, other opponents, the user), and the PDN is written
straight from the move log.
"""

from __future__ import annotations

from functools import cache, lru_cache

import numpy as np

from drl.encode.actions import action_index, num_actions, step_squares
from drl.encode.planes import N_CHANNELS
from drl.envs import _kernels as K
from drl.game import kernels as G
from drl.rules.board import Board, Move, Outcome
from drl.rules.core import M_CAPTURED, M_FROM, M_NSTEPS, M_PATH, MOVE_WIDTH, ST_PLY, STATE_SIZE
from drl.rules.geometry import square_name
from drl.rules.pdn import game_type_tag, result_for_file, write_game
from drl.rules.variant import Variant

__all__ = ["StepGame", "action_index"]


class StepGame:
    """One game in step space.

    Args:
        variant: the rules.
        fen: start position (default: the variant's).
        agent: colour whose opponent is played by the random kernel in :meth:`step`
            (``random_opponent=True``) and stopped at ``ply_limit``; ``None``: nobody.
        ply_limit: plies after which random replies stop (``None``: no limit).
        seed: seed of the random replies.

    Attributes:
        mask: ``int8[A]`` legal steps of the player to move (after :meth:`refresh` or
            :meth:`step`).
        planes: ``float32[C, n, n]`` observation (idem).
    """

    def __init__(
        self,
        variant: Variant,
        fen: str | None = None,
        agent: int | None = None,
        ply_limit: int | None = None,
        seed: int = 0,
    ) -> None:
        self.variant = variant
        self.params = variant.params
        self.size = variant.board_size
        self.n_actions = num_actions(self.size)
        self._root = Board(variant, fen=fen)
        self._board = self._root.copy()
        self._synced = 0
        self._fen = None if fen is None else self._root.fen()
        # The move log starts small and doubles as the game goes on (see grow): a large
        # ply_limit must not be allocated up front (10**12 plies would be 256 TB).
        cap = 256 if ply_limit is None else min(int(ply_limit), 254) + 2
        state = np.array(self._root.state, dtype=np.int64)
        ply0 = int(state[ST_PLY])
        self._ply0 = ply0
        self.ws = np.zeros(K.W_SIZE, dtype=np.int64)
        self.ws[K.W_AGENT] = -1 if agent is None else int(agent)
        # (a limit past 2**62 plies is never reached; the int64 slot cannot hold more)
        self.ws[K.W_PLY_LIMIT] = -1 if ply_limit is None else min(int(ply_limit), 2**62)
        self.ws[K.W_PLY0] = ply0
        self.pos = G.new_pos()
        self.rows = G.move_buffer()
        self.log = np.zeros((cap, MOVE_WIDTH), dtype=np.int64)
        self.hist = np.zeros(ply0 + cap + 1, dtype=np.int64)
        self.rng = np.array([seed % 2**64], dtype=np.uint64)
        self.mask = np.zeros(self.n_actions, dtype=np.int8)
        self.planes = np.zeros((N_CHANNELS, self.size, self.size), dtype=np.float32)
        G.start(self.pos, state, self.params, self.rows, self.hist)
        self._bind()

    def _bind(self) -> None:
        """The arrays as :func:`drl.envs._kernels.game_step` takes them.

        Plain tuples of a ``Game``, a ``Driver`` and an ``Observation``: the fastest call.
        """
        self._game = (self.pos, self.params, self.rows, self.hist)
        self._driver = (self.ws, self.log, self.rng)
        self._out = (self.mask, self.planes)

    # ------------------------------------------------------------------ queries

    @property
    def state(self) -> np.ndarray:
        """``int64[STATE_SIZE]`` game state after the completed moves (a view of ``pos``)."""
        return self.pos[:STATE_SIZE]

    @property
    def prefix(self) -> np.ndarray:
        """``int64[MAX_STEPS]`` step actions of the move in progress.

        A view of ``pos``; the first :attr:`plen` are valid.
        """
        return self.pos[G.G_PREFIX : G.G_PREFIX + G.MAX_STEPS]

    @property
    def turn(self) -> int:
        """Colour to move (0 black, 1 white); unchanged during a move in progress."""
        return int(self.pos[4])

    @property
    def plies(self) -> int:
        """Plies completed in this game."""
        return int(self.pos[ST_PLY]) - self._ply0

    @property
    def plen(self) -> int:
        """Steps played in the move in progress."""
        return int(self.pos[G.G_PLEN])

    @property
    def n_rows(self) -> int:
        """Number of legal moves of the current position."""
        return int(self.pos[G.G_NMOVES])

    @property
    def outcome(self) -> Outcome | None:
        """The result once the game is over by rule (as ``Board.outcome()``), else None."""
        code = int(self.pos[G.G_CODE])
        return None if code < 0 else Outcome.from_code(code)  # (asked every env step)

    @property
    def board(self) -> Board:
        """The :class:`~drl.rules.Board` after the completed moves.

        It is kept in step with the game: do not modify it; use ``.copy()``.
        """
        board = self._board
        while self._synced < self.plies:
            board.push_unchecked(
                Move.from_row(self.log[self._synced], self.size, self.variant.notation)
            )
            self._synced += 1
        return board

    def is_legal(self, action: int) -> bool:
        """True if ``action`` is a legal step now (needs a current mask)."""
        return 0 <= action < self.n_actions and bool(self.mask[action])

    # ------------------------------------------------------------------ playing

    def _ensure_capacity(self) -> None:
        if self.plies + 2 >= len(self.log):
            self.grow()

    def grow(self) -> None:
        """Double the room of the move log (called before it fills up)."""
        grow = len(self.log)
        self.log = np.concatenate([self.log, np.zeros_like(self.log[:grow])])
        self.hist = np.concatenate([self.hist, np.zeros(grow, dtype=np.int64)])
        self._bind()

    def step(self, action: int, random_opponent: bool = False) -> int:
        """Play a step action, then the opponent's random replies if asked for.

        The replies are played if a move was completed and ``random_opponent``; then the
        mask and planes are refreshed (mover's view).

        Returns:
            ``G.STEP_ILLEGAL`` (nothing played), ``G.STEP_IN_PROGRESS`` or
            ``G.STEP_MOVE_DONE``.
        """
        if self.plies + 2 >= len(self.log):  # _ensure_capacity, inline: every env step
            self.grow()
        return int(K.game_step(self._game, self._driver, action, random_opponent, self._out))

    def random_replies(self) -> None:
        """Random moves for the agent's opponent until the agent is to move (or the end)."""
        self._ensure_capacity()
        K.random_replies(self.ws, self.pos, self.params, self.rows, self.hist, self.log, self.rng)

    def play_move(self, move: Move) -> None:
        """Play a legal :class:`~drl.rules.Move` as a whole move.

        Raises:
            ValueError: the move is not legal here.
        """
        self._ensure_capacity()
        G.play_row(
            self.pos, self.params, self.rows, self.hist, self.row_of(move), self.log[self.plies]
        )

    def row_of(self, move: Move) -> int:
        """Index among the legal move rows of a :class:`~drl.rules.Move`.

        The move is matched by its start, end and captured set.

        Raises:
            ValueError: the move is not legal here.
        """
        captured = 0
        for s in move.captures:
            captured |= 1 << int(s)
        rows = self.rows[: self.n_rows]
        hits = np.flatnonzero(
            (rows[:, 0] == move.start)
            & (rows[:, 1] == move.end)
            & (rows[:, M_CAPTURED] == captured)
        )
        if len(hits) == 0:
            raise ValueError(f"{move} is not legal in {self.board.fen()}")
        return int(hits[0])

    def refresh(self, viewer: int | None = None) -> None:
        """Recompute the mask and the planes (from ``viewer``'s view, default the mover)."""
        K.observe_into(
            self.pos,
            self.params,
            self.rows,
            -1 if viewer is None else int(viewer),
            self.mask,
            self.planes,
        )

    # ------------------------------------------------------------------ text

    def step_text(self, action: int) -> str:
        """``"28x19"``-style text of a step action for the player to move."""
        if not 0 <= action < self.n_actions:
            return "out of range"
        a, b = step_squares(action, self.turn, self.params)
        if a < 0:
            return "off the board"
        sep = "x" if self.n_rows and self.rows[0, M_CAPTURED] else "-"
        return f"{a + 1}{sep}{b + 1}"

    def jumper(self) -> tuple[int, int]:
        """(start square, current square) of the piece making the move in progress, or (-1, -1)."""
        if not self.plen:
            return -1, -1
        start = int(step_squares(self.prefix[0], self.turn, self.params)[0])
        cur = int(step_squares(self.prefix[self.plen - 1], self.turn, self.params)[1])
        return start, cur

    def pdn(self, tags: dict | None = None, result: Outcome | str | None = "*") -> str:
        """The game as PDN text.

        With ``GameType``/``Variant`` and ``FEN`` tags, and the result, as
        ``drl.rules.pdn.board_to_pdn`` writes them.

        Args:
            tags: more tag pairs.
            result: an :class:`~drl.rules.Outcome`, or a result with White's score first
                (``Outcome.result``: ``"1-0"`` White won), ``"*"``/None for an unfinished
                game; written in the convention of the variant's GameType
                (``drl.rules.pdn.result_for_file``: English-board files give Black's score
                first).
        """
        all_tags = dict(tags or {})
        game_type, variant_tag = _game_type(self.variant)
        all_tags.setdefault("GameType", game_type)
        if variant_tag is not None:
            all_tags.setdefault("Variant", variant_tag)
        if self._fen is not None and self._fen != Board(self.variant).fen():
            all_tags.setdefault("SetUp", "1")
            all_tags.setdefault("FEN", self._fen)
        names = _square_names(self.size, self.variant.notation)
        capture = ":" if self.variant.notation == "algebraic" else "x"
        moves = []
        for row in self.log[: self.plies].tolist():
            path = [row[M_FROM]] + row[M_PATH : M_PATH + row[M_NSTEPS]]
            moves.append((capture if row[M_CAPTURED] else "-").join([names[s] for s in path]))
        return write_game(moves, all_tags, result_for_file(result, self.variant))


@lru_cache(maxsize=64)
def _game_type(variant: Variant) -> tuple[str, str | None]:
    return game_type_tag(variant)


@cache
def _square_names(board_size: int, notation: str) -> tuple[str, ...]:
    """PDN names of all squares (what ``drl.rules.notation.format_move`` writes)."""
    return tuple(square_name(s, board_size, notation) for s in range(board_size**2 // 2))
