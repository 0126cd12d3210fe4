"""A run folder loses nothing and repeats nothing: restarts draw new games, games are
numbered in shard order, one process at a time, no silent restart from scratch, no
resume under another game or network, clear errors for an unusable folder or a bad
value, and a run killed over and over (at random and inside its write windows) ends
as if it had never been killed."""

from __future__ import annotations

import dataclasses
import fcntl
import json
import math
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import drl.train.buffer as buffer_mod
from drl.nn import UniformEvaluator
from drl.nn.checkpoint import list_checkpoints, load_checkpoint, load_latest, save_checkpoint
from drl.rules import Variant
from drl.rules.pdn import read_games
from drl.search import SearchConfig
from drl.train.buffer import GameBatch, ReplayBuffer, load_shard
from drl.train.config import Config, train_settings
from drl.train.loop import train
from drl.train.selfplay import SelfPlayActor, SelfPlayConfig

TRAIN = [sys.executable, "-m", "drl.cli.train"]


class Crash(RuntimeError):
    """Stands for the process dying in the middle of a write."""


def _crash_at_shard(monkeypatch, n: int) -> None:
    """The ``n``-th shard write (1-based) raises before anything of it is written."""
    orig = buffer_mod._write_atomic_npz
    calls = [0]

    def write(path, arrays):
        calls[0] += 1
        if calls[0] == n:
            raise Crash(f"crash at shard write {n}")
        orig(path, arrays)

    monkeypatch.setattr(buffer_mod, "_write_atomic_npz", write)


def _shard_paths(run: Path) -> list[Path]:
    return sorted((run / "replay").glob("shard-*.npz"))


def _game_runs(gi: np.ndarray) -> list[int]:
    """The game index of each run of positions (one run per game, in order)."""
    starts = np.flatnonzero(np.r_[True, gi[1:] != gi[:-1]]) if len(gi) else []
    return [int(gi[s]) for s in starts]


def _shard_games(run: Path) -> dict[int, list[int]]:
    """Shard number -> the game indices it holds, in order."""
    out = {}
    for p in _shard_paths(run):
        out[int(p.stem.split("-")[1])] = _game_runs(load_shard(p).game_index)
    return out


def _pdn_games(run: Path) -> dict[int, list[tuple[int, tuple[str, ...]]]]:
    """PDN file number -> (Round, moves) of each game in it."""
    out = {}
    for p in sorted((run / "games").glob("selfplay-*.pdn")):
        out[int(p.stem.split("-")[1])] = [
            (int(g.tags["Round"]), tuple(g.moves)) for g in read_games(p)
        ]
    return out


def _check_numbering(run: Path) -> list[tuple[str, ...]]:
    """Game indices in shard order are 0..N-1, each shard's PDN has the same games as
    Rounds (index + 1), and no two saved games have the same moves. Returns the moves."""
    shards, pdns = _shard_games(run), _pdn_games(run)
    assert sorted(shards) == list(range(len(shards))), "shard numbers have a gap"
    flat = [i for k in sorted(shards) for i in shards[k]]
    assert flat == list(range(len(flat))), f"game indices in shard order: {flat}"
    moves = []
    for k, idx in shards.items():
        assert [r for r, _ in pdns[k]] == [i + 1 for i in idx], f"shard {k} vs its PDN"
        moves += [m for _, m in pdns[k]]
    assert len(set(moves)) == len(moves), "a game was played twice"
    return moves


def _quiet(cfg: Config) -> Config:
    cfg.tensorboard = False
    cfg.train.final_eval.games = 0
    return cfg


def _english(tiny, **train_fields) -> Config:
    return _quiet(tiny(variant="english", **train_fields))


# -- 1. a restart draws new games ---------------------------------------------------------


