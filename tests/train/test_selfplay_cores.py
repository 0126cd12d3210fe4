"""Self-play on several cores: the same games for a given seed and core count, and a run
killed with several cores resumes without losing or repeating a game."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from drl.eval.arena import role_variant
from drl.nn import NetworkEvaluator, describe
from drl.rules import Variant
from drl.rules.pdn import read_games
from drl.search import BatchedMCTS, Roots, SearchConfig
from drl.search.inline import set_search_threads
from drl.train.buffer import GameBatch, load_shard
from drl.train.runtime import LocalRuntime
from drl.train.selfplay import SelfPlayActor, SelfPlayConfig
from drl.train.workers import WorkerPool, quotas
from tests.tiny_configs import tiny_sparse_net

_VARIANT = Variant.parse("give_and_take")
_VARIANTS = [role_variant(_VARIANT, "black"), role_variant(_VARIANT, "white")]


def _search(mode: str = "gumbel") -> SearchConfig:
    return SearchConfig(num_simulations=8, root_selection=mode)


def _config(in_flight: int = 6) -> SelfPlayConfig:
    return SelfPlayConfig(games_in_flight=in_flight, max_plies=40, adjudicate_depth=0)


@pytest.mark.parametrize("mode", ["gumbel", "puct"])
def test_the_compiled_search_gives_the_same_trees_on_one_and_on_two_threads(mode):
    """Each tree is searched by one thread, in order: the thread count changes nothing."""
    actor = SelfPlayActor(_VARIANTS, _search(mode), _config(5), seed=0)
    ev = NetworkEvaluator(tiny_sparse_net(), "cpu")
    actor.play(ev, 3)  # games in flight at various plies
    roots = Roots.from_games(actor._games)
    out = []
    for threads in (1, 2, 1):
        set_search_threads(threads)
        mcts = BatchedMCTS(_search(mode), 5, 8, max_plies=40, edge_capacity=8)  # grows
        res = mcts.run(roots, ev, np.random.default_rng(7))
        out.append((res.visits, res.policy, res.action, res.root_value, res.leaf_evals))
    set_search_threads(1)
    for other in out[1:]:
        for a, b in zip(out[0], other, strict=True):
            np.testing.assert_array_equal(a, b)
    assert out[0][0].sum() > 0


def test_threads_in_one_process_play_the_same_games_as_one_thread():
    def games(threads: int) -> list[str]:
        rt = LocalRuntime(_VARIANTS, _search(), _config(), torch.device("cpu"), 0, threads)
        rt.set_next_game_index(0)
        texts: list[str] = []
        rt.play(tiny_sparse_net(), 5, [3, 0], lambda b, p: texts.extend(p), 2)
        return texts

    one, two = games(1), games(2)
    set_search_threads(1)
    assert one == two and len(one) == 5


def test_quotas_split_the_games_over_the_workers():
    assert quotas(7, 3) == [3, 2, 2]
    assert quotas(1, 2) == [1, 0]
    assert sum(quotas(513, 16)) == 513


def _pool_games(seed: list[int], workers: int = 2) -> tuple[list[str], GameBatch]:
    net = tiny_sparse_net()
    pool = WorkerPool(_VARIANTS, _search(), _config(), describe(net), workers)
    try:
        pool.set_next_game_index(10)
        got: list[tuple[GameBatch, list[str]]] = []
        st = pool.play(net.state_dict(), 5, seed, lambda b, p: got.append((b, p)), 2)
        assert st.games == 5
        st = pool.play(net.state_dict(), 3, seed + [1], lambda b, p: got.append((b, p)), 2)
        assert st.games == 3
    finally:
        pool.close()
    return [t for _, p in got for t in p], GameBatch.concat([b for b, _ in got])


def test_worker_processes_play_the_same_games_for_the_same_seed_and_core_count():
    texts, batch = _pool_games([4, 0])
    again, batch2 = _pool_games([4, 0])
    assert texts == again
    np.testing.assert_array_equal(batch.obs, batch2.obs)
    # numbered on from the index set, in delivery order, PDN and shard alike
    rounds = [int(g.tags["Round"]) for t in texts for g in read_games(t)]
    assert rounds == list(range(11, 19))
    runs = batch.game_index[np.r_[True, batch.game_index[1:] != batch.game_index[:-1]]]
    assert runs.tolist() == list(range(10, 18))
    # both workers played: both Taker colours among the first games, all games distinct
    moves = [" ".join(str(m) for m in g.moves) for t in texts for g in read_games(t)]
    assert len(set(moves)) == len(moves)


def test_the_workers_load_the_kernels_the_pool_compiled_before_them():
    """The pool runs its workers' kernels here first: numba's cache then holds them, and
    no worker compiles any (on a cold cache, see the slow test below, they all would)."""
    net = tiny_sparse_net()
    pool = WorkerPool(_VARIANTS, _search(), _config(4), describe(net), 2)
    try:
        pool.set_next_game_index(0)
        st = pool.play(net.state_dict(), 4, [1], lambda b, p: None, 2)
        assert st.games == 4
        assert pool.worker_compiles == 0
    finally:
        pool.close()


_COLD_POOL = """
import torch
from drl import nn as drl_nn
from drl.encode.actions import num_actions
from drl.encode.planes import N_CHANNELS
from drl.eval.arena import role_variant
from drl.nn import describe
from drl.rules import Variant
from drl.search import SearchConfig
from drl.train.selfplay import SelfPlayConfig
from drl.train.workers import WorkerPool

