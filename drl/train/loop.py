"""The training loop: self-play -> replay buffer -> learner -> checkpoint -> evaluation.

It reads top to bottom and calls tested pieces: :class:`~drl.train.selfplay.SelfPlayActor`
(through a runtime), :class:`~drl.train.buffer.ReplayBuffer`,
:func:`~drl.train.learner.train_step`, :mod:`drl.nn.checkpoint`,
:mod:`drl.train.run_folder` and :mod:`drl.train.evaluate`.

The run folder's layout and what it guarantees, however often the process is killed, are
in :mod:`drl.train.run_folder`.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import torch

from drl._atomic import write_atomic
from drl._system import usable_cpus
from drl.encode import encoding
from drl.nn import NetworkEvaluator, PolicyValueModel, TrainingDiverged, build, describe
from drl.nn.checkpoint import CheckpointError, save_checkpoint
from drl.rules import Variant
from drl.train.buffer import GameBatch, ReplayBuffer
from drl.train.config import (
    Config,
    LoopCfg,
    TrainEvalCfg,
    TrainSettings,
    network_config,
    train_settings,
    variants_of,
)
from drl.train.evaluate import (
    EVALUATION_SETTINGS,
    BaselineResult,
    evaluate_against,
    evaluate_spec_against,
    preflight_evaluations,
)
from drl.train.learner import check_network, train_step
from drl.train.metrics import Clock as _Clock
from drl.train.metrics import Logger as _Logger
from drl.train.metrics import eval_scalars as _eval_scalars
from drl.train.metrics import save_eval as _save_eval
from drl.train.metrics import selfplay_scalars as _selfplay_scalars
from drl.train.metrics import time_shares
from drl.train.progress import Progress
from drl.train.run_folder import (
    Resumed,
    RunFolderError,
    RunLock,
    RunSpec,
    lock_run_dir,
    open_run,
)
from drl.train.runtime import LocalRuntime, RayRuntime, make_runtime
from drl.train.selfplay import renumber_games

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

    def __repr__(self) -> str:
        """One line: the counts, the checkpoint and each baseline's score (no games)."""
        scores = ", ".join(
            f"{r.baseline}: {r.summary['all'].score:.2f}"
            for r in self.final_eval
            if "all" in r.summary
        )
        return (
            f"TrainResult(run_dir='{self.run_dir}', iterations={self.iterations}, "
            f"games={self.games}, learner_steps={self.learner_steps}, "
            f"checkpoint='{self.checkpoint}'" + (f", final_eval=[{scores}]" if scores else "") + ")"
        )


def run_variants(cfg: Config) -> list[Variant]:
    """The variants self-play alternates between (both Taker colours in Give and Take).

    See :func:`drl.train.config.variants_of`.
    """
    return list(variants_of(cfg.variant))


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


def _optimizer(loop: LoopCfg, net: PolicyValueModel) -> torch.optim.Optimizer:
    if loop.optimizer == "sgd":
        return torch.optim.SGD(
            net.parameters(),
            lr=loop.lr,
            momentum=loop.momentum,
            weight_decay=loop.weight_decay,
            nesterov=True,
        )
    return torch.optim.AdamW(net.parameters(), lr=loop.lr, weight_decay=loop.weight_decay)


def _restore(
    net: PolicyValueModel, optimizer: torch.optim.Optimizer, found: Resumed, loop: LoopCfg
) -> None:
    """Load the state of the checkpoint the run continues from.

    The optimiser keeps this session's settings (``lr``, ``weight_decay``, ``momentum``),
    not the checkpoint's.
    """
    assert found.payload is not None
    net.load_state_dict(found.payload["model"])
    optimizer.load_state_dict(found.payload["optimizer"])
    for group in optimizer.param_groups:
        group.update(_optimizer(loop, net).defaults)
    torch.set_rng_state(found.payload["rng"]["torch"].cpu())


