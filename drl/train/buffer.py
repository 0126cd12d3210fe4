"""Replay buffer: append-only shards on disk plus a sliding window in memory.

Each shard is one ``.npz`` file holding the positions of a batch of finished self-play
games. A shard is written to a temporary name and renamed into place (``os.replace``), so
a shard on disk is always complete; a killed run loses at most the games still in flight.
The shard files are the record of which games are finished: a resumed run counts them.

Policy targets are stored sparsely, over the legal steps of each position only, so a
target can never put mass on an illegal step.
"""

from __future__ import annotations

import logging
import os
import re
import zipfile
from collections import deque
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["GameBatch", "ReplayBuffer", "SampleBatch", "ShardError"]

log = logging.getLogger(__name__)

_SHARD_RE = re.compile(r"^shard-(\d{6,})\.npz$")


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

    @property
    def num_positions(self) -> int:
        """N."""
        return int(len(self.value))

    @property
    def num_games(self) -> int:
        """G."""
        return int(len(self.game_plies))

    def validate(self) -> None:
        """Check shapes and offsets.

        Raises:
            ShardError: naming the first inconsistent array.
        """
        n = self.num_positions
        for name in ("policy_weight", "plies_left", "player", "game_index"):
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
    """

    obs: np.ndarray
    mask: np.ndarray
    policy: np.ndarray
    policy_weight: np.ndarray
    value: np.ndarray
    pieces_left: np.ndarray
    plies_left: np.ndarray


def _write_atomic_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    # Widened for numpy's signature, whose ``allow_pickle: bool`` a ``**`` mapping could hit.
    payload: dict[str, Any] = arrays
    with open(tmp, "wb") as fh:
        np.savez_compressed(fh, **payload)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def load_shard(path: Path) -> GameBatch:
    """Read one shard.

    Raises:
        ShardError: if the file is unreadable or inconsistent (the message names it).
    """
    try:
        with np.load(path) as z:
            batch = GameBatch(**{f.name: z[f.name] for f in fields(GameBatch)})
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        raise ShardError(f"replay shard {path} is unreadable: {exc}") from exc
    try:
        batch.validate()
    except ShardError as exc:
        raise ShardError(f"replay shard {path}: {exc}") from exc
    return batch


class ReplayBuffer:
    """Shards on disk, the most recent ``window`` positions in memory.

    Args:
        directory: folder of ``shard-NNNNNN.npz`` files (created if missing).
        window: number of most recent positions that :meth:`sample` draws from.

    On construction the folder is scanned: leftover ``*.tmp`` files (a write cut short)
    are removed, every complete shard is counted, and the newest shards covering the
    window are loaded. Unreadable shards are skipped with a warning.
    """

    def __init__(self, directory: str | os.PathLike, window: int) -> None:
        if window < 1:
            raise ValueError(f"replay window must be >= 1 positions, got {window}")
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.window = int(window)
        self._shards: deque[GameBatch] = deque()
        self._in_window = 0
        self.num_shards = 0
        self.num_games = 0
        self.num_positions = 0
        self._scan()

    # -- disk ---------------------------------------------------------------------------
    def shard_paths(self) -> list[Path]:
        """Complete shard files, oldest first."""
        return self.shard_files(self.directory)

    @staticmethod
    def shard_files(directory: str | os.PathLike) -> list[Path]:
        """The complete shard files ``shard-NNNNNN.npz`` in ``directory``, oldest first
        (none if it does not exist); reads and changes nothing."""
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
        for tmp in self.directory.glob("*.tmp"):
            tmp.unlink(missing_ok=True)
        paths = self.shard_paths()
        last = _SHARD_RE.match(paths[-1].name) if paths else None  # shard_paths() all match
        self.num_shards = int(last.group(1)) + 1 if last else 0
        loaded: list[GameBatch] = []
        for p in paths:
            try:
                b = load_shard(p)
            except ShardError as exc:
                log.warning("%s; skipped", exc)
                continue
            self.num_games += b.num_games
            self.num_positions += b.num_positions
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

    def add(self, batch: GameBatch) -> Path:
        """Write a batch of finished games as a new shard and add it to the window.

        Returns:
            The shard's path.

        Raises:
            ShardError: if the batch is inconsistent (nothing is written).
        """
        batch.validate()
        path = self.directory / f"shard-{self.num_shards:06d}.npz"
        _write_atomic_npz(path, {f.name: getattr(batch, f.name) for f in fields(GameBatch)})
        self.num_shards += 1
        self.num_games += batch.num_games
        self.num_positions += batch.num_positions
        self._push(batch)
        return path

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
        pieces = np.empty((batch_size, 2), np.float32)
        plies = np.empty(batch_size, np.float32)
        for w in np.unique(which):
            rows = np.nonzero(which == w)[0]
            data, idx = shards[w], local[rows]
            obs[rows] = data.obs[idx]
            weight[rows] = data.policy_weight[idx]
            value[rows] = data.value[idx]
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
        )
