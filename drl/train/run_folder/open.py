"""Opening a run: check the folder, then continue its run or start one.

:func:`open_run` makes the checks of :mod:`~drl.train.run_folder.checks` before anything
is written, then continues the run (or starts one): it clears what a kill cut short
(:mod:`~drl.train.run_folder.repair`), sets aside damaged checkpoints, drops the metrics
of work to be redone, opens the replay buffer and starts a session; what it found is a
:class:`Resumed`.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from drl.nn.checkpoint import CheckpointError, list_checkpoints, load_latest
from drl.train.buffer import ReplayBuffer, load_shard

if TYPE_CHECKING:
    import torch

    from drl.train.config import Config
from drl.train.run_folder.checks import (
    check_checkpoint,
    check_config_file,
    refuse_without_checkpoint,
)
from drl.train.run_folder.log import json_count, sessions_after, start_session, work_in
from drl.train.run_folder.repair import (
    _checkpoint_number,
    _continue_from,
    _set_aside_checkpoint,
    _settle_writes,
    _trim_metrics,
)

__all__ = ["Resumed", "RunSpec", "open_run", "resolve_run_dir"]

log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class RunSpec:
    """What a training configuration asks of the run folder it trains in.

    Attributes:
        variant_spec: the config's ``variant.spec``.
        encoding: the run's ``board_size``, ``channels`` and ``actions``.
        arch: the network's architecture (see :func:`drl.nn.describe`).
        net_config: the network's config fields (see :func:`drl.nn.describe`).
        model: the config's ``model`` node as a plain dict, checked against the folder's
            ``config.yaml`` when it has no checkpoint.
        config_yaml: the resolved configuration, written to ``config.yaml``.
        iterations: the iterations the run is to reach.
        max_minutes: the run's training time budget in minutes (0: none).
        final_eval: whether a final evaluation is configured (games and baselines).
        replay_window: positions the replay buffer samples from (>= 1).
    """

    variant_spec: str
    encoding: Mapping[str, int]
    arch: str
    net_config: Mapping[str, Any]
    model: Mapping[str, Any]
    config_yaml: str
    iterations: int
    max_minutes: float
    final_eval: bool
    replay_window: int


@dataclasses.dataclass(frozen=True)
class Resumed:
    """What :func:`open_run` found in a run folder, and the replay buffer it opened.

    Attributes:
        checkpoint: the checkpoint the run continues from (named by its iteration); None
            for a run that starts afresh.
        payload: its payload (``model``, ``optimizer``, ``rng``, ``counters``, ...); None
            without one.
        iteration: the checkpoint's iteration (0 without one).
        learner_steps: the checkpoint's learner steps (0 without one).
        games: games finished up to the checkpoint: those in the replay folder less
            those of the shards written after it (the iteration in progress); for a
            finished run, the checkpoint's count.
        positions: the positions the checkpoint counts (0 without one).
        session: this start's session number; for a finished run, the session its
            checkpoint was written in (no session is started).
        wall_minutes: the run's training wall time before this start, in minutes.
        cpu_minutes: the run's training CPU time before this start, in minutes.
        finished: the run was already finished (its iterations or time budget done and
            its final evaluation recorded, or none configured): nothing was written.
        replay: the replay buffer over the folder's shards, the next shard and game
            numbered past every one found; None for a finished run.
    """

    checkpoint: Path | None
    payload: Mapping[str, Any] | None
    iteration: int
    learner_steps: int
    games: int
    positions: int
    session: int
    wall_minutes: float
    cpu_minutes: float
    finished: bool
    replay: ReplayBuffer | None


def open_run(run_dir: Path, spec: RunSpec, device: str | torch.device = "cpu") -> Resumed:
    """Check a run folder against ``spec``, then continue its run, or start one.

    Call it with the folder locked (:func:`lock_run_dir`). Before anything is written,
    the newest good checkpoint (or, without one, ``config.yaml``) must be of the
    config's variant, encoding and network, and a folder holding work but no good
    checkpoint is refused (a lone damaged first checkpoint is set aside). A finished run
    is left as it is. Otherwise the writes a kill cut short are removed (or, for a PDN
    whose shard was written, completed), ``config.yaml`` is written, checkpoints newer
    than the one continued from are set aside as ``*.corrupt``, checkpoints named by
    learner steps get iteration names, metrics lines after its iteration are dropped,
    the replay buffer is opened and a session is started in ``sessions.jsonl``.

    Args:
        run_dir: the run folder.
        spec: what the configuration asks of it.
        device: where the checkpoint's tensors are loaded.

    Returns:
        :class:`Resumed`.

    Raises:
        ValueError: the folder is a run of another variant, encoding or network (the
            message names both values).
        CheckpointError: the folder holds work or damaged checkpoints but no good
            checkpoint.
        RunFolderError: ``config.yaml`` or ``games/`` cannot be written.
    """
    # -- what the folder holds, checked before anything is written
    found = _checked_checkpoint(run_dir, spec, device)
    c: Mapping[str, Any] = found[1]["counters"] if found is not None else {}
    iteration = int(c.get("iteration", 0))
    if found is not None and _is_finished(run_dir, c, spec):
        log.info(
            "nothing to do: the run is finished (iteration %d of %d)", iteration, spec.iterations
        )
        return _resumed(found, c, int(c["games"]), int(c.get("session", 0)), finished=True)

    # -- the checks passed: this process continues (or starts) the run
    _settle_writes(run_dir, spec.config_yaml)
    if found is not None:
        found = (_continue_from(run_dir / "checkpoints", found[0], iteration), found[1])
        _trim_metrics(run_dir / "metrics.jsonl", iteration)
        log.info(
            "resumed from %s (iteration %d, %d learner steps)",
            found[0],
            iteration,
            int(c["learner_steps"]),
        )
    replay, games, last_session = _open_replay(run_dir, spec, found)
    session = start_session(
        run_dir,
        max(int(c.get("session", -1)), last_session) + 1,
        {
            "resumed_from": None if found is None else found[0].name,
            "iteration": iteration,
            "learner_steps": int(c.get("learner_steps", 0)),
            "games": replay.num_games,
        },
    )
    return _resumed(found, c, games, session, replay=replay)


def _resumed(
    found: tuple[Path, Mapping[str, Any]] | None,
    c: Mapping[str, Any],
    games: int,
    session: int,
    finished: bool = False,
    replay: ReplayBuffer | None = None,
) -> Resumed:
    return Resumed(
        checkpoint=None if found is None else found[0],
        payload=None if found is None else found[1],
        iteration=int(c.get("iteration", 0)),
        learner_steps=int(c.get("learner_steps", 0)),
        games=games,
        positions=int(c.get("positions", 0)),
        session=session,
        wall_minutes=float(c.get("wall_minutes", 0.0)),
        cpu_minutes=float(c.get("cpu_minutes", 0.0)),
        finished=finished,
        replay=replay,
    )


def _checked_checkpoint(
    run_dir: Path, spec: RunSpec, device: str | torch.device
) -> tuple[Path, dict[str, Any]] | None:
    """The newest good checkpoint, checked against ``spec``; None when there is none.

    Without a checkpoint, ``config.yaml`` is checked; None is for a folder whose run never
    got past its start.
    """
    ckpt_dir = run_dir / "checkpoints"
    damaged: list[str] = []
    try:
        found = load_latest(ckpt_dir, map_location=device)
    except CheckpointError as err:
        found = None
        damaged = str(err).splitlines()[1:]
    if found is not None:
        check_checkpoint(
            found[0], found[1], spec.variant_spec, spec.encoding, spec.arch, spec.net_config
        )
        return found
    if (run_dir / "config.yaml").exists():
        check_config_file(run_dir / "config.yaml", spec.variant_spec, spec.model)
    # Games, metrics or evaluations without a checkpoint: the checkpoints were lost
    # (the first is written before the first game), not a run that never began.
    work = work_in(run_dir)
    bad = list_checkpoints(ckpt_dir)
    put_aside = sorted(ckpt_dir.glob("ckpt-*.pt.corrupt")) if ckpt_dir.is_dir() else []
    if work or any(_checkpoint_number(p) > 0 for p in bad + put_aside):
        refuse_without_checkpoint(run_dir, work, [d.strip() for d in damaged], put_aside)
    # Only the first checkpoint was cut short: nothing was trained or played yet.
    for p in bad:
        _set_aside_checkpoint(p)
    return None


def _is_finished(run_dir: Path, c: Mapping[str, Any], spec: RunSpec) -> bool:
    """Whether the run of a checkpoint with counters ``c`` has nothing left to do."""
    done = int(c["iteration"]) >= spec.iterations or (
        spec.max_minutes > 0 and float(c.get("wall_minutes", 0.0)) >= spec.max_minutes
    )
    return done and (
        not spec.final_eval or _final_eval_recorded(run_dir / "metrics.jsonl", c["iteration"])
    )


def _final_eval_recorded(path: Path, iteration: int) -> bool:
    """Whether ``metrics.jsonl`` holds the final evaluation of ``iteration``."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return False
    for line in lines:
        if json_count(line, "iteration") == iteration and any(
            key.startswith("final_eval/") for key in json.loads(line)
        ):
            return True
    return False