def _evaluate(run: _Run, ev: TrainEvalCfg, seed: int, final: bool) -> list[BaselineResult]:
    """The run's agent against ``ev``'s baselines.

    The agent is the network with MCTS (AlphaZero), or
    ``alphabeta:ckpt=<checkpoint>,depth=<minimax.depth>`` (minimax self-play). The final
    evaluation plays the run's last checkpoint; one during training plays the network as
    it is, saved to a scratch checkpoint for the searcher (the results name the checkpoint
    the iteration then writes with the same weights). The games are spread over the
    run's ``threads`` processes (every usable core with ``threads=0``).
    """
    s = run.s
    if ev.games < 1 or not ev.baselines:
        return []
    settings = replace(
        EVALUATION_SETTINGS,
        openings=ev.openings,
        seed=seed,
        max_plies=ev.max_plies,
        workers=min(s.threads, usable_cpus()) if s.threads > 0 else None,  # the run's cores
    )
    ahead = run.run_dir / "checkpoints" / f"ckpt-{run.iteration:08d}.pt"
    shown = run.checkpoint if final else ahead
    if s.minimax_selfplay is None:
        return evaluate_against(
            NetworkEvaluator(run.net, run.device),
            dataclasses.replace(s.search, num_simulations=ev.simulations),
            list(ev.baselines),
            s.variant_spec,
            ev.games,
            settings=settings,
            agent=f"az:ckpt={shown},sims={ev.simulations}",
        )
    agent = f"alphabeta:ckpt={{}},depth={s.minimax.depth}"
    with tempfile.TemporaryDirectory(prefix="drl-eval-") as tmp:
        played = run.checkpoint if final else run.save(run.iteration, Path(tmp))
        results = evaluate_spec_against(
            agent.format(played), list(ev.baselines), s.variant_spec, ev.games, settings=settings
        )
    return [replace(r, agent=agent.format(shown)) for r in results]


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


@dataclass
class _Run:
    """What the phases of a training session share.

    Its settings and folder, the network, the replay buffer, and the counters as they stand.
    """

    s: TrainSettings
    run_dir: Path
    lock: RunLock | None
    device: torch.device
    net: PolicyValueModel
    optimizer: torch.optim.Optimizer
    replay: ReplayBuffer
    session: int
    clock: _Clock
    iteration: int
    learner_steps: int
    games_at_ckpt: int  # games finished before the iteration in progress
    checkpoint: Path | None  # the newest checkpoint written or continued from

    def save(self, iteration: int, directory: Path | None = None) -> Path:
        """Checkpoint the network, the optimiser and the counters as of ``iteration``.

        Into the run's ``checkpoints`` folder, or ``directory`` (a scratch copy).
        """
        if self.lock is not None:
            self.lock.check()
        replay, clock = self.replay, self.clock
        counters = {
            "iteration": iteration,
            "learner_steps": self.learner_steps,
            "games": replay.num_games,
            "positions": replay.num_positions,
            "shards": replay.num_shards,
            "next_game_index": replay.next_game_index,
            "session": self.session,
            "wall_minutes": clock.wall_minutes(),
            "cpu_minutes": clock.cpu_minutes(),
        }
        payload = {
            "model": self.net.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            **describe(self.net),
            "encoding": encoding(self.s.board_size).as_dict(),
            "counters": counters,
            "rng": {"torch": torch.get_rng_state(), "seed": self.s.seed},
            "variant": self.s.variant_spec,
            "config_yaml": self.s.config_yaml,
        }
        keep = self.s.loop.keep_checkpoints
        where = self.run_dir / "checkpoints" if directory is None else directory
        return save_checkpoint(where, iteration, payload, keep=keep)

    def on_games(self, batch: GameBatch, pdns: list[str]) -> None:
        """Write a chunk of finished games: their shard, then their PDN."""
        if self.lock is not None:
            self.lock.check()
        # The buffer's game count is the one numbering of the run's games.
        batch, pdns = renumber_games(batch, pdns, self.replay.next_game_index, session=self.session)
        # The PDN goes into place after its shard: a PDN in place always has its shard.
        pdn = self.run_dir / "games" / f"selfplay-{self.replay.num_shards:06d}.pdn"
        tmp = write_atomic(pdn, "".join(pdns), rename=False)
        try:
            self.replay.add(batch, {"session": np.array(self.session, np.int64)})
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        os.replace(tmp, pdn)


def _out_of_time(loop: LoopCfg, minutes: float) -> bool:
    if loop.max_minutes > 0 and minutes >= loop.max_minutes:
        log.info("training time budget of %g min reached", loop.max_minutes)
        return True
    return False


