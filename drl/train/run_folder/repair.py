"""Repairs of what a kill cut short, made when a run is continued.

Partial writes are removed (a shard's PDN finished from its shard where only the PDN
was cut short), the checkpoint to continue from becomes the newest (newer damaged ones
are set aside as ``*.corrupt``, the others renumbered by iteration), and the metrics of
iterations after it, work that is redone, are dropped.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

from drl._atomic import remove_partials, set_aside, write_atomic
from drl.nn.checkpoint import CheckpointError, list_checkpoints, load_checkpoint

if TYPE_CHECKING:
    pass
from drl.train.run_folder.lock import RunFolderError
from drl.train.run_folder.log import json_count

__all__ = []

log = logging.getLogger(__name__)


def _settle_writes(run_dir: Path, config_yaml: str) -> None:
    """Clear the writes a kill or a full disk cut short, then write ``config.yaml``.

    The cut writes are removed (or completed); ``games/`` is made.
    """
    for d in (run_dir, run_dir / "checkpoints", run_dir / "replay", run_dir / "eval"):
        remove_partials(d)
    if (run_dir / "games").is_dir():
        _settle_pdns(run_dir / "games", run_dir / "replay")
    try:
        write_atomic(run_dir / "config.yaml", config_yaml)
        (run_dir / "games").mkdir(exist_ok=True)
    except OSError as err:
        raise RunFolderError(f"cannot write in run folder {run_dir}: {err}") from None


def _settle_pdns(games_dir: Path, replay_dir: Path) -> None:
    """Finish or remove the PDN writes a kill cut short.

    A shard's PDN is renamed into place only after the shard is: a ``selfplay-N.pdn.tmp``
    whose shard N was written is complete and is renamed into place; one without its shard
    is of games never saved and is removed. A PDN in place is never removed (its shard was
    written; if the shard is gone, the PDN is the only record of its games).
    """

    def shard_written(tmp: Path) -> bool:
        stem = tmp.name[: -len(".pdn.tmp")]
        if not (stem.startswith("selfplay-") and tmp.name.endswith(".pdn.tmp")):
            return False
        shard = replay_dir / f"shard-{stem.split('-', 1)[1]}.npz"
        done = shard.exists() or any(replay_dir.glob(shard.name + ".*corrupt"))
        return done and not games_dir.joinpath(stem + ".pdn").exists()

    for tmp in sorted(games_dir.glob("selfplay-*.pdn.tmp")):
        if shard_written(tmp):
            os.replace(tmp, tmp.with_name(tmp.name[: -len(".tmp")]))
            log.info("completed %s (its shard was written before a kill)", tmp.name[:-4])
    remove_partials(games_dir)


def _checkpoint_number(path: Path) -> int:
    """The number in ``ckpt-<number>.pt`` (also of ``ckpt-<number>.pt.corrupt``)."""
    return int(path.name.split("-", 1)[1].split(".", 1)[0])


def _set_aside_checkpoint(path: Path) -> None:
    log.warning("setting damaged checkpoint %s aside as %s.corrupt", path, path.name)
    set_aside(path, overwrite=True)


def _continue_from(ckpt_dir: Path, checkpoint: Path, iteration: int) -> Path:
    """Set aside the checkpoints newer than ``checkpoint`` and name the rest by iteration.

    The newer ones are damaged (``checkpoint`` is the newest good one). Returns
    ``checkpoint``'s name after the renaming.
    """
    for p in list_checkpoints(ckpt_dir):
        if _checkpoint_number(p) > _checkpoint_number(checkpoint):
            _set_aside_checkpoint(p)
    if _checkpoint_number(checkpoint) != iteration:
        _number_by_iteration(ckpt_dir)
        checkpoint = ckpt_dir / f"ckpt-{iteration:08d}.pt"
    return checkpoint


def _number_by_iteration(directory: Path) -> None:
    """Rename checkpoints named by learner steps (earlier versions) by iteration.

    So the newest is again the largest number. Hard links first, then the old names go: a
    kill leaves both names of a good checkpoint, never none.
    """
    for p in list_checkpoints(directory):
        try:
            it = int(load_checkpoint(p)["counters"]["iteration"])
        except (CheckpointError, KeyError, TypeError, ValueError):
            continue
        target = p.with_name(f"ckpt-{it:08d}.pt")
        if target == p:
            continue
        digest, new_digest = (q.with_name(q.name + ".sha256") for q in (p, target))
        if target.exists() and not os.path.samefile(p, target):
            os.replace(p, p.with_name(p.name + ".old"))  # out of the way of the ordering
            digest.unlink(missing_ok=True)
            continue
        if not target.exists():
            os.link(p, target)
        if not new_digest.exists():
            os.link(digest, new_digest)
        digest.unlink()
        p.unlink()
        log.info("renamed checkpoint %s to %s (numbered by iteration)", p.name, target.name)


def _trim_metrics(path: Path, iteration: int) -> None:
    """Drop the metrics lines of iterations after ``iteration`` and lines cut short by a kill.

    The iterations after ``iteration`` are redone from there.
    """
    if not path.exists():
        return
    keep, dropped = [], 0
    for line in path.read_text(encoding="utf-8").splitlines():
        if 0 <= json_count(line, "iteration") <= iteration:
            keep.append(line + "\n")
        else:
            dropped += 1
    if dropped:
        write_atomic(path, "".join(keep))
