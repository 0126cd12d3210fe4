"""The trained network with search as a player: ``az:ckpt=PATH,sims=N``.

:class:`NetworkPlayer` picks full moves for many boards at once: every board that needs
a decision is searched in one batched MCTS call per step (a multi-jump takes one search
per step, a single legal step is played without search). :class:`AZAgent` wraps it in
the agent interface of :mod:`drl.agents` for one game at a time; importing this module
registers the ``az`` kind.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch

from drl.agents import Agent, Param, register_agent, registered_agents
from drl.encode.mask import MAX_STEPS, legal_step_mask, step_outcome
from drl.nn import NetConfig, NetworkEvaluator, PolicyValueNet
from drl.rules import Board, Move
from drl.rules.core import (MAX_MOVES, MOVE_WIDTH, ST_HASH, ST_NOPROG, ST_PLY, ST_TURN,
                            generate_moves)
from drl.search import BatchedMCTS, Evaluator, Roots, SearchConfig
from drl.train.checkpoint import load_checkpoint

__all__ = ["AZAgent", "NetworkPlayer", "history_by_ply", "network_from_checkpoint",
           "search_config_from_checkpoint"]


def network_from_checkpoint(payload: dict, device: str | torch.device = "cpu") -> PolicyValueNet:
    """Rebuild the network stored in a checkpoint payload (eval mode).

    Raises:
        ValueError: if the stored network configuration is not understood.
    """
    try:
        net = PolicyValueNet(NetConfig(**payload["net_config"]))
        net.load_state_dict(payload["model"])
    except (TypeError, RuntimeError) as err:
        raise ValueError(f"checkpoint network does not match its net_config: {err}") from None
    return net.to(device).eval()


def search_config_from_checkpoint(payload: dict, simulations: int | None = None) -> SearchConfig:
    """The search settings the checkpoint was trained with (budget optionally replaced)."""
    from omegaconf import OmegaConf

    fields = dict(SearchConfig().__dict__)
    text = payload.get("config_yaml")
    if text:
        stored = OmegaConf.to_container(OmegaConf.create(text)).get("search", {})
        fields.update({k: v for k, v in stored.items() if k in fields})
    if simulations is not None:
        fields["num_simulations"] = int(simulations)
    return SearchConfig(**fields)


def history_by_ply(board: Board) -> np.ndarray:
    """Hashes of the positions that can still repeat, indexed by ply.

    Returns:
        ``int64[ply + 1]``: entry i is the Zobrist hash of the position at ply i for the
        last ``ST_NOPROG`` plies and the current one; older entries are 0 (unknown; they
        cannot repeat after an irreversible move).
    """
    ply = int(board.state[ST_PLY])
    out = np.zeros(ply + 1, np.int64)
    out[ply] = board.state[ST_HASH]
    k = min(int(board.state[ST_NOPROG]), len(board.move_stack), ply)
    if k:
        b = board.copy()
        for j in range(1, k + 1):
            b.pop()
            out[ply - j] = b.state[ST_HASH]
    return out


class NetworkPlayer:
    """Chooses full moves for a batch of boards with network-guided search.

    Args:
        evaluate: the network (an :class:`~drl.search.Evaluator`).
        search: search settings; noise is off (deterministic play).
        seed: seeds the search's tie-breaking generator.
    """

    def __init__(self, evaluate: Evaluator, search: SearchConfig, seed: int = 0) -> None:
        self.evaluate = evaluate
        self.search = search
        self.rng = np.random.default_rng(seed)
        self._mcts: BatchedMCTS | None = None
        self._moves = np.empty((MAX_MOVES, MOVE_WIDTH), np.int64)

    def _tree(self, n: int, board_size: int) -> BatchedMCTS:
        m = self._mcts
        if m is None or m.batch_size < n or m.board_size != board_size:
            m = BatchedMCTS(self.search, max(n, 1), board_size)
            self._mcts = m
        return m

    def choose_moves(self, boards: Sequence[Board]) -> list[Move]:
        """One move for each board (each must have a legal move).

        Raises:
            ValueError: if a board's game is over or the boards mix board sizes.
        """
        if not boards:
            return []
        sizes = {b.variant.board_size for b in boards}
        if len(sizes) != 1:
            raise ValueError(f"boards mix board sizes {sorted(sizes)}")
        size = sizes.pop()
        for b in boards:
            if not b.legal_moves:
                raise ValueError(f"no legal move: the game is over in {b.fen()}")
        n = len(boards)
        states = np.stack([np.asarray(b.state, np.int64) for b in boards])
        params = np.stack([np.asarray(b.variant.params, np.int64) for b in boards])
        hists = [history_by_ply(b) for b in boards]
        h = max(len(x) for x in hists)
        hist = np.zeros((n, h), np.int64)
        for i, x in enumerate(hists):
            hist[i, :len(x)] = x
        reps = np.array([int(np.count_nonzero(x[:-1] == x[-1])) for x in hists], np.int64)
        prefixes = np.zeros((n, MAX_STEPS), np.int64)
        plens = np.zeros(n, np.int64)
        chosen: list[Move | None] = [None] * n
        mcts = self._tree(n, size)
        mask = np.zeros(mcts.num_actions, np.bool_)
        while any(c is None for c in chosen):
            todo = np.array([c is None for c in chosen])
            actions = np.full(n, -1, np.int64)
            for i in np.flatnonzero(todo):
                if legal_step_mask(states[i], params[i], prefixes[i], plens[i], mask) == 1:
                    actions[i] = int(np.flatnonzero(mask)[0])
            need = todo & (actions < 0)
            if need.any():
                roots = Roots(states, prefixes, plens, reps, params, hist,
                              states[:, ST_PLY] + 1)
                res = mcts.run(roots, self.evaluate, self.rng, active=need, explore=False)
                actions[need] = res.action[need]
            for i in np.flatnonzero(todo):
                prefixes[i, plens[i]] = actions[i]
                k = generate_moves(states[i], params[i], self._moves)
                turn = int(states[i, ST_TURN])
                where = step_outcome(self._moves, k, turn, params[i], prefixes[i], plens[i] + 1)
                if where == -2:
                    raise RuntimeError(f"search chose an illegal step in {boards[i].fen()}")
                if where == -1:
                    plens[i] += 1
                    continue
                played = Move.from_row(self._moves[where].copy(), size,
                                       boards[i].variant.notation)
                chosen[i] = next(m for m in boards[i].legal_moves if m == played)
        return chosen  # type: ignore[return-value]


class AZAgent(Agent):
    """A checkpointed network with batched MCTS, as an :class:`~drl.agents.Agent`.

    Args:
        ckpt: path of a training checkpoint (``ckpt-*.pt``) or of a run folder (its
            newest good checkpoint is used).
        sims: simulations per step (default: the budget it was trained with).
        device: ``cpu``, ``cuda`` or ``auto``.
        seed: tie-breaking seed.

    Raises:
        ValueError: if the checkpoint is missing, damaged or not a drl checkpoint.
    """

    def __init__(self, ckpt: str, sims: int | None = None, device: str = "auto",
                 seed: int | None = None) -> None:
        from drl.train.checkpoint import CheckpointError, load_latest

        path = Path(ckpt)
        try:
            if path.is_dir():
                found = load_latest(path / "checkpoints" if (path / "checkpoints").is_dir()
                                    else path)
                if found is None:
                    raise CheckpointError(f"no checkpoint in {path}")
                path, payload = found
            else:
                payload = load_checkpoint(path)
        except CheckpointError as err:
            raise ValueError(str(err)) from None
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.path = path
        self.net = network_from_checkpoint(payload, device)
        self.player = NetworkPlayer(NetworkEvaluator(self.net, device),
                                    search_config_from_checkpoint(payload, sims), seed or 0)
        self.name = f"az:sims={self.player.search.num_simulations}"

    def reset(self, seed: int | None = None) -> None:
        self.player.rng = np.random.default_rng(seed)

    def select_move(self, board: Board) -> Move:
        return self.player.choose_moves([board])[0]


def _make_az(ckpt: str | None = None, sims: int | None = None, device: str = "auto",
             seed: int | None = None) -> Agent:
    if not ckpt:
        raise ValueError("az needs ckpt=PATH (a checkpoint file or a run folder)")
    return AZAgent(ckpt, sims=sims, device=device, seed=seed)


if "az" not in registered_agents():
    register_agent("az", _make_az, {
        "ckpt": Param(str, None, "checkpoint file, or a run folder (newest good checkpoint)"),
        "sims": Param(int, None, "simulations per step (default: as trained)", 1, 1_000_000),
        "device": Param(str, "auto", "cpu, cuda or auto"),
        "seed": Param(int, None, "tie-break seed"),
    }, "trained policy-value network with batched MCTS (drl-train checkpoints)")