def train(
    cfg: Config | TrainSettings, run_dir: str | os.PathLike, progress: bool | None = None
) -> TrainResult:
    """Train (or continue training) in ``run_dir``.

    See :mod:`drl.train.run_folder` for what a run folder guarantees.

    Args:
        cfg: the configuration, converted and checked here once into
            :class:`~drl.train.config.TrainSettings` (which is all the loop reads), or
            those settings already converted (``drl-train`` converts before it names
            the run folder).
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
    settings = cfg if isinstance(cfg, TrainSettings) else train_settings(cfg)
    if progress is not None:
        settings = dataclasses.replace(settings, progress=progress)
    preflight_evaluations(settings)  # engines start, checkpoints load: before the folder
    with lock_run_dir(run_dir) as lock:
        return _train(settings, lock.run_dir, lock)


def _train(s: TrainSettings, run_dir: Path, lock: RunLock | None = None) -> TrainResult:
    # -- setup: the session's clock, torch, the network and its optimiser
    clock = _Clock()
    torch.set_num_threads(s.threads if s.threads > 0 else usable_cpus())
    torch.manual_seed(s.seed)
    device = _device(s.device)
    net = build(s.arch, **s.net_fields).to(device)
    optimizer = _optimizer(s.loop, net)

    # -- the run folder: checked before anything is written, then continued (or started)
    found = open_run(run_dir, _run_spec(s, net), device)
    if found.finished:
        return _finished(run_dir, found)
    if found.checkpoint is not None:
        _restore(net, optimizer, found, s.loop)
        clock.wall0, clock.cpu0 = found.wall_minutes, found.cpu_minutes  # earlier sessions'
    assert found.replay is not None
    run = _Run(
        s=s,
        run_dir=run_dir,
        lock=lock,
        device=device,
        net=net,
        optimizer=optimizer,
        replay=found.replay,
        session=found.session,
        clock=clock,
        iteration=found.iteration,
        learner_steps=found.learner_steps,
        games_at_ckpt=found.games,
        checkpoint=found.checkpoint,
    )
    if run.checkpoint is None:
        run.checkpoint = run.save(0)  # before any game: replay data always has a checkpoint

    # -- the self-play runtime, the metrics and the progress bar
    runtime = _runtime(run)
    logger = _Logger(run_dir, s.tensorboard)
    progress = Progress(s, clock.wall_minutes, run.iteration)

    # -- the iterations, to the last or to the time budget (checked after each, and at
    # the start against the earlier sessions' time)
    spent = _out_of_time(s.loop, clock.wall0)
    try:
        while run.iteration < s.loop.iterations and not spent:
            spent = _iterate(run, runtime, logger, progress)
    except TrainingDiverged as err:
        raise _diverged_in_run(err, run.iteration + 1, run.checkpoint) from err
    finally:
        progress.close()
        runtime.close()

    # -- the final evaluation
    final = _final_eval(run, logger)
    logger.close()
    return _result(run, found.checkpoint, final)


def _runtime(run: _Run) -> LocalRuntime | RayRuntime:
    """The self-play runtime, numbering games on from the replay folder's."""
    s, r = run.s, run.s.runtime
    cores = s.threads if s.threads > 0 else usable_cpus()
    cores = min(cores, usable_cpus())
    runtime = make_runtime(
        r, s.variants, s.search, s.selfplay, run.net, run.device, s.seed, cores, s.minimax_selfplay
    )
    runtime.set_next_game_index(run.replay.next_game_index)
    return runtime


def _run_spec(s: TrainSettings, net: PolicyValueModel) -> RunSpec:
    """What the run asks of its folder.

    Its game, encoding and network, its config, and when it is finished.
    """
    want = describe(net)
    loop = s.loop
    return RunSpec(
        variant_spec=s.variant_spec,
        encoding=encoding(s.board_size).as_dict(),
        arch=want["arch"],
        net_config=want["net_config"],
        model=s.model,
        config_yaml=s.config_yaml,
        iterations=loop.iterations,
        max_minutes=loop.max_minutes,
        final_eval=loop.final_eval.games >= 1 and bool(loop.final_eval.baselines),
        replay_window=loop.replay_window,
    )


def _result(run: _Run, resumed_from: Path | None, final: list[BaselineResult]) -> TrainResult:
    return TrainResult(
        run_dir=run.run_dir,
        iterations=run.iteration,
        learner_steps=run.learner_steps,
        games=run.replay.num_games,
        positions=run.replay.num_positions,
        checkpoint=run.checkpoint,
        resumed_from=resumed_from,
        final_eval=final,
        session=run.session,
    )


def _finished(run_dir: Path, found: Resumed) -> TrainResult:
    """The result of a start that found the run finished: nothing played or written."""
    return TrainResult(
        run_dir=run_dir,
        iterations=found.iteration,
        learner_steps=found.learner_steps,
        games=found.games,
        positions=found.positions,
        checkpoint=found.checkpoint,
        resumed_from=found.checkpoint,
        session=found.session,
        finished_before=True,
    )