def test_a_restart_mid_iteration_plays_no_game_again(tmp_path, tiny, monkeypatch):
    run = tmp_path / "run"
    cfg = _english(tiny, iterations=1, games_per_iteration=8)
    _crash_at_shard(monkeypatch, 3)  # two shards (4 games) saved, then the process dies
    with pytest.raises(Crash):
        train(cfg, run)
    monkeypatch.undo()
    assert ReplayBuffer(run / "replay", 10).num_games == 4
    again = train(cfg, run)
    moves = [m for games in _pdn_games(run).values() for _, m in games]
    assert len(set(moves)) == len(moves), "the restart played saved games again"
    assert len(_check_numbering(run)) == again.games == 8
    sessions = [json.loads(ln) for ln in (run / "sessions.jsonl").read_text().splitlines()]
    assert [s["session"] for s in sessions] == [0, 1]
    assert again.session == 1 and sessions[1]["games"] == 4


# -- 2. game numbers follow shard order ---------------------------------------------------


def test_game_numbers_follow_shard_order_and_match_the_pdn_rounds(tmp_path, tiny):
    run = tmp_path / "run"
    cfg = _quiet(tiny(iterations=2, games_per_iteration=7, shard_games=2))  # Give and Take
    result = train(cfg, run)
    moves = _check_numbering(run)
    assert len(moves) == result.games == 14  # exactly 7 per iteration
    takers = np.concatenate([load_shard(p).game_taker for p in _shard_paths(run)])
    # the Taker's colour still alternates game by game (by start order)
    assert abs(int(np.sum(takers == 0)) - int(np.sum(takers == 1))) <= cfg.train.games_in_flight


def _actor(games_in_flight=3):
    v = Variant.parse("give_and_take")
    from drl.eval.arena import role_variant

    return SelfPlayActor(
        [role_variant(v, "black"), role_variant(v, "white")],
        SearchConfig(num_simulations=4),
        SelfPlayConfig(games_in_flight=games_in_flight, max_plies=40),
        seed=1,
    )


def test_an_actor_delivers_exactly_the_games_asked_for_numbered_in_order():
    actor = _actor()
    actor.next_game_index = 10
    got = []
    for n in (1, 2, 4):
        st = actor.play(UniformEvaluator(), n, lambda b, p: got.append((b, p)), chunk=2)
        assert st.games == n
    batch = GameBatch.concat([g[0] for g in got])
    rounds = [int(g.tags["Round"]) for _, pdns in got for t in pdns for g in read_games(t)]
    assert _game_runs(batch.game_index) == list(range(10, 17))
    assert rounds == list(range(11, 18))
    assert actor.next_game_index == 17 and actor.games_started >= 7


def test_renumber_games_rewrites_indices_and_rounds_together():
    from drl.train.selfplay import renumber_games

    actor = _actor()
    got = []
    actor.play(UniformEvaluator(), 3, lambda b, p: got.append((b, p)), chunk=3)
    ((batch, pdns),) = got
    new, texts = renumber_games(batch, pdns, 100)
    assert _game_runs(new.game_index) == [100, 101, 102]
    assert [int(next(read_games(t)).tags["Round"]) for t in texts] == [101, 102, 103]
    assert _game_runs(batch.game_index) == [0, 1, 2]  # the argument is left as it was
    with pytest.raises(ValueError, match="2 PDN texts for a batch of 3 games"):
        renumber_games(batch, pdns[:2], 0)
    same = dataclasses.replace(batch, game_index=np.zeros_like(batch.game_index))
    with pytest.raises(ValueError, match="runs of game indices"):
        renumber_games(same, pdns, 0)


# -- 3. one process at a time --------------------------------------------------------------


