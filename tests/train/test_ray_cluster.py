"""runtime=ray against a two-node Ray cluster on this machine, kept on 127.0.0.1.

The nodes are started with ``python -m drl.train.ray_node start`` (``ray start`` on
loopback). Every process they start is stopped at the end, found by a marker in its
environment or as a child of one so marked.
"""

import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

from drl.rules.pdn import read_games
from drl.train.buffer import load_shard

ray = pytest.importorskip("ray")
psutil = pytest.importorskip("psutil")

pytestmark = pytest.mark.slow

MARK = "DRL_RAY_TEST_CLUSTER"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _marked(token: str) -> list:
    procs = []
    for p in psutil.process_iter():
        try:
            if p.environ().get(MARK) == token:
                procs.append(p)
        except (psutil.Error, OSError):
            pass
    return procs


def _kill(procs: list) -> None:
    every = {}
    for p in procs:
        every[p.pid] = p
        try:
            every.update({c.pid: c for c in p.children(recursive=True)})
        except psutil.Error:
            pass
    for p in every.values():
        try:
            p.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(list(every.values()), timeout=10)


class Cluster:
    def __init__(self) -> None:
        self.token = secrets.token_hex(8)
        self.port = _free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.dirs = [Path(tempfile.mkdtemp(prefix="drlray", dir="/tmp")) for _ in range(2)]
        # A home of its own: Ray keeps an auth token in ~/.ray, and one left there by an
        # earlier cluster makes the nodes of the next refuse each other's connections.
        self.home = Path(tempfile.mkdtemp(prefix="drlrayhome", dir="/tmp"))
        self.env = {**os.environ, MARK: self.token, "RAY_USAGE_STATS_ENABLED": "0"}
        self.env["HOME"] = str(self.home)
        self.env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
        self.worker_procs: list = []

    def _start(self, k: int, *args: str) -> None:
        before = {p.pid for p in _marked(self.token)}
        ports = 20000 + 1000 * k + self.port % 500
        cmd = [
            *(sys.executable, "-m", "drl.train.ray_node", "start"),
            *("--node-ip-address=127.0.0.1", "--num-cpus=1", f"--temp-dir={self.dirs[k]}"),
            *("--disable-usage-stats", "--object-store-memory=100000000"),
            *(f"--min-worker-port={ports}", f"--max-worker-port={ports + 99}"),
            f"--dashboard-agent-listen-port={_free_port()}",
            *args,
        ]
        r = subprocess.run(cmd, env=self.env, capture_output=True, text=True, timeout=180)
        assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
        if k == 1:
            self.worker_procs = [p for p in _marked(self.token) if p.pid not in before]

    def start(self) -> None:
        head = ("--head", f"--port={self.port}", "--include-dashboard=false")
        self._start(0, *head, f"--ray-client-server-port={_free_port()}")
        self._start(1, f"--address={self.address}")

    def stop_second_node(self) -> None:
        _kill(self.worker_procs)

    def stop(self) -> None:
        _kill(_marked(self.token))
        for d in (*self.dirs, self.home):
            shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def cluster():
    c = Cluster()
    try:
        c.start()
        yield c
    finally:
        c.stop()


def _check_loopback(nodes: list[dict]) -> None:
    alive = [n for n in nodes if n["Alive"]]
    assert len(alive) == 2, f"expected two live nodes, got {alive}"
    addresses = {n["NodeManagerAddress"] for n in nodes}
    assert addresses == {"127.0.0.1"}, f"Ray left loopback: node addresses {addresses}"


def test_actors_on_both_nodes_get_new_weights_and_a_lost_node_loses_no_game(
    cluster, tiny, monkeypatch
):
    import torch

    monkeypatch.setenv("HOME", str(cluster.home))  # this process joins the cluster too

    from drl.train.config import search_config, selfplay_config
    from drl.train.loop import build_network, run_variants
    from drl.train.runtime import RayRuntime

    cfg = tiny()
    variants = run_variants(cfg)
    net = build_network(cfg, variants[0].board_size)
    rt = RayRuntime(
        variants,
        search_config(cfg),
        selfplay_config(cfg),
        net,
        actors=2,
        address=cluster.address,
    )
    try:
        _check_loopback(ray.nodes())
        got: list[int] = []

        def keep(batch, pdns):
            got.extend(int(r) for r in np.unique(batch.game_index))

        seen = set()
        for it in range(2):
            with torch.no_grad():
                for p in net.parameters():
                    p.add_(0.01 * (it + 1))
            rt.play(net, 4, [0, it], keep, 1)
            assert {r.weights for r in rt.reports} == {rt.weights}
            assert len({r.node for r in rt.reports}) == 2, rt.reports
            # each actor's search uses the cores it reserved (one on these nodes)
            assert {r.cores for r in rt.reports} == {1}, rt.reports
            seen.add(rt.weights)
        assert len(seen) == 2

        def stop_node(done: int) -> None:
            if done == 1:
                cluster.stop_second_node()

        rt.play(net, 6, [0, 2], keep, 1, progress=stop_node)
        assert got == list(range(14))
    finally:
        rt.close()
        ray.shutdown()


def _games(run: Path) -> list[int]:
    shards = sorted((run / "replay").glob("shard-*.npz"))
    idx = []
    for p in shards:
        gi = load_shard(p).game_index
        starts = np.flatnonzero(np.r_[True, gi[1:] != gi[:-1]])
        runs = [int(gi[s]) for s in starts]
        pdn = run / "games" / f"selfplay-{p.stem.split('-')[1]}.pdn"
        assert [int(g.tags["Round"]) for g in read_games(pdn)] == [i + 1 for i in runs]
        idx += runs
    return idx


def test_drl_train_against_the_cluster_survives_losing_a_node(cluster, tmp_path):
    run = tmp_path / "run"
    cmd = [
        *(sys.executable, "-m", "drl.cli.train", "train=tiny", "model=tiny"),
        *("search.num_simulations=4", "progress=false", "threads=1", "runtime=ray"),
        *("train.iterations=3", "train.games_per_iteration=6", "train.shard_games=1"),
        *(f"runtime.address={cluster.address}", "runtime.actors=2", f"run_dir={run}"),
    ]
    env = {**cluster.env, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
    p = subprocess.Popen(
        cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        deadline = time.monotonic() + 300
        while not list((run / "games").glob("selfplay-*.pdn")) and p.poll() is None:
            assert time.monotonic() < deadline, "no game within 300 s"
            time.sleep(0.2)
        cluster.stop_second_node()
        out, _ = p.communicate(timeout=600)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 0, out[-3000:]
    assert _games(run) == list(range(18))
