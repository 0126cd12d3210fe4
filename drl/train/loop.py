"""The training loop: self-play -> replay buffer -> learner -> checkpoint -> evaluation.

It reads top to bottom and calls tested pieces: :class:`~drl.train.selfplay.SelfPlayActor`
(through a runtime), :class:`~drl.train.buffer.ReplayBuffer`,
:func:`~drl.train.learner.train_step`, :mod:`drl.nn.checkpoint`,
:mod:`drl.train.run_folder` and :mod:`drl.train.evaluate`.

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

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import torch
from omegaconf import OmegaConf

from drl._atomic import remove_partials, set_aside, write_atomic
from drl._system import usable_cpus
from drl.encode.dims import encoding as encoding_of_size
from drl.eval.arena import write_pdn
from drl.nn import NetworkEvaluator, PolicyValueModel, TrainingDiverged, build, describe
from drl.nn.checkpoint import (
    CheckpointError,
    list_checkpoints,
    load_checkpoint,
    load_latest,
    save_checkpoint,
)
from drl.rules import Variant
from drl.train.buffer import GameBatch, ReplayBuffer, load_shard
from drl.train.config import (
    Config,
    EvalCfg,
    loss_config,
    network_config,
    search_config,
    selfplay_config,
    validate,
)
from drl.train.evaluate import (
    EVALUATION_SETTINGS,
    BaselineResult,
    elo_for_log,
    evaluate_against,
    preflight_evaluations,
)
from drl.train.learner import check_network, train_step
from drl.train.run_folder import (
    RunFolderError,
    RunLock,
    check_checkpoint,
    check_config_file,
    json_count,
    lock_run_dir,
    refuse_without_checkpoint,
    sessions_after,
    start_session,
    work_in,
)
from drl.train.runtime import make_runtime
from drl.train.selfplay import SelfPlayStats, renumber_games

__all__ = ["TrainResult", "build_network", "run_variants", "train"]

log = logging.getLogger(__name__)


@dataclass
class TrainResult:
    """What a training run ends with.

    Attributes:
        run_dir: the run folder.
        iterations: iterations completed (over all sessions of the run).
        learner_steps: learner steps completed (over all sessions).
        games: self-play games in the replay folder.
        positions: positions in the replay folder.
        checkpoint: the last checkpoint written (or resumed from).
        resumed_from: the checkpoint this session started from, if any.
        final_eval: results of the final evaluation (empty if switched off).
        session: this session's number in the run (0 for the first start).
        finished_before: the run was already finished (its iterations done and its final
            evaluation recorded): nothing was played, trained or written.
    """

    run_dir: Path
    iterations: int
    learner_steps: int
    games: int
    positions: int
    checkpoint: Path | None
    resumed_from: Path | None = None
    final_eval: list[BaselineResult] = field(default_factory=list)
    session: int = 0
    finished_before: bool = False


def run_variants(cfg: Config) -> list[Variant]:
    """The variants self-play alternates between (both Taker colours in Give and Take)."""
    v = Variant.parse(cfg.variant.spec)
    if v.is_asymmetric and cfg.variant.alternate_roles:
        return [v.with_taker("black"), v.with_taker("white")]
    return [v]


def build_network(cfg: Config, board_size: int) -> PolicyValueModel:
    """The network of ``cfg.model`` (architecture ``cfg.model.arch``) for a board size.

    Raises:
        ValueError: unknown architecture or a config its class rejects.
    """
    arch, fields = network_config(cfg, board_size)
    return build(arch, **fields)


def _device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("device=cuda but torch sees no CUDA device; use device=cpu")
    return torch.device(name)


def _cpu_seconds() -> float:
    """CPU time of this process and of its children that have been waited for."""
    t = os.times()
    return time.process_time() + t.children_user + t.children_system


class _Clock:
    """The run's training time: this session's since it started plus the earlier
    sessions' (from the checkpoint's counters), in minutes."""

    def __init__(self, wall_minutes: float = 0.0, cpu_minutes: float = 0.0) -> None:
        self.wall0, self.cpu0 = wall_minutes, cpu_minutes
        self.start_wall, self.start_cpu = time.perf_counter(), _cpu_seconds()

    def wall_minutes(self) -> float:
        return self.wall0 + (time.perf_counter() - self.start_wall) / 60.0

    def cpu_minutes(self) -> float:
        return self.cpu0 + (_cpu_seconds() - self.start_cpu) / 60.0


def _write_text_atomic(path: Path, text: str) -> None:
    write_atomic(path, text)


def _optimizer(cfg: Config, net: PolicyValueModel) -> torch.optim.Optimizer:
    t = cfg.train
    if t.optimizer == "sgd":
        return torch.optim.SGD(
            net.parameters(),
            lr=t.lr,
            momentum=t.momentum,
            weight_decay=t.weight_decay,
            nesterov=True,
        )
    return torch.optim.AdamW(net.parameters(), lr=t.lr, weight_decay=t.weight_decay)


class _Logger:
    """TensorBoard scalars (optional) and metrics.jsonl."""

    def __init__(self, run_dir: Path, tensorboard: bool) -> None:
        self.writer = None
        if tensorboard:
            from torch.utils.tensorboard import SummaryWriter

            self.writer = SummaryWriter(str(run_dir / "tb"))
        self.jsonl = run_dir / "metrics.jsonl"

    def log(self, step: int, scalars: dict[str, float]) -> None:
        if self.writer is not None:
            for k, v in scalars.items():
                self.writer.add_scalar(k, v, step)
            self.writer.flush()
        with open(self.jsonl, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"iteration": step, **scalars}) + "\n")

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def _selfplay_scalars(st: SelfPlayStats, net_seconds: float, in_flight: int) -> dict[str, float]:
    secs = max(st.seconds, 1e-9)
    out = {
        "selfplay/games": st.games,
        "selfplay/positions_per_s": st.positions / secs,
        "selfplay/sims_per_s": st.simulations / secs,
        "selfplay/evals_per_s": st.leaf_evals / secs,
        "selfplay/game_length": float(np.mean(st.game_plies)) if st.game_plies else 0.0,
        "selfplay/target_entropy": st.target_entropy,
    }
    if st.net_batches:  # a network called with batches of planes (not inside the search)
        out["selfplay/batch_fill"] = st.leaf_evals / (st.net_batches * in_flight)
        out["selfplay/net_time_fraction"] = net_seconds / secs
    out.update({f"outcome/{k}": v for k, v in st.outcome_mix().items()})
    return out


def _eval_scalars(results: list[BaselineResult], prefix: str) -> dict[str, float]:
    out = {}
    for r in results:
        for key, w in r.summary.items():
            out[f"{prefix}/{r.baseline}/{key}/score"] = w.score
        out[f"{prefix}/{r.baseline}/elo"] = elo_for_log(r.summary["all"])
    return out


def _save_eval(run_dir: Path, tag: str, results: list[BaselineResult]) -> None:
    d = run_dir / "eval"
    d.mkdir(parents=True, exist_ok=True)
    data = {r.baseline: {k: w.to_dict() for k, w in r.summary.items()} for r in results}
    _write_text_atomic(d / f"{tag}.json", json.dumps(data, indent=2))
    for r in results:
        safe = "".join(c if c.isalnum() else "_" for c in r.baseline)
        write_pdn(r.records, d / f"{tag}-{safe}.pdn")


def _evaluate(
    cfg: Config, net: PolicyValueModel, device: torch.device, ev: EvalCfg, seed: int
) -> list[BaselineResult]:
    if ev.games < 1 or not ev.baselines:
        return []
    evaluator = NetworkEvaluator(net, device)
    return evaluate_against(
        evaluator,
        search_config(cfg, ev.simulations),
        list(ev.baselines),
        cfg.variant.spec,
        ev.games,
        settings=replace(
            EVALUATION_SETTINGS, openings=ev.openings, seed=seed, max_plies=ev.max_plies
        ),
    )


def _diverged_in_run(
    err: TrainingDiverged, iteration: int, checkpoint: Path | None
) -> TrainingDiverged:
    """``err`` with where it happened in the run and how to go on."""
    if err.step is None:  # in self-play: the network the iteration started with
        if checkpoint is None:
            how = "The freshly built network gives non-finite outputs"
        else:
            how = (
                f"The network of {checkpoint} gives non-finite outputs; rename it to "
                f"{checkpoint.name}.corrupt to go on from the checkpoint before it"
            )
    elif checkpoint is None:
        how = f"Nothing was checkpointed in iteration {iteration} or before it"
    else:
        how = (
            f"Nothing of iteration {iteration} was checkpointed: {checkpoint.name} is "
            "still the newest checkpoint, and a run in the same run_dir goes on from it"
        )
    return TrainingDiverged(
        f"iteration {iteration}: {err}. {how}", what=err.what, step=err.step, lr=err.lr
    )


def _checkpoint_number(path: Path) -> int:
    """The number in ``ckpt-<number>.pt`` (also of ``ckpt-<number>.pt.corrupt``)."""
    return int(path.name.split("-", 1)[1].split(".", 1)[0])


def _set_aside(path: Path) -> None:
    log.warning("setting damaged checkpoint %s aside as %s.corrupt", path, path.name)
    set_aside(path, overwrite=True)


def _number_by_iteration(directory: Path) -> None:
    """Give checkpoints named by learner steps (the naming of earlier versions) the
    iteration names, so that the newest is again the largest number. Hard links first,
    then the old names go: a kill leaves both names of a good checkpoint, never none."""
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
    """Drop the metrics lines of iterations after ``iteration`` (redone from there) and
    lines cut short by a kill."""
    if not path.exists():
        return
    keep, dropped = [], 0
    for line in path.read_text(encoding="utf-8").splitlines():
        if 0 <= json_count(line, "iteration") <= iteration:
            keep.append(line + "\n")
        else:
            dropped += 1
    if dropped:
        _write_text_atomic(path, "".join(keep))


def _settle_pdns(games_dir: Path, replay_dir: Path) -> None:
    """Finish or remove the PDN writes a kill cut short. A shard's PDN is renamed into
    place only after the shard is: a ``selfplay-N.pdn.tmp`` whose shard N was written is
    complete and is renamed into place; one without its shard is of games never saved
    and is removed. A PDN in place is never removed (its shard was written; if the shard
    is gone, the PDN is the only record of its games)."""

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


def train(cfg: Config, run_dir: str | os.PathLike, progress: bool | None = None) -> TrainResult:
    """Train (or continue training) in ``run_dir``; see the module's docstring for what a
    run folder guarantees.

    Args:
        cfg: the configuration (validated here).
        run_dir: the run folder; created if missing, continued if it holds a checkpoint.
        progress: show a progress bar (default ``cfg.progress``).

    Returns:
        :class:`TrainResult`.

    Raises:
        ValueError: invalid configuration, or a run folder of another variant, position
            encoding or network (architecture, board size or size fields) than ``cfg``;
            the message names both values; or an evaluation baseline that cannot be
            built or does not start (checked before the folder is touched).
        CheckpointError: the run folder has replay data or damaged checkpoints but no good
            checkpoint.
        RunFolderError: the run folder cannot be created or written, or another process
            is training in it.
        TrainingDiverged: a loss, the gradients or the network's outputs became NaN or
            infinite, or the loss exploded (``drl.train.learner.DIVERGED_LOSS_FACTOR``);
            nothing of that iteration is checkpointed, so the run folder
            resumes from the last good checkpoint (the message says which).
    """
    validate(cfg)
    preflight_evaluations(cfg)  # engines start, checkpoints load: before the folder
    with lock_run_dir(run_dir) as lock:
        return _train(cfg, lock.run_dir, progress, lock)


def _train(
    cfg: Config, run_dir: Path, progress: bool | None, lock: RunLock | None = None
) -> TrainResult:
    t = cfg.train
    clock = _Clock()
    torch.set_num_threads(cfg.threads if cfg.threads > 0 else usable_cpus())
    torch.manual_seed(cfg.seed)
    device = _device(cfg.device)

    variants = run_variants(cfg)
    board_size = variants[0].board_size
    enc = encoding_of_size(board_size)
    n_actions, encoding = enc.actions, enc.as_dict()
    net = build_network(cfg, board_size).to(device)
    optimizer = _optimizer(cfg, net)
    want = describe(net)
    ckpt_dir = run_dir / "checkpoints"
    config_file = run_dir / "config.yaml"

    # -- what the folder holds, checked before anything is written -----------------------
    damaged: list[str] = []
    try:
        found = load_latest(ckpt_dir, map_location=device)
    except CheckpointError as err:
        found = None
        damaged = str(err).splitlines()[1:]
    if found is not None:
        check_checkpoint(
            found[0], found[1], cfg.variant.spec, encoding, want["arch"], want["net_config"]
        )
    elif config_file.exists():
        model = OmegaConf.to_container(OmegaConf.structured(cfg.model))
        check_config_file(config_file, cfg.variant.spec, model)  # type: ignore[arg-type]
    if found is None:
        # Games, metrics or evaluations without a checkpoint: the checkpoints were lost
        # (the first is written before the first game), not a run that never began.
        work = work_in(run_dir)
        bad = list_checkpoints(ckpt_dir)
        set_aside = sorted(ckpt_dir.glob("ckpt-*.pt.corrupt")) if ckpt_dir.is_dir() else []
        if work or any(_checkpoint_number(p) > 0 for p in bad + set_aside):
            refuse_without_checkpoint(run_dir, work, [d.strip() for d in damaged], set_aside)
        # Only the first checkpoint was cut short: nothing was trained or played yet.
        for p in bad:
            _set_aside(p)

    # -- the checks passed: this process continues (or starts) the run -------------------
    if found is not None:
        c = found[1]["counters"]
        done = int(c["iteration"]) >= t.iterations or (
            t.max_minutes > 0 and float(c.get("wall_minutes", 0.0)) >= t.max_minutes
        )
        evaluated = t.final_eval.games < 1 or not t.final_eval.baselines
        if done and (evaluated or _final_eval_recorded(run_dir / "metrics.jsonl", c["iteration"])):
            log.info(
                "nothing to do: the run is finished (iteration %d of %d)",
                c["iteration"],
                t.iterations,
            )
            return TrainResult(
                run_dir=run_dir,
                iterations=int(c["iteration"]),
                learner_steps=int(c["learner_steps"]),
                games=int(c["games"]),
                positions=int(c.get("positions", 0)),
                checkpoint=found[0],
                resumed_from=found[0],
                session=int(c.get("session", 0)),
                finished_before=True,
            )
    # Writes cut short by a kill or a full disk, before this start writes anything.
    for d in (run_dir, ckpt_dir, run_dir / "replay", run_dir / "eval"):
        remove_partials(d)
    if (run_dir / "games").is_dir():
        _settle_pdns(run_dir / "games", run_dir / "replay")
    config_text = OmegaConf.to_yaml(OmegaConf.structured(cfg))
    try:
        _write_text_atomic(config_file, config_text)
        (run_dir / "games").mkdir(exist_ok=True)
    except OSError as err:
        raise RunFolderError(f"cannot write in run folder {run_dir}: {err}") from None
    iteration, learner_steps, games_at_ckpt, last_session = 0, 0, 0, -1
    resumed_from = None
    if found is not None:
        resumed_from, payload = found
        for p in list_checkpoints(ckpt_dir):
            if _checkpoint_number(p) > _checkpoint_number(resumed_from):
                _set_aside(p)
        c = payload["counters"]
        iteration, learner_steps, games_at_ckpt = c["iteration"], c["learner_steps"], c["games"]
        last_session = int(c.get("session", -1))
        clock = _Clock(float(c.get("wall_minutes", 0.0)), float(c.get("cpu_minutes", 0.0)))
        if _checkpoint_number(resumed_from) != iteration:
            _number_by_iteration(ckpt_dir)
            resumed_from = ckpt_dir / f"ckpt-{iteration:08d}.pt"
        net.load_state_dict(payload["model"])
        optimizer.load_state_dict(payload["optimizer"])
        for group in optimizer.param_groups:  # this session's settings, not the checkpoint's
            group.update(_optimizer(cfg, net).defaults)
        torch.set_rng_state(payload["rng"]["torch"].cpu())
        _trim_metrics(run_dir / "metrics.jsonl", iteration)
        log.info(
            "resumed from %s (iteration %d, %d learner steps)",
            resumed_from,
            iteration,
            learner_steps,
        )
    buffer = ReplayBuffer(run_dir / "replay", t.replay_window, n_actions)
    # What the games written since the checkpoint record: the sessions that played them
    # (so that a deleted sessions.jsonl cannot make the session number go back and replay
    # their seeds) and their numbers (a PDN whose shard was deleted keeps its Rounds).
    ckpt_shards = int(c["shards"]) if found is not None and "shards" in c else buffer.num_shards
    after = sessions_after(run_dir, ckpt_shards)
    buffer.num_shards = max(buffer.num_shards, after.next_shard)  # never over an old file
    buffer.next_game_index = max(
        buffer.next_game_index,
        after.next_game_index,
        int(c.get("next_game_index", 0)) if found is not None else 0,
    )
    if found is not None and "shards" in c:
        missing = int(c["shards"]) - sum(
            1 for p in buffer.shard_paths() if int(p.name[6:-4]) < int(c["shards"])
        )
        if missing > 0:
            log.warning(
                "%s holds %d of the %d replay shards written before %s (%d missing, deleted "
                "or set aside): the learner trains on the %d positions found",
                run_dir / "replay",
                int(c["shards"]) - missing,
                int(c["shards"]),
                resumed_from.name if resumed_from is not None else "the checkpoint",
                missing,
                buffer.num_positions,
            )
        # The games of the iteration in progress are those in the shards written after
        # the checkpoint (older shards deleted to free space do not count).
        games_at_ckpt = buffer.num_games - sum(
            load_shard(p).num_games
            for p in buffer.shard_paths()
            if int(p.name[6:-4]) >= ckpt_shards
        )
    session = start_session(
        run_dir,
        max(last_session, after.session) + 1,
        {
            "resumed_from": None if resumed_from is None else resumed_from.name,
            "iteration": iteration,
            "learner_steps": learner_steps,
            "games": buffer.num_games,
        },
    )

    def save(it: int) -> Path:
        if lock is not None:
            lock.check()
        return save_checkpoint(
            ckpt_dir,
            it,
            {
                "model": net.state_dict(),
                "optimizer": optimizer.state_dict(),
                **describe(net),
                "encoding": encoding,
                "counters": {
                    "iteration": it,
                    "learner_steps": learner_steps,
                    "games": buffer.num_games,
                    "positions": buffer.num_positions,
                    "shards": buffer.num_shards,
                    "next_game_index": buffer.next_game_index,
                    "session": session,
                    "wall_minutes": clock.wall_minutes(),
                    "cpu_minutes": clock.cpu_minutes(),
                },
                "rng": {"torch": torch.get_rng_state(), "seed": cfg.seed},
                "variant": cfg.variant.spec,
                "config_yaml": config_text,
            },
            keep=t.keep_checkpoints,
        )

    checkpoint = resumed_from
    if checkpoint is None:
        checkpoint = save(0)  # before any game: replay data always has a checkpoint
    runtime = make_runtime(
        cfg.runtime.name,
        variants,
        search_config(cfg),
        selfplay_config(cfg),
        net,
        device,
        cfg.seed,
        cfg.runtime.actors,
        cfg.runtime.address,
        cfg.runtime.cpus_per_actor,
    )
    runtime.set_next_game_index(buffer.next_game_index)
    loss_cfg = loss_config(cfg)
    logger = _Logger(run_dir, cfg.tensorboard)

    def on_games(batch: GameBatch, pdns: list[str]) -> None:
        if lock is not None:
            lock.check()
        # The buffer's game count is the one numbering of the run's games.
        batch, pdns = renumber_games(batch, pdns, buffer.next_game_index, session=session)
        # The PDN goes into place after its shard: a PDN in place always has its shard.
        pdn = run_dir / "games" / f"selfplay-{buffer.num_shards:06d}.pdn"
        tmp = write_atomic(pdn, "".join(pdns), rename=False)
        try:
            buffer.add(batch, {"session": np.array(session, np.int64)})
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        os.replace(tmp, pdn)

    from tqdm.auto import tqdm

    show = cfg.progress if progress is None else progress
    # With a time budget the iteration cap is rarely what ends the run: the bar then counts
    # games without a total (no hours-long ETA) and its postfix shows the budget used.
    planned = t.iterations * t.games_per_iteration
    bar = tqdm(
        total=None if t.max_minutes > 0 else planned,
        unit="game",
        disable=not show,
        desc=f"{cfg.variant.name}",
        dynamic_ncols=True,
    )
    bar.update(min(iteration * t.games_per_iteration, planned))

    def postfix(**extra: str) -> None:
        if t.max_minutes > 0:
            extra["budget"] = f"{clock.wall_minutes():.1f}/{t.max_minutes:g} min"
        bar.set_postfix(refresh=False, **extra)

    postfix()

    def out_of_time(minutes: float) -> bool:
        if t.max_minutes > 0 and minutes >= t.max_minutes:
            log.info("training time budget of %g min reached", t.max_minutes)
            return True
        return False

    # Checked after each iteration, and at the start against the earlier sessions' time.
    spent = out_of_time(clock.wall0)
    try:
        while iteration < t.iterations and not spent:
            # Games finished after the last checkpoint belong to this iteration already.
            done_before = max(0, buffer.num_games - games_at_ckpt)
            todo = t.games_per_iteration - done_before
            bar.update(min(done_before, t.games_per_iteration))
            scalars: dict[str, float] = {}
            t_sp = time.perf_counter()
            if todo > 0:
                base = bar.n

                def advance_bar(k: int, base: int = base) -> None:  # k games of this call done
                    bar.update(base + k - bar.n)

                st = runtime.play(
                    net,
                    todo,
                    [cfg.seed, iteration, session, 0],
                    on_games,
                    t.shard_games,
                    advance_bar,
                )
                scalars.update(_selfplay_scalars(st, runtime.net_seconds, t.games_in_flight))
            scalars["time/selfplay_s"] = time.perf_counter() - t_sp
            scalars["replay/positions"] = buffer.num_positions
            scalars["replay/games"] = buffer.num_games
            if len(buffer) >= t.min_replay and t.steps_per_iteration > 0:
                rng = np.random.default_rng([cfg.seed, iteration, session, 1])
                sums: dict[str, float] = {}
                t0 = time.perf_counter()
                for _ in range(t.steps_per_iteration):
                    batch = buffer.sample(t.batch_size, rng, n_actions)
                    out = train_step(net, optimizer, batch, loss_cfg, device, learner_steps + 1)
                    for k, v in out.items():
                        sums[k] = sums.get(k, 0.0) + v
                    learner_steps += 1
                # before it is saved, on the last batch: finite outputs, a loss not exploded
                check_network(
                    net, batch.obs, device, learner_steps, t.lr, batch=batch, loss=loss_cfg
                )
                scalars.update({f"loss/{k}": v / t.steps_per_iteration for k, v in sums.items()})
                scalars["time/learner_s"] = time.perf_counter() - t0
                scalars["learner/steps_per_s"] = t.steps_per_iteration / scalars["time/learner_s"]
                postfix(loss=f"{scalars['loss/loss']:.3f}")
            scalars["learner/steps"] = learner_steps
            iteration += 1
            games_at_ckpt = buffer.num_games
            if t.eval.every > 0 and iteration % t.eval.every == 0 and iteration < t.iterations:
                t_ev = time.perf_counter()
                results = _evaluate(cfg, net, device, t.eval, cfg.seed + iteration)
                scalars.update(_eval_scalars(results, "eval"))
                scalars["time/eval_s"] = time.perf_counter() - t_ev
                _save_eval(run_dir, f"iter-{iteration:04d}", results)
            scalars["wall_minutes"] = clock.wall_minutes()
            scalars["cpu_minutes"] = clock.cpu_minutes()
            # The line goes first: a kill before the checkpoint redoes the iteration, and
            # the next start drops the line again.
            logger.log(iteration, scalars)
            checkpoint = save(iteration)
            spent = out_of_time(scalars["wall_minutes"])
    except TrainingDiverged as err:
        raise _diverged_in_run(err, iteration + 1, checkpoint) from err
    finally:
        bar.close()
        runtime.close()
    t_ev = time.perf_counter()
    final = _evaluate(cfg, net, device, t.final_eval, cfg.seed + 10_000)
    if final:
        _save_eval(run_dir, "final", final)
        logger.log(
            iteration,
            {**_eval_scalars(final, "final_eval"), "time/final_eval_s": time.perf_counter() - t_ev},
        )
    logger.close()
    return TrainResult(
        run_dir=run_dir,
        iterations=iteration,
        learner_steps=learner_steps,
        games=buffer.num_games,
        positions=buffer.num_positions,
        checkpoint=checkpoint,
        resumed_from=resumed_from,
        final_eval=final,
        session=session,
    )


def resolve_run_dir(
    cfg: Config, runs_root: str | os.PathLike = "runs", job: int | None = None
) -> Path:
    """The run folder: ``cfg.run_dir``; else with ``resume`` the newest run of this
    variant under ``runs_root``; else a new ``runs_root/<variant>-<time>`` folder
    (``-<job>`` appended for the jobs of a Hydra multirun).

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


__all__ += ["CheckpointError", "RunFolderError", "resolve_run_dir"]