def _open_replay(
    run_dir: Path, spec: RunSpec, found: tuple[Path, Mapping[str, Any]] | None
) -> tuple[ReplayBuffer, int, int]:
    """The replay buffer, the games finished up to the checkpoint, and the sessions after it.

    The last is the highest session recorded in the games written after the checkpoint (-1:
    none).

    The sessions recorded in those games keep a deleted ``sessions.jsonl`` from making
    the session number go back and replay their seeds; their numbers (and the
    checkpoint's) keep a PDN whose shard was deleted from having its Rounds given again.
    """
    replay = ReplayBuffer(run_dir / "replay", spec.replay_window, int(spec.encoding["actions"]))
    c: Mapping[str, Any] = found[1]["counters"] if found is not None else {}
    ckpt_shards = int(c["shards"]) if "shards" in c else replay.num_shards
    after = sessions_after(run_dir, ckpt_shards)
    replay.num_shards = max(replay.num_shards, after.next_shard)  # never over an old file
    replay.next_game_index = max(
        replay.next_game_index, after.next_game_index, int(c.get("next_game_index", 0))
    )
    if found is None or "shards" not in c:
        return replay, int(c.get("games", 0)), after.session
    kept = sum(1 for p in replay.shard_paths() if int(p.name[6:-4]) < ckpt_shards)
    if kept < ckpt_shards:
        log.warning(
            "%s holds %d of the %d replay shards written before %s (%d missing, deleted "
            "or set aside): the learner trains on the %d positions found",
            run_dir / "replay",
            kept,
            ckpt_shards,
            found[0].name,
            ckpt_shards - kept,
            replay.num_positions,
        )
    # The games of the iteration in progress are those in the shards written after the
    # checkpoint (older shards deleted to free space do not count).
    games = replay.num_games - sum(
        load_shard(p).num_games for p in replay.shard_paths() if int(p.name[6:-4]) >= ckpt_shards
    )
    return replay, games, after.session


def resolve_run_dir(
    cfg: Config, runs_root: str | os.PathLike = "runs", job: int | None = None
) -> Path:
    """The run folder: ``cfg.run_dir``, the newest run of the variant, or a new folder.

    With no ``cfg.run_dir``: with ``resume`` the newest run of this variant under
    ``runs_root``; else a new ``runs_root/<variant>-<time>`` folder (``-<job>`` appended for
    the jobs of a Hydra multirun).

    Raises:
        FileNotFoundError: ``resume=true`` but no earlier run of this variant exists.
    """
    if cfg.run_dir:
        return Path(cfg.run_dir).expanduser()
    root = Path(runs_root)
    if cfg.resume:
        runs = sorted(
            (p for p in root.glob(f"{cfg.variant.name}-*") if p.is_dir()),
            key=lambda p: p.stat().st_mtime,
        )
        if not runs:
            raise FileNotFoundError(
                f"resume=true but there is no run of {cfg.variant.name} "
                f"under {root.resolve()}; pass run_dir=PATH"
            )
        return runs[-1]
    name = f"{cfg.variant.name}-{time.strftime('%Y%m%d-%H%M%S')}"
    return root / (name if job is None else f"{name}-{job}")