def _iterate(
    run: _Run, runtime: LocalRuntime | RayRuntime, logger: _Logger, progress: Progress
) -> bool:
    """One iteration: self-play, learner, evaluation when due, metrics line and checkpoint.

    Returns whether the training time budget is spent.
    """
    loop = run.s.loop
    t_it = time.perf_counter()
    # -- self-play: the iteration's games (those finished since the checkpoint count)
    scalars = _selfplay(run, runtime, progress)

    # -- the learner, once the replay buffer holds min_replay positions
    if len(run.replay) >= loop.min_replay and loop.steps_per_iteration > 0:
        scalars.update(_learn(run))
        progress.postfix(loss=f"{scalars['loss/loss']:.3f}")
    scalars["learner/steps"] = run.learner_steps
    run.iteration += 1
    run.games_at_ckpt = run.replay.num_games

    # -- the evaluation, every eval.every iterations (the last one gets the final one)
    ev = loop.eval
    if ev.every > 0 and run.iteration % ev.every == 0 and run.iteration < loop.iterations:
        t_ev = time.perf_counter()
        results = _evaluate(run, ev, run.s.seed + run.iteration, final=False)
        scalars.update(_eval_scalars(results, "eval"))
        scalars["time/eval_s"] = time.perf_counter() - t_ev
        _save_eval(run.run_dir, f"iter-{run.iteration:04d}", results)
    phases = ("selfplay", "learner", "eval")
    spent_s = {k: scalars.get(f"time/{k}_s", 0.0) for k in phases}
    scalars.update(time_shares(spent_s, time.perf_counter() - t_it))
    scalars["wall_minutes"] = run.clock.wall_minutes()
    scalars["cpu_minutes"] = run.clock.cpu_minutes()

    # -- the metrics line, then the checkpoint: a kill between them redoes the
    # iteration, and the next start drops the line again
    logger.log(run.iteration, scalars)
    run.checkpoint = run.save(run.iteration)
    progress.iteration_done(run.iteration, scalars)
    return _out_of_time(loop, scalars["wall_minutes"])


def _selfplay(
    run: _Run, runtime: LocalRuntime | RayRuntime, progress: Progress
) -> dict[str, float]:
    """Play the games the iteration still needs; the self-play and replay scalars."""
    loop, bar = run.s.loop, progress.bar
    # Games finished after the last checkpoint belong to this iteration already.
    done_before = max(0, run.replay.num_games - run.games_at_ckpt)
    todo = loop.games_per_iteration - done_before
    bar.update(min(done_before, loop.games_per_iteration))
    scalars: dict[str, float] = {}
    t_sp = time.perf_counter()
    if todo > 0:
        base = bar.n

        def advance_bar(k: int) -> None:  # k games of this call done
            bar.update(base + k - bar.n)

        seed = [run.s.seed, run.iteration, run.session, 0]
        st = runtime.play(run.net, todo, seed, run.on_games, loop.shard_games, advance_bar)
        in_flight = run.s.selfplay.games_in_flight
        scalars.update(_selfplay_scalars(st, runtime.net_seconds, in_flight))
    scalars["time/selfplay_s"] = time.perf_counter() - t_sp
    scalars["selfplay/workers"] = runtime.workers
    scalars["replay/positions"] = run.replay.num_positions
    scalars["replay/games"] = run.replay.num_games
    return scalars


def _learn(run: _Run) -> dict[str, float]:
    """The iteration's learner steps; their mean losses and speed."""
    loop, loss, device = run.s.loop, run.s.loss, run.device
    n_actions = encoding(run.s.board_size).actions
    rng = np.random.default_rng([run.s.seed, run.iteration, run.session, 1])
    sums: dict[str, float] = {}
    t0 = time.perf_counter()
    for _ in range(loop.steps_per_iteration):
        batch = run.replay.sample(loop.batch_size, rng, n_actions)
        out = train_step(run.net, run.optimizer, batch, loss, device, run.learner_steps + 1)
        for k, v in out.items():
            sums[k] = sums.get(k, 0.0) + v
        run.learner_steps += 1
    # before it is saved, on the last batch: finite outputs, a loss not exploded
    check_network(run.net, batch.obs, device, run.learner_steps, loop.lr, batch=batch, loss=loss)
    scalars = {f"loss/{k}": v / loop.steps_per_iteration for k, v in sums.items()}
    scalars["time/learner_s"] = time.perf_counter() - t0
    scalars["learner/steps_per_s"] = loop.steps_per_iteration / scalars["time/learner_s"]
    return scalars


def _final_eval(run: _Run, logger: _Logger) -> list[BaselineResult]:
    """The final evaluation (none when switched off).

    It is saved as ``eval/final*`` and logged under the last iteration.
    """
    t_ev = time.perf_counter()
    final = _evaluate(run, run.s.loop.final_eval, run.s.seed + 10_000, final=True)
    if final:
        _save_eval(run.run_dir, "final", final)
        scalars = _eval_scalars(final, "final_eval")
        logger.log(run.iteration, {**scalars, "time/final_eval_s": time.perf_counter() - t_ev})
    return final


__all__ += ["CheckpointError", "RunFolderError"]
