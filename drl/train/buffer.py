"""Replay buffer: append-only shards on disk plus a sliding window in memory.

Each shard is one ``.npz`` file holding the positions of a batch of finished self-play
games. A shard is written to a temporary name and renamed into place (``os.replace``), so
a shard on disk is always complete; a killed run loses at most the games still in flight.
The shard files are the record of which games are finished: a resumed run counts them.

Policy targets are stored sparsely, over the legal steps of each position only, so a
target can never put mass on an illegal step.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import zipfile
from collections import deque
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from drl._atomic import remove_partials, set_aside, write_atomic

__all__ = ["GameBatch", "ReplayBuffer", "SampleBatch", "ShardError"]

log = logging.getLogger(__name__)

_SHARD_RE = re.compile(r"^shard-(\d{6,})\.npz$")
# A shard set aside as damaged keeps its number: shard-NNNNNN.npz[.K].corrupt.
_SET_ASIDE_RE = re.compile(r"^shard-(\d{6,})\.npz(?:\.\d+)?\.corrupt$")


class ShardError(ValueError):
    """A shard file is unreadable or does not have the expected arrays."""


@dataclass(frozen=True)
class GameBatch:
    """Positions of a batch of finished games (N positions, M stored legal steps, G games).

    Attributes:
        obs: ``[N, C, H, W]`` float16 observation planes.
        legal_offsets: ``[N + 1]`` int64; the legal steps of position i are
            ``legal_actions[legal_offsets[i]:legal_offsets[i + 1]]``.
        legal_actions: ``[M]`` int16 step-action indices.
        policy: ``[M]`` float32 search policy over those steps (sums to 1 per position).
        policy_weight: ``[N]`` float32, 1 where the policy target comes from a full
            search, 0 otherwise (forced steps, playout-cap fast searches).
        value: ``[N]`` float32 final result for the player to move: +1 win, 0 draw or
            truncation, -1 loss.
        pieces_left: ``[N, 2]`` float32 pieces left at the end for (mover, opponent),
            as a fraction of the starting men per side.
        plies_left: ``[N]`` float32 plies from this position to the end.
        player: ``[N]`` int8 colour to move (0 black, 1 white).
        game_index: ``[N]`` int64 game number (global, counted over the whole run).
        game_plies: ``[G]`` int64 length of each game in plies (full moves).
        game_result: ``[G]`` int64 winner colour 0 black / 1 white, 2 draw, 3 truncated.
        game_taker: ``[G]`` int64 colour of the Taker, -1 outside Give and Take.
        search_value: ``[N]`` float32 in [-1, 1], the search's value of the position for
            the player to move (the root value of its search); equal to ``value`` where
            no search was run (forced steps). Default: ``value`` (shards written before
            the field existed).
        game_adjudicated: ``[G]`` int64, for a game cut at the ply cap, the result its
            adjudication gave (0 black won, 1 white won, 2 draw) and taught through
            ``value``; -1 for a game played out (or cut without adjudication, taught as
            0). Default: all -1.
    """

    obs: np.ndarray
    legal_offsets: np.ndarray
    legal_actions: np.ndarray
    policy: np.ndarray
    policy_weight: np.ndarray
    value: np.ndarray
    pieces_left: np.ndarray
    plies_left: np.ndarray
    player: np.ndarray
    game_index: np.ndarray
    game_plies: np.ndarray
    game_result: np.ndarray
    game_taker: np.ndarray
    search_value: np.ndarray | None = None
    game_adjudicated: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.search_value is None:
            object.__setattr__(self, "search_value", np.array(self.value, np.float32))
        if self.game_adjudicated is None:
            object.__setattr__(
                self, "game_adjudicated", np.full(len(self.game_plies), -1, np.int64)
            )

    @property
    def num_positions(self) -> int:
        """N."""
        return int(len(self.value))

    @property
    def num_games(self) -> int:
        """G."""
        return int(len(self.game_plies))

    def validate(self, num_actions: int | None = None) -> None:
        """Check shapes, offsets and the values the loss uses.

        Values: the float arrays (``obs``, ``policy``, ``policy_weight``, ``value``,
        ``pieces_left``, ``plies_left``) must be finite; ``policy`` >= 0 and summing to 1
        (within 1e-3) over each position's legal steps; ``policy_weight`` and
        ``pieces_left`` in [0, 1]; ``value`` in [-1, 1]; ``plies_left`` >= 0;
        ``legal_actions`` >= 0 and, if ``num_actions`` is given, < ``num_actions``.
        Any of these would poison the loss (a NaN trains every weight to NaN).

        Args:
            num_actions: A, the number of step actions, if known.

        Raises:
            ShardError: naming the first inconsistent array and what is wrong with it.
        """
        n = self.num_positions
        for name in ("policy_weight", "plies_left", "player", "game_index", "search_value"):
            if len(getattr(self, name)) != n:
                raise ShardError(f"{name} has {len(getattr(self, name))} rows, expected {n}")
        if self.obs.ndim != 4 or len(self.obs) != n:
            raise ShardError(f"obs has shape {self.obs.shape}, expected [{n}, C, H, W]")
        if self.pieces_left.shape != (n, 2):
            raise ShardError(f"pieces_left has shape {self.pieces_left.shape}, expected ({n}, 2)")
        off = self.legal_offsets
        if len(off) != n + 1 or off[0] != 0 or np.any(np.diff(off) < 1):
            raise ShardError("legal_offsets must start at 0 and grow by >= 1 per position")
        if off[-1] != len(self.legal_actions) or len(self.policy) != len(self.legal_actions):
            raise ShardError("legal_actions/policy length does not match legal_offsets")
        g = self.num_games
        if len(self.game_result) != g or len(self.game_taker) != g:
            raise ShardError("game_result/game_taker length does not match game_plies")
        if len(self.game_adjudicated) != g:  # type: ignore[arg-type]
            raise ShardError("game_adjudicated length does not match game_plies")
        self._validate_values(num_actions)

    def _validate_values(self, num_actions: int | None) -> None:
        for name in (
            "obs",
            "policy",
            "policy_weight",
            "value",
            "search_value",
            "pieces_left",
            "plies_left",
        ):
            x = getattr(self, name)
            if not np.isfinite(x).all():
                bad = int(np.count_nonzero(~np.isfinite(x)))
                raise ShardError(f"{name} has {bad} NaN or infinite values")
        for name, lo, hi in (
            ("policy", 0.0, np.inf),
            ("policy_weight", 0.0, 1.0),
            ("value", -1.0, 1.0),
            ("search_value", -1.0, 1.0),
            ("pieces_left", 0.0, 1.0),
            ("plies_left", 0.0, np.inf),
        ):
            x = getattr(self, name)
            if len(x) and (x.min() < lo or x.max() > hi):
                where = "[" + f"{lo:g}, " + ("inf)" if hi == np.inf else f"{hi:g}]")
                raise ShardError(
                    f"{name} has values outside {where}: min {x.min():g}, max {x.max():g}"
                )
        sums = np.add.reduceat(self.policy.astype(np.float64), self.legal_offsets[:-1])
        if len(sums) and np.abs(sums - 1.0).max() > 1e-3:
            i = int(np.argmax(np.abs(sums - 1.0)))
            raise ShardError(
                f"policy must sum to 1 over each position's legal steps; position {i} "
                f"sums to {sums[i]:g}"
            )
        acts = self.legal_actions
        if len(acts):
            top = f"{num_actions}" if num_actions is not None else "inf"
            if acts.min() < 0 or (num_actions is not None and acts.max() >= num_actions):
                raise ShardError(
                    f"legal_actions has step indices outside [0, {top}): "
                    f"min {acts.min()}, max {acts.max()}"
                )

    @staticmethod
    def concat(batches: list[GameBatch]) -> GameBatch:
        """Join batches (offsets are re-based)."""
        if not batches:
            raise ValueError("no batches to concatenate")
        parts = {}
        for f in fields(GameBatch):
            if f.name == "legal_offsets":
                offs, base = [np.zeros(1, np.int64)], 0
                for b in batches:
                    offs.append(b.legal_offsets[1:] + base)
                    base += int(b.legal_offsets[-1])
                parts[f.name] = np.concatenate(offs)
            else:
                parts[f.name] = np.concatenate([getattr(b, f.name) for b in batches])
        return GameBatch(**parts)


@dataclass(frozen=True)
class SampleBatch:
    """A dense minibatch for the learner (B positions, A actions).

    Attributes:
        obs: ``[B, C, H, W]`` float32.
        mask: ``[B, A]`` bool legal steps.
        policy: ``[B, A]`` float32 target, 0 off the mask.
        policy_weight: ``[B]`` float32.
        value: ``[B]`` float32.
        pieces_left: ``[B, 2]`` float32.
        plies_left: ``[B]`` float32.
        search_value: ``[B]`` float32 (see :attr:`GameBatch.search_value`).
    """

    obs: np.ndarray
    mask: np.ndarray
    policy: np.ndarray
    policy_weight: np.ndarray
    value: np.ndarray
    pieces_left: np.ndarray
    plies_left: np.ndarray
    search_value: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.search_value is None:
            object.__setattr__(self, "search_value", np.array(self.value, np.float32))


def _write_atomic_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    # Widened for numpy's signature, whose ``allow_pickle: bool`` a ``**`` mapping could hit.
    payload: dict[str, Any] = arrays
    write_atomic(path, lambda fh: np.savez_compressed(fh, **payload))


def load_shard(path: Path, num_actions: int | None = None) -> GameBatch:
    """Read one shard and check it (:meth:`GameBatch.validate`).

    Args:
        path: the ``.npz`` file.
        num_actions: A, if known: step indices must lie below it.

    Raises:
        ShardError: if the file is unreadable, inconsistent or holds values the loss
            cannot use (the message names the file and the array).
    """
    try:
        with np.load(path) as z:
            # fields with a default may be missing from shards written before they existed
            batch = GameBatch(
                **{
                    f.name: z[f.name]
                    for f in fields(GameBatch)
                    if f.name in z.files or f.default is dataclasses.MISSING
                }
            )
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        raise ShardError(f"replay shard {path} is unreadable: {exc}") from exc
    try:
        batch.validate(num_actions)
    except ShardError as exc:
        raise ShardError(f"replay shard {path}: {exc}") from exc
    return batch


class ReplayBuffer:
    """Shards on disk, the most recent ``window`` positions in memory.

    Args:
        directory: folder of ``shard-NNNNNN.npz`` files (created if missing).
        window: number of most recent positions that :meth:`sample` draws from.
        num_actions: A, if known: shards with step indices at or above it are damaged.

    On construction the folder is scanned: leftover ``*.tmp`` files (a write cut short)
    are removed, every complete shard is checked (:func:`load_shard`) and counted, and
    the newest shards covering the window are loaded. A damaged shard (unreadable,
    inconsistent, or with values the loss cannot use, e.g. a NaN) is set aside: renamed
    to ``shard-NNNNNN.npz.corrupt`` with a warning naming it and why, and not counted.
    Its number stays taken: :attr:`num_shards`, the number of the next shard, is one
    past the highest number in the folder, set aside or not, so a new shard (and the
    ``selfplay-NNNNNN.pdn`` the training loop writes with that number) never takes the
    name of an old one.

    Attributes:
        num_shards: the number the next shard gets (one past the highest used).
        num_games, num_positions: games and positions in the good shards.
        next_game_index: one past the highest game index in the good shards, the number
            the next finished game gets (equal to ``num_games`` unless a shard was set
            aside, whose numbers are then not handed out again below a later shard's).
        set_aside: the shards this scan set aside (their new paths).
    """

    def __init__(
        self, directory: str | os.PathLike, window: int, num_actions: int | None = None
    ) -> None:
        if window < 1:
            raise ValueError(f"replay window must be >= 1 positions, got {window}")
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.window = int(window)
        self.num_actions = num_actions
        self.set_aside: list[Path] = []
        self._shards: deque[GameBatch] = deque()
        self._in_window = 0
        self.num_shards = 0
        self.num_games = 0
        self.num_positions = 0
        self.next_game_index = 0
        self._scan()

    # -- disk ---------------------------------------------------------------------------
    def shard_paths(self) -> list[Path]:
        """Complete shard files, oldest first."""
        return self.shard_files(self.directory)

    @staticmethod
    def shard_files(directory: str | os.PathLike) -> list[Path]:
        """The complete shard files ``shard-NNNNNN.npz`` in ``directory``, oldest first.

        Empty if the folder does not exist; reads and changes nothing.
        """
        d = Path(directory)
        if not d.is_dir():
            return []
        found = []
        for p in d.iterdir():
            m = _SHARD_RE.match(p.name)
            if m:
                found.append((int(m.group(1)), p))
        return [p for _, p in sorted(found)]

    def _scan(self) -> None:
        remove_partials(self.directory)
        numbers = [
            int(m.group(1))
            for p in self.directory.iterdir()
            if (m := _SHARD_RE.match(p.name) or _SET_ASIDE_RE.match(p.name))
        ]
        self.num_shards = max(numbers) + 1 if numbers else 0
        loaded: list[GameBatch] = []
        for p in self.shard_paths():
            try:
                b = load_shard(p, self.num_actions)
            except ShardError as exc:
                target = set_aside(p)
                self.set_aside.append(target)
                log.warning("%s; set aside as %s, its games are not used", exc, target.name)
                continue
            self.num_games += b.num_games
            self.num_positions += b.num_positions
            self._note_indices(b)
            loaded.append(b)
        for b in loaded:
            self._push(b)

    def _push(self, batch: GameBatch) -> None:
        self._shards.append(batch)
        self._in_window += batch.num_positions
        while (
            len(self._shards) > 1 and self._in_window - self._shards[0].num_positions >= self.window
        ):
            self._in_window -= self._shards.popleft().num_positions

    def add(self, batch: GameBatch, extra: dict[str, np.ndarray] | None = None) -> Path:
        """Write a batch of finished games as a new shard and add it to the window.

        Args:
            batch: the games.
            extra: more arrays to store in the shard (e.g. the training loop's
                ``session``); :func:`load_shard` does not read them.

        Returns:
            The shard's path.

        Raises:
            ShardError: if the batch is inconsistent or holds values the loss cannot use
                (see :meth:`GameBatch.validate`; nothing is written).
        """
        batch.validate(self.num_actions)
        path = self.directory / f"shard-{self.num_shards:06d}.npz"
        arrays = {f.name: getattr(batch, f.name) for f in fields(GameBatch)}
        _write_atomic_npz(path, {**(extra or {}), **arrays})
        self.num_shards += 1
        self.num_games += batch.num_games
        self.num_positions += batch.num_positions
        self._note_indices(batch)
        self._push(batch)
        return path

    def _note_indices(self, batch: GameBatch) -> None:
        if batch.num_positions:
            self.next_game_index = max(self.next_game_index, int(batch.game_index.max()) + 1)

    # -- sampling -----------------------------------------------------------------------
    def __len__(self) -> int:
        """Positions available to :meth:`sample` (at most about ``window``)."""
        return self._in_window

    def sample(self, batch_size: int, rng: np.random.Generator, num_actions: int) -> SampleBatch:
        """Draw positions uniformly (with replacement) from the window.

        Args:
            batch_size: B.
            rng: numpy generator (its state is checkpointed by the caller).
            num_actions: A, width of the dense mask/policy.

        Raises:
            ValueError: if the buffer is empty.
        """
        if self._in_window == 0:
            raise ValueError("cannot sample from an empty replay buffer")
        shards = list(self._shards)
        ends = np.cumsum([b.num_positions for b in shards])
        total = int(ends[-1])
        glob = rng.integers(max(0, total - self.window), total, size=batch_size)
        which = np.searchsorted(ends, glob, side="right")
        local = glob - (ends[which] - np.array([shards[w].num_positions for w in which]))
        first = shards[0]
        obs = np.empty((batch_size,) + first.obs.shape[1:], np.float32)
        mask = np.zeros((batch_size, num_actions), bool)
        policy = np.zeros((batch_size, num_actions), np.float32)
        weight = np.empty(batch_size, np.float32)
        value = np.empty(batch_size, np.float32)
        search_value = np.empty(batch_size, np.float32)
        pieces = np.empty((batch_size, 2), np.float32)
        plies = np.empty(batch_size, np.float32)
        for w in np.unique(which):
            rows = np.nonzero(which == w)[0]
            data, idx = shards[w], local[rows]
            obs[rows] = data.obs[idx]
            weight[rows] = data.policy_weight[idx]
            value[rows] = data.value[idx]
            search_value[rows] = data.search_value[idx]
            pieces[rows] = data.pieces_left[idx]
            plies[rows] = data.plies_left[idx]
            lo, hi = data.legal_offsets[idx], data.legal_offsets[idx + 1]
            flat = np.concatenate([np.arange(a, b) for a, b in zip(lo, hi, strict=True)])
            r = np.repeat(rows, hi - lo)
            acts = data.legal_actions[flat].astype(np.int64)
            mask[r, acts] = True
            policy[r, acts] = data.policy[flat]
        return SampleBatch(
            obs=obs,
            mask=mask,
            policy=policy,
            policy_weight=weight,
            value=value,
            pieces_left=pieces,
            plies_left=plies,
            search_value=search_value,
        )