if __name__ == "__main__":
    v = Variant.parse("give_and_take")
    net = drl_nn.build("sparse", in_channels=N_CHANNELS, board_size=8,
                       num_actions=num_actions(8), hidden=32, hidden2=8)
    config = SelfPlayConfig(games_in_flight=4, max_plies=30, adjudicate_depth=2)
    pool = WorkerPool([role_variant(v, "black"), role_variant(v, "white")],
                      SearchConfig(num_simulations=8), config, describe(net), 2)
    pool.set_next_game_index(0)
    pool.play(net.state_dict(), 4, [1], lambda b, p: None, 2)
    print("worker compiles", pool.worker_compiles)
    pool.close()
"""


@pytest.mark.slow
def test_on_a_cold_cache_the_workers_compile_nothing(tmp_path):
    """With numba's cache empty, the pool compiles its workers' kernels (adjudication
    included) before they start: they load every one."""
    script = tmp_path / "cold_pool.py"
    script.write_text(_COLD_POOL)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"))
    root = Path(__file__).resolve().parents[2]
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH")]))
    out = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=1800
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert "drl: compiling" in out.stderr  # the cache was cold: this process compiled
    assert out.stdout.strip().splitlines()[-1] == "worker compiles 0"


def test_a_worker_that_raises_fails_the_call_with_its_error():
    net = tiny_sparse_net()
    pool = WorkerPool(_VARIANTS, _search(), _config(), describe(net), 2)
    try:
        state = {k: v.clone() for k, v in net.state_dict().items()}
        state["fc1.weight"][0, 0] = float("nan")
        with pytest.raises(RuntimeError, match="not finite"):
            pool.play(state, 2, [0], lambda b, p: None, 2)
    finally:
        pool.close()


# -- kill -9 and resume with several cores ----------------------------------------------------

_WRAPPER = """
import os, signal, sys

import drl.train.buffer as buffer

n = int(os.environ["DRL_KILL_AT_SHARD"])
calls = [0]
write_npz = buffer._write_atomic_npz


def npz(path, arrays):
    calls[0] += 1
    if calls[0] == n:  # the shard's PDN waits as .tmp; the shard is not written
        os.kill(os.getpid(), signal.SIGKILL)
    write_npz(path, arrays)


buffer._write_atomic_npz = npz
sys.argv = ["drl-train", *sys.argv[1:]]
from drl.cli.train import main

if __name__ == "__main__":  # the self-play workers import this module too
    main()
"""


def _games_of(run: Path) -> tuple[list[int], list[str]]:
    shards = sorted((run / "replay").glob("shard-*.npz"))
    index = np.concatenate([load_shard(p).game_index for p in shards])
    runs = index[np.r_[True, index[1:] != index[:-1]]].tolist()
    moves = []
    for pdn in sorted((run / "games").glob("selfplay-*.pdn")):
        for g in read_games(pdn.read_text()):
            moves.append(" ".join(str(m) for m in g.moves))
    return runs, moves


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="needs Linux")
@pytest.mark.parametrize(
    "algo",
    [
        pytest.param([], id="az"),
        # the same resume code as az's (the actor differs, not the run folder): slow
        pytest.param(["algo=minimax", "minimax.depth=2"], id="minimax", marks=pytest.mark.slow),
    ],
)
def test_a_run_killed_with_two_cores_resumes_without_losing_or_repeating_a_game(tmp_path, algo):
    run = tmp_path / "run"
    wrapper = tmp_path / "wrapper.py"
    wrapper.write_text(_WRAPPER)
    gpi = 6
    args = [
        "variant=english",
        "variant.max_plies=40",
        "model.hidden=32",
        "model.hidden2=8",
        "search.num_simulations=4",
        "train.iterations=2",
        f"train.games_per_iteration={gpi}",
        "train.shard_games=2",
        "train.games_in_flight=4",
        "train.steps_per_iteration=1",
        "train.batch_size=16",
        "train.min_replay=1",
        "train.adjudicate_depth=0",
        "train.max_minutes=0",
        "train.eval.every=0",
        "train.final_eval.games=0",
        "progress=false",
        "tensorboard=false",
        "threads=2",
        f"run_dir={run}",
        *algo,
    ]
    env = dict(os.environ, DRL_KILL_AT_SHARD="3")  # 2 shards (4 games) saved, then killed
    proc = subprocess.run(
        [sys.executable, str(wrapper), *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-3000:]
    runs, moves = _games_of(run)
    assert runs == [0, 1, 2, 3] and len(moves) == 4
    # the killed run's workers noticed and quit (none is left playing)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and _orphans(run):
        time.sleep(1)
    assert not _orphans(run), "self-play workers outlived the killed training process"

    env["DRL_KILL_AT_SHARD"] = "0"
    proc = subprocess.run(
        [sys.executable, str(wrapper), *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    runs, moves = _games_of(run)
    assert runs == list(range(2 * gpi)), "a game number lost or repeated"
    assert len(moves) == 2 * gpi and len(set(moves)) == len(moves), "a game played twice"
    rows = [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines()]
    assert [r.get("selfplay/workers") for r in rows if "learner/steps" in r] == [2, 2]


def _orphans(run: Path) -> list[int]:
    """Worker processes of a killed run still alive (re-parented away from it)."""
    out = subprocess.run(["ps", "-eo", "pid=,args="], capture_output=True, text=True).stdout
    return [
        int(line.split()[0]) for line in out.splitlines() if "spawn_main" in line and _is_ours(line)
    ]


def _is_ours(line: str) -> bool:
    pid = int(line.split()[0])
    try:
        return Path(f"/proc/{pid}/environ").read_bytes().find(b"DRL_KILL_AT_SHARD") >= 0
    except OSError:
        return False