def _long_drl_train(cwd, run):
    """A tiny drl-train in ``run`` that would go on far longer than any test waits."""
    return subprocess.Popen(
        TRAIN
        + ["train=tiny", "model=tiny", "progress=false", "tensorboard=false", "threads=1"]
        + ["train.iterations=1000", f"run_dir={run}"],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_second_process_on_a_run_folder_is_refused_and_a_killed_holder_frees_it(tmp_path, tiny):
    run = tmp_path / "run"
    first = _long_drl_train(tmp_path, run)
    try:
        deadline = time.monotonic() + 300  # a hang guard, not a speed check
        # a checkpoint counts once its digest is written too (it is renamed in last): one
        # killed between the two is cut short, and the next start rightly begins afresh
        while not any(
            p.with_name(p.name + ".sha256").exists() for p in list_checkpoints(run / "checkpoints")
        ):
            assert first.poll() is None, first.stderr.read()[-3000:]
            assert time.monotonic() < deadline, "the first drl-train wrote no checkpoint"
            time.sleep(0.1)
        with pytest.raises(RuntimeError, match=rf"{run}.*in use.*pid {first.pid}"):
            train(_quiet(tiny(iterations=1)), run)
    finally:
        os.kill(first.pid, signal.SIGKILL)
        first.wait()
    # the killed process left no lock behind
    assert train(_quiet(tiny(iterations=1)), run).resumed_from is not None


def test_the_lock_is_per_open_file_so_a_second_open_in_one_process_is_refused(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    fd = os.open(run / ".lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        from drl.train.run_folder import RunFolderError, lock_run_dir

        with pytest.raises(RunFolderError, match="in use by another training process"):
            lock_run_dir(run)
    finally:
        os.close(fd)
    lock_run_dir(run).release()


# -- 4. no silent restart from scratch; one checkpoint per iteration ----------------------


def _damage(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3])


def test_a_folder_whose_checkpoints_are_all_damaged_is_refused_every_time(tmp_path, tiny):
    run = tmp_path / "run"
    cfg = _english(tiny, iterations=2)
    train(cfg, run)
    for p in list_checkpoints(run / "checkpoints"):
        _damage(p)
    shards = sorted(p.name for p in (run / "replay").iterdir())
    for _ in range(2):
        with pytest.raises(Exception, match="(?s)replay shards.*no good checkpoint") as err:
            train(cfg, run)
        assert "CheckpointError" in type(err.value).__name__
    assert sorted(p.name for p in (run / "replay").iterdir()) == shards


def test_checkpoints_set_aside_by_an_earlier_start_still_block_a_fresh_start(tmp_path, tiny):
    run = tmp_path / "run"
    cfg = _english(tiny, iterations=2)
    train(cfg, run)
    for p in list_checkpoints(run / "checkpoints"):
        p.rename(p.with_name(p.name + ".corrupt"))
    with pytest.raises(Exception, match="(?s)set aside.*no good checkpoint"):
        train(cfg, run)


def test_each_iteration_writes_its_own_checkpoint_even_without_learner_steps(tmp_path, tiny):
    run = tmp_path / "run"
    train(_english(tiny, iterations=3, steps_per_iteration=0, keep_checkpoints=2), run)
    paths = list_checkpoints(run / "checkpoints")
    assert [p.name for p in paths] == ["ckpt-00000002.pt", "ckpt-00000003.pt"]
    counters = [load_checkpoint(p)["counters"] for p in paths]
    assert [(c["iteration"], c["learner_steps"]) for c in counters] == [(2, 0), (3, 0)]


def test_a_folder_with_checkpoints_named_by_learner_steps_is_renamed_by_iteration(tmp_path, tiny):
    run = tmp_path / "run"
    train(_english(tiny, iterations=2, steps_per_iteration=3, keep_checkpoints=3), run)
    for p in list_checkpoints(run / "checkpoints"):  # the naming of earlier versions
        steps = load_checkpoint(p)["counters"]["learner_steps"]
        for q in (p, p.with_name(p.name + ".sha256")):
            q.rename(q.with_name(q.name.replace(p.name, f"ckpt-{steps:08d}.pt")))
    assert [p.name for p in list_checkpoints(run / "checkpoints")] == [
        "ckpt-00000000.pt",
        "ckpt-00000003.pt",
        "ckpt-00000006.pt",
    ]
    result = train(_english(tiny, iterations=4, steps_per_iteration=3, keep_checkpoints=3), run)
    assert result.resumed_from.name == "ckpt-00000002.pt" and result.learner_steps == 12
    paths = list_checkpoints(run / "checkpoints")
    assert [p.name for p in paths] == [f"ckpt-0000000{i}.pt" for i in (2, 3, 4)]
    assert [load_checkpoint(p)["counters"]["iteration"] for p in paths] == [2, 3, 4]


def test_the_first_checkpoint_comes_before_the_first_game(tmp_path, tiny, monkeypatch):
    run = tmp_path / "run"
    cfg = _english(tiny, iterations=1)
    _crash_at_shard(monkeypatch, 1)
    with pytest.raises(Crash):
        train(cfg, run)
    monkeypatch.undo()
    path, payload = load_latest(run / "checkpoints")
    assert path.name == "ckpt-00000000.pt" and payload["counters"]["iteration"] == 0


def test_a_first_checkpoint_cut_short_before_any_game_starts_the_run_afresh(tmp_path, tiny):
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    (run / "checkpoints" / "ckpt-00000000.pt").write_bytes(b"cut short")  # no digest
    result = train(_english(tiny, iterations=1), run)
    assert result.resumed_from is None and result.games == 4
    assert (run / "checkpoints" / "ckpt-00000000.pt.corrupt").exists()


# -- 5. a run keeps its game, encoding and network -----------------------------------------


def _snapshot(run: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(run)): p.read_bytes()
        for p in sorted(run.rglob("*"))
        if p.is_file() and p.name != ".lock"
    }


@pytest.mark.parametrize("other", ["giveaway", "international"])
def test_a_run_of_another_variant_is_refused_before_anything_is_written(tmp_path, tiny, other):
    run = tmp_path / "run"
    train(_english(tiny, iterations=1), run)
    before = _snapshot(run)
    cfg = _english(tiny, iterations=2)
    cfg.variant.name = cfg.variant.spec = other
    with pytest.raises(ValueError, match=rf"variant 'english'.*variant.spec='{other}'"):
        train(cfg, run)
    assert _snapshot(run) == before


def test_settings_that_may_change_from_one_start_to_the_next_still_may(tmp_path, tiny):
    run = tmp_path / "run"
    train(_english(tiny, iterations=1), run)
    cfg = _english(tiny, iterations=3)
    cfg.progress, cfg.device = True, "cpu"
    cfg.train.eval.every, cfg.train.eval.games = 1, 2
    assert train(cfg, run).iterations == 3
    assert (run / "eval" / "iter-0002.json").exists()


def test_without_a_checkpoint_the_config_file_says_which_run_it_is(tmp_path, tiny):
    run = tmp_path / "run"
    train(_english(tiny, iterations=1), run)
    for p in (run / "checkpoints").iterdir():
        p.unlink()
    before = _snapshot(run)
    cfg = _english(tiny, iterations=2)
    cfg.variant.name = cfg.variant.spec = "giveaway"
    with pytest.raises(ValueError, match=r"config.yaml is a run of variant 'english'"):
        train(cfg, run)
    cfg = _english(tiny, iterations=2)
    cfg.model.channels = 16
    with pytest.raises(ValueError, match=r"model.channels=8.*model.channels=16"):
        train(cfg, run)
    assert _snapshot(run) == before


def test_a_checkpoint_of_another_encoding_is_refused(tmp_path, tiny):
    run = tmp_path / "run"
    result = train(_english(tiny, iterations=1), run)
    payload = load_checkpoint(result.checkpoint)
    payload["net_config"]["in_channels"] = 99
    payload.pop("encoding", None)  # as an older checkpoint: the net's input says it
    number = int(result.checkpoint.name.split("-")[1].split(".")[0])
    save_checkpoint(run / "checkpoints", number, payload)  # in its place, with a digest
    with pytest.raises(ValueError, match=r"99 observation planes.*this run encodes 8x8"):
        train(_english(tiny, iterations=2), run)


# -- 6. clear errors: an unusable run folder, a value out of range -------------------------


def test_an_unusable_run_dir_is_one_clear_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    run = blocker / "run"
    r = subprocess.run(
        TRAIN + ["train=tiny", "model=tiny", "progress=false", f"run_dir={run}"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode != 0
    assert "Traceback" not in r.stderr
    assert f"run folder {run}" in r.stderr and str(blocker) in r.stderr


# Out-of-range values of every number in the configuration (a new number needs one here).
BAD = {
    "seed": -1,
    "threads": -1,
    "variant.max_plies": 0,
    "model.channels": 0,
    "model.blocks": -1,
    "model.policy_channels": 0,
    "model.value_channels": 0,
    "model.value_hidden": 0,
    "search.num_simulations": 0,
    "search.c_puct": -1.0,
    "search.fpu_reduction": math.nan,
    "search.dirichlet_alpha": 0.0,
    "search.dirichlet_epsilon": 1.5,
    "search.gumbel_max_considered": 0,
    "search.gumbel_c_visit": 0.0,
    "search.gumbel_c_scale": -0.1,
    "search.temperature": -1.0,
    "search.temperature_plies": -1,
    "train.iterations": 0,
    "train.games_per_iteration": 0,
    "train.shard_games": 0,
    "train.steps_per_iteration": -1,
    "train.batch_size": 0,
    "train.replay_window": 0,
    "train.min_replay": -1,
    "train.lr": 0.0,
    "train.weight_decay": -1.0,
    "train.momentum": 1.0,
    "train.keep_checkpoints": 0,
    "train.games_in_flight": 0,
    "train.full_search_prob": 0.0,
    "train.fast_simulations": 0,
    "train.value_loss_weight": -1.0,
    "train.aux_loss_weight": math.inf,
    "train.plies_scale": 0.0,
    "train.grad_clip": -1.0,
    "train.search_value_weight": 1.5,
    "train.adjudicate_depth": 21,
    "train.adjudicate_margin": 100_001,
    "train.max_minutes": -1.0,
    "runtime.actors": 0,
    "runtime.cpus_per_actor": 0.0,
    "minimax.depth": 0,
    "minimax.mix": 1.5,
    "minimax.explore_plies": -1,
    "minimax.temperature": 0.0,
    "minimax.tt_bits": 9,
    **{
        f"train.{ev}.{k}": v
        for ev in ("eval", "final_eval")
        for k, v in (("every", -1), ("games", -1), ("simulations", 0))
        + (("max_plies", 0), ("openings", -1))
    },
}


def _numbers(node, prefix=""):
    out = []
    for f in dataclasses.fields(node):
        value = getattr(node, f.name)
        if dataclasses.is_dataclass(value):
            out += _numbers(value, f"{prefix}{f.name}.")
        elif isinstance(value, int | float) and not isinstance(value, bool):
            out.append(f"{prefix}{f.name}")
    return out


def test_the_table_covers_every_number_in_the_config(tiny):
    assert set(_numbers(tiny())) == set(BAD)


@pytest.mark.parametrize("key", sorted(BAD))
def test_every_number_out_of_range_is_refused_under_its_key(tiny, key):
    cfg = tiny()
    *path, last = key.split(".")
    node = cfg
    for part in path:
        node = getattr(node, part)
    setattr(node, last, BAD[key])
    with pytest.raises(ValueError, match=rf"^config {key.replace('.', '[.]')}="):
        train_settings(cfg)


# -- a run killed over and over -------------------------------------------------------------

# Runs drl-train with the atomic writes patched to kill the process inside a chosen
# window; DRL_FAULT=kind:n picks the n-th write of that kind (1-based).
_WRAPPER = """
import os, signal, sys

import numpy as np

import drl.nn.checkpoint as checkpoint
import drl.train.buffer as buffer

kind, _, n = os.environ.get("DRL_FAULT", "").partition(":")
n = int(n or 0)
calls = [0]


def die():
    os.kill(os.getpid(), signal.SIGKILL)


write_npz, write_bytes = buffer._write_atomic_npz, checkpoint._write_atomic


def npz(path, arrays):
    calls[0] += kind.startswith("shard")
    if calls[0] == n and kind == "shard-none":  # its PDN is written, the shard is not
        die()
    if calls[0] == n and kind == "shard-tmp":  # the .tmp is written, not renamed
        with open(path.with_name(path.name + ".tmp"), "wb") as fh:
            np.savez_compressed(fh, **arrays)
        die()
    write_npz(path, arrays)


def ckpt(path, data):
    if path.name.endswith(".pt"):
        calls[0] += kind.startswith("ckpt")
        if calls[0] == n and kind == "ckpt-tmp":  # half a .tmp, not renamed
            path.with_name(path.name + ".tmp").write_bytes(data[: len(data) // 2])
            die()
    elif calls[0] == n and kind == "ckpt-digest":  # the .pt is in place, its digest not
        die()
    write_bytes(path, data)


buffer._write_atomic_npz = npz
checkpoint._write_atomic = ckpt
sys.argv = ["drl-train", *sys.argv[1:]]
from drl.cli.train import main

main()
"""

_KINDS = ("shard-tmp", "shard-none", "ckpt-tmp", "ckpt-digest", "random")


class _Watch:
    """What a run folder held after the previous kill, to compare with."""

    def __init__(self) -> None:
        self.shards: dict[str, bytes] = {}
        self.iteration = 0
        self.steps = 0


def _left_in_window(run: Path, kind: str) -> bool:
    """Whether the folder shows the trace of a kill inside the write window ``kind``."""
    ckpts = run / "checkpoints"
    if kind == "shard-tmp":
        return bool(list((run / "replay").glob("*.tmp")))
    if kind == "shard-none":  # the PDN waits as .tmp until its shard is in place
        return bool(list((run / "games").glob("*.pdn.tmp")))
    if kind == "ckpt-tmp":
        return bool(list(ckpts.glob("*.tmp")))
    return any(not p.with_name(p.name + ".sha256").exists() for p in ckpts.glob("*.pt"))


def _check_after_kill(run: Path, watch: _Watch, gpi: int, spi: int) -> None:
    shards = {p.name: p.read_bytes() for p in _shard_paths(run)}
    for name, data in watch.shards.items():
        assert shards.get(name) == data, f"saved shard {name} was lost or changed"
    watch.shards = shards
    _check_numbering(run)
    extra = sorted(set(_pdn_games(run)) - {int(n[6:12]) for n in shards})
    assert extra in ([], [len(shards)]), f"PDN files without a shard: {extra}"
    found = load_latest(run / "checkpoints")
    if found is not None:
        c = found[1]["counters"]
        assert c["iteration"] >= watch.iteration and c["learner_steps"] >= watch.steps
        assert c["games"] == c["iteration"] * gpi  # exactly games_per_iteration each
        assert c["learner_steps"] == c["iteration"] * spi
        watch.iteration, watch.steps = c["iteration"], c["learner_steps"]
    metrics = run / "metrics.jsonl"
    lines = metrics.read_text().splitlines() if metrics.exists() else []
    rows = []
    for k, line in enumerate(lines):
        try:
            rows.append(json.loads(line))
        except ValueError:
            assert k == len(lines) - 1, "a metrics line in the middle is cut short"
    its = [r["iteration"] for r in rows if "learner/steps" in r]
    assert its == sorted(set(its)) and (not its or its[-1] <= watch.iteration + 1)
    steps = [r["learner/steps"] for r in rows if "learner/steps" in r]
    assert steps == sorted(steps)


def _killed_run(tmp_path: Path, kills: list[str], gpi: int, seed: int) -> None:
    run = tmp_path / "run"
    wrapper = tmp_path / "wrapper.py"
    wrapper.write_text(_WRAPPER)
    spi = 2
    base = [
        "variant=english",
        "variant.max_plies=60",
        "train=tiny",
        "model=tiny",
        "search.num_simulations=4",
        f"train.games_per_iteration={gpi}",
        "train.shard_games=2",
        "train.games_in_flight=4",
        f"train.steps_per_iteration={spi}",
        "train.final_eval.games=0",
        "progress=false",
        "tensorboard=false",
        "threads=1",
        f"run_dir={run}",
    ]
    rng = random.Random(seed)
    watch = _Watch()
    killed = dict.fromkeys(kills, 0)
    iterations = 2
    for kind in kills:
        # Always more to do than one start gets through, so that each kill cuts into work.
        iterations = max(iterations, watch.iteration + 2)
        env = dict(os.environ)
        # A start has at least two iterations ahead: two checkpoints and four shards, so
        # a kill at one of the first writes always hits.
        n = rng.choice((1, 2) if kind.startswith("ckpt") else (1, 2, 3))
        env["DRL_FAULT"] = "" if kind == "random" else f"{kind}:{n}"
        proc = subprocess.Popen(
            [sys.executable, str(wrapper), *base, f"train.iterations={iterations}"],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        if kind == "random":
            try:
                proc.wait(timeout=rng.uniform(2.5, 8.0))
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGKILL)
        try:
            _, err = proc.communicate(timeout=300)  # a hang guard, not a speed check
        except subprocess.TimeoutExpired:
            proc.kill()
            pytest.fail(f"drl-train hung under fault {kind}")
        assert proc.returncode in (0, -signal.SIGKILL), f"{kind}: {err[-3000:]}"
        killed[kind] += proc.returncode == -signal.SIGKILL
        if proc.returncode == -signal.SIGKILL and kind != "random":
            assert _left_in_window(run, kind), f"the kill {kind} did not land in its window"
        _check_after_kill(run, watch, gpi, spi)
    assert all(killed.values()), f"a kind of kill never hit: {killed}"
    iterations = max(iterations, watch.iteration + 1)
    r = subprocess.run(
        [sys.executable, str(wrapper), *base, f"train.iterations={iterations}"],
        cwd=tmp_path,
        env={**os.environ, "DRL_FAULT": ""},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    _check_after_kill(run, watch, gpi, spi)
    moves = _check_numbering(run)
    assert len(moves) == iterations * gpi
    assert set(_pdn_games(run)) == set(range(len(watch.shards)))
    assert watch.iteration == iterations and watch.steps == iterations * spi
    rows = [json.loads(ln) for ln in (run / "metrics.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in rows if "learner/steps" in r] == list(range(1, iterations + 1))
    sessions = []
    for line in (run / "sessions.jsonl").read_text().splitlines():
        try:
            sessions.append(json.loads(line)["session"])
        except ValueError:
            continue  # a line cut short by a kill
    assert sessions == sorted(set(sessions)) and len(sessions) >= 2


def test_a_run_killed_in_its_write_windows_loses_and_repeats_nothing(tmp_path):
    _killed_run(tmp_path, ["shard-tmp", "ckpt-digest", "random"], gpi=4, seed=0)


@pytest.mark.slow
def test_a_run_killed_twenty_times_loses_and_repeats_nothing(tmp_path):
    kills = [*_KINDS[:4] * 4, *["random"] * 6]
    random.Random(1).shuffle(kills)
    assert len(kills) >= 20
    _killed_run(tmp_path, kills, gpi=6, seed=1)


def test_ctrl_c_in_drl_train_is_one_line_that_says_how_to_go_on(tmp_path):
    run = tmp_path / "run"
    proc = _long_drl_train(tmp_path, run)
    try:
        deadline = time.monotonic() + 300  # a hang guard, not a speed check
        while not ReplayBuffer.shard_files(run / "replay"):
            assert proc.poll() is None, proc.stderr.read()[-3000:]
            assert time.monotonic() < deadline, "drl-train wrote no shard"
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        err = proc.communicate(timeout=120)[1]
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err[-3000:]
    assert "Traceback" not in err
    assert f"drl-train: interrupted; every finished game is saved in {run}" in err
    assert f"run_dir={run} and the same overrides" in err
