"""A training run's folder: its layout, what it guarantees, and the code that keeps it.

One job per module:

- :mod:`~drl.train.run_folder.lock`: one training process at a time
  (:func:`lock_run_dir`, :class:`RunLock`);
- :mod:`~drl.train.run_folder.log`: the session log (:func:`start_session`) and the
  inventory of the work a folder holds (:func:`sessions_after`, :func:`work_in`);
- :mod:`~drl.train.run_folder.checks`: whether a configuration may continue what the
  folder holds (:func:`check_checkpoint`, :func:`check_config_file`,
  :func:`refuse_without_checkpoint`);
- :mod:`~drl.train.run_folder.repair`: repairs of what a kill cut short;
- :mod:`~drl.train.run_folder.open`: :func:`open_run`, the checks and then the run
  continued or started (:class:`RunSpec` in, :class:`Resumed` out), and
  :func:`resolve_run_dir`, which names the folder of a config.

Import the names from this package.

Run folder layout::

    .lock                the training process's pid and start time; it holds a lock on
                         the folder itself and on this file; one at a time
    config.yaml          resolved configuration (written once the folder's checks pass)
    sessions.jsonl       one line per start: session, pid, time, resumed-from checkpoint,
                         iteration, learner steps and games at the start
    checkpoints/         ckpt-<iteration>.pt + .sha256 (the newest K good ones;
                         ckpt-00000000.pt is the network before any training); damaged
                         ones set aside as *.corrupt
    replay/              shard-NNNNNN.npz, one per batch of finished games (and the
                         session that played them)
    games/               selfplay-NNNNNN.pdn, the games of shard NNNNNN as PDN
    eval/                evaluation results (JSON) and games (PDN)
    tb/                  TensorBoard scalars
    metrics.jsonl        one line of scalars per iteration (1, 2, ...), then the final
                         evaluation's; each iteration's line has the run's training time
                         so far, ``wall_minutes`` and ``cpu_minutes`` (this process and
                         its waited-for children), summed over sessions

What a run folder guarantees, however often the process is killed:

- Nothing saved is lost. A shard, its PDN and a checkpoint are written to a temporary
  name and renamed into place (the PDN's after its shard's, a checkpoint before its
  digest); a failed write removes its temporary file, and a start removes those a kill
  left. No file is removed or overwritten to make room: shards and games are numbered
  past every shard, PDN and game number found, so a PDN whose shard was deleted stays.
  Every iteration plays exactly ``games_per_iteration`` games: games finished after the
  newest good checkpoint are in the replay folder and count towards the iteration in
  progress, so a kill loses only the games in flight, and a finished run holds
  ``iterations * games_per_iteration`` games.
- Games are numbered 0, 1, ... in shard order with no gap or repeat (``game_index`` in
  the shards, ``Round`` = index + 1 in the PDN); a game gets its number when it is
  written, not when it starts.
- No game is played twice. Self-play of iteration ``i`` in session ``s`` (the number of
  the start: one past every session in ``sessions.jsonl``, the checkpoint and the shards
  and PDNs written after it, 0 for a run never interrupted) is seeded with ``[seed, i,
  s, 0]`` and the learner with ``[seed, i, s, 1]``, so a restart that replays an
  iteration with the same network draws other games; an uninterrupted run is
  reproducible.
- The iteration and learner-step counters never go back: a run continues from its newest
  good checkpoint, metrics lines of iterations after it (work that is redone) are
  dropped, and a damaged newer checkpoint is reported and set aside as ``*.corrupt``.
- A folder is continued only by its own run: a second process is refused while one holds
  the lock (deleting ``.lock`` does not free the folder); a config of another variant,
  encoding or network than the checkpoint (or, without one, ``config.yaml``) is refused
  before anything is written; a folder with replay data, games, metrics, evaluations or
  damaged checkpoints but no good checkpoint is refused instead of being trained afresh
  (the first checkpoint is written before the first game, so such a folder has lost its
  checkpoints). A finished run (its final evaluation recorded) started again does
  nothing. Iterations, evaluation, threads, progress and device may change from one
  start to the next.
"""

from drl.train.run_folder.checks import (
    check_checkpoint,
    check_config_file,
    encoding_of,
    refuse_without_checkpoint,
)
from drl.train.run_folder.lock import LOCK_NAME, RunFolderError, RunLock, lock_run_dir
from drl.train.run_folder.log import (
    SESSIONS_NAME,
    GamesFound,
    sessions_after,
    start_session,
    work_in,
)
from drl.train.run_folder.open import Resumed, RunSpec, open_run, resolve_run_dir

__all__ = [
    "GamesFound",
    "LOCK_NAME",
    "Resumed",
    "RunFolderError",
    "RunLock",
    "RunSpec",
    "SESSIONS_NAME",
    "check_checkpoint",
    "check_config_file",
    "encoding_of",
    "lock_run_dir",
    "open_run",
    "refuse_without_checkpoint",
    "resolve_run_dir",
    "sessions_after",
    "start_session",
    "work_in",
]
