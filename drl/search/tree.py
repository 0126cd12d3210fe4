"""The search tree: B trees in preallocated arrays, one named structure.

:class:`Tree` is a ``typing.NamedTuple`` of numpy arrays, so the compiled kernels take
it as one argument and read its fields by name. B games are searched together; every
tree has room for N nodes (N = most simulations + 1: each simulation adds at most one
node) and E edges (grown on demand by :func:`with_edge_capacity`). Node 0 is the root.

A node is a position in step space, held in the game core's position layout
(``drl.game.kernels``: state, steps of the move in progress, earlier occurrences,
legal move count, result code). A multi-jump is several nodes in a row with the same
player to move, so every value below is from the point of view of the player to move
at its node (``pos[..., ST_TURN]``), never "flipped every ply".

The edges of a node are the contiguous range ``edge_start .. edge_start + edge_count``
of the edge arrays; the root's edges are created first, so they are ``0 .. k - 1``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from drl.game.kernels import POS_SIZE
from drl.rules.variant import PARAMS_SIZE

__all__ = [
    "GUMBEL",
    "NO_NODE",
    "PUCT",
    "Leaves",
    "SearchParams",
    "Tree",
    "allocate",
    "allocate_leaves",
    "with_edge_capacity",
    "with_history_capacity",
]

NO_NODE = -1
"""``parent`` of the root, ``child`` of an edge whose node is not created yet."""

PUCT = 0
"""``SearchParams.root_selection`` code of PUCT root selection."""
GUMBEL = 1
"""``SearchParams.root_selection`` code of Gumbel root selection."""


class Tree(NamedTuple):
    """B search trees of N nodes and E edges each.

    Nodes (``[B, N]`` unless noted):

    Attributes:
        pos: ``int64[B, N, POS_SIZE]`` the node's position, game core layout
            (``drl.game.kernels``); ``pos[b, n, ST_TURN]`` is the node's player to move.
        parent: ``int64[B, N]`` parent node, ``NO_NODE`` at the root.
        parent_edge: ``int64[B, N]`` edge from the parent to the node, -1 at the root.
        edge_start: ``int64[B, N]`` first edge of the node.
        edge_count: ``int64[B, N]`` number of edges; 0 until the node is expanded, and
            always 0 at a terminal node.
        visits: ``int64[B, N]`` simulations through the node.
        value_sum: ``float64[B, N]`` sum of the values backed up through the node, for
            the node's player to move (mean = ``value_sum / visits``).
        num_nodes: ``int64[B]`` nodes in use (``0 .. num_nodes - 1``).

    Edges (``[B, E]``):

    Attributes:
        action: ``int64[B, E]`` step action (``drl.encode.actions``) of the edge.
        prior: ``float64[B, E]`` network prior (softmax over the legal steps; at a PUCT
            root mixed with Dirichlet noise when exploring).
        child: ``int64[B, E]`` node the edge leads to, ``NO_NODE`` until created.
        edge_visits: ``int64[B, E]`` simulations through the edge.
        edge_value_sum: ``float64[B, E]`` sum of the values backed up through the edge,
            for the player to move at the edge's parent node.
        num_edges: ``int64[B]`` edges in use.

    Per game (filled for each search):

    Attributes:
        params: ``int64[B, PARAMS_SIZE]`` the game's variant parameters.
        hist: ``int64[B, H]`` the game's position hashes by ply (``drl.rules.core.
            count_repetitions``): the history up to the root, then the move-boundary
            nodes of the path being descended, rewritten on every descent; H exceeds the
            deepest ply the tree can reach.
        budget: ``int64[B]`` simulations of this search; 0 = the game is not searched.

    Root selection (see :mod:`drl.search.root`):

    Attributes:
        noise: ``float64[B]`` weight of the Dirichlet noise mixed into the root priors
            (PUCT, exploring; 0 = none).
        gumbel_scale: ``float64[B]`` scale of the Gumbel samples of the root scores
            (Gumbel, exploring; 0 = none).
        root_value: ``float64[B]`` network value of the root, for its player to move.
        root_score: ``float64[B, A]`` Gumbel: ``g + log prior`` of root edge ``i`` at
            index ``i``.
        root_work: ``float64[B, A]`` work space of the root selection (Dirichlet samples,
            completed Q of the root edges).
        schedule: ``int64[B, S]`` Gumbel: visit count that the root edge chosen at
            simulation ``i`` must have beforehand (:func:`~drl.search.halving_schedule`);
            S = most simulations.
    """

    pos: np.ndarray
    parent: np.ndarray
    parent_edge: np.ndarray
    edge_start: np.ndarray
    edge_count: np.ndarray
    visits: np.ndarray
    value_sum: np.ndarray
    num_nodes: np.ndarray
    action: np.ndarray
    prior: np.ndarray
    child: np.ndarray
    edge_visits: np.ndarray
    edge_value_sum: np.ndarray
    num_edges: np.ndarray
    params: np.ndarray
    hist: np.ndarray
    budget: np.ndarray
    noise: np.ndarray
    gumbel_scale: np.ndarray
    root_value: np.ndarray
    root_score: np.ndarray
    root_work: np.ndarray
    schedule: np.ndarray


class Leaves(NamedTuple):
    """The leaves of one simulation round waiting for the network, one slot each.

    Attributes:
        node: ``int64[B]`` node queued for game b, ``NO_NODE`` if none.
        slot: ``int64[B]`` its slot (row of ``obs`` and ``mask``), -1 if none; the
            queued games take slots ``0 .. L - 1`` in game order.
        num_legal: ``int64[B]`` legal steps of the leaf in each slot.
        obs: ``float32[B, C, n, n]`` observation planes of the leaf in each slot, from
            its player to move.
        mask: ``bool[B, A]`` legal steps of the leaf in each slot, True = legal.
    """

    node: np.ndarray
    slot: np.ndarray
    num_legal: np.ndarray
    obs: np.ndarray
    mask: np.ndarray


class SearchParams(NamedTuple):
    """The scalar settings the kernels read (built once from ``SearchConfig``).

    Attributes:
        root_selection: ``PUCT`` or ``GUMBEL``.
        c_puct: PUCT exploration constant.
        fpu_reduction: unvisited edges are valued at the parent's mean minus this.
        dirichlet_alpha: concentration of the root's Dirichlet noise.
        c_visit: ``c_visit`` of Gumbel's sigma transform.
        c_scale: ``c_scale`` of Gumbel's sigma transform.
        max_plies: a move-boundary node at this ply or later is a leaf valued 0
            (training truncation); 0 = off.
    """

    root_selection: int
    c_puct: float
    fpu_reduction: float
    dirichlet_alpha: float
    c_visit: float
    c_scale: float
    max_plies: int


def allocate(
    batch: int, nodes: int, edges: int, num_actions: int, simulations: int, history: int = 1
) -> Tree:
    """Zeroed trees.

    Args:
        batch: B, games searched together.
        nodes: N, nodes per tree.
        edges: E, initial edges per tree.
        num_actions: A, step actions of the board size.
        simulations: S, the most simulations per search.
        history: H, initial width of the history by ply.
    """
    b, i64, f64 = batch, np.int64, np.float64
    return Tree(
        pos=np.zeros((b, nodes, POS_SIZE), i64),
        parent=np.full((b, nodes), NO_NODE, i64),
        parent_edge=np.full((b, nodes), -1, i64),
        edge_start=np.zeros((b, nodes), i64),
        edge_count=np.zeros((b, nodes), i64),
        visits=np.zeros((b, nodes), i64),
        value_sum=np.zeros((b, nodes), f64),
        num_nodes=np.zeros(b, i64),
        action=np.zeros((b, edges), i64),
        prior=np.zeros((b, edges), f64),
        child=np.full((b, edges), NO_NODE, i64),
        edge_visits=np.zeros((b, edges), i64),
        edge_value_sum=np.zeros((b, edges), f64),
        num_edges=np.zeros(b, i64),
        params=np.zeros((b, PARAMS_SIZE), i64),
        hist=np.zeros((b, max(history, 1)), i64),
        budget=np.zeros(b, i64),
        noise=np.zeros(b, f64),
        gumbel_scale=np.zeros(b, f64),
        root_value=np.zeros(b, f64),
        root_score=np.zeros((b, num_actions), f64),
        root_work=np.zeros((b, num_actions), f64),
        schedule=np.zeros((b, simulations), i64),
    )


def allocate_leaves(batch: int, num_actions: int, obs_shape: tuple[int, ...]) -> Leaves:
    """Empty leaf slots for B games (``obs_shape`` = ``(C, n, n)``)."""
    return Leaves(
        node=np.full(batch, NO_NODE, np.int64),
        slot=np.full(batch, -1, np.int64),
        num_legal=np.zeros(batch, np.int64),
        obs=np.zeros((batch,) + tuple(obs_shape), np.float32),
        mask=np.zeros((batch, num_actions), np.bool_),
    )


def with_edge_capacity(tree: Tree, edges: int) -> Tree:
    """The same trees with room for ``edges`` edges each (edges in use are kept)."""
    old = tree.action.shape[1]
    if edges <= old:
        return tree
    grown = {}
    for name, fill in (
        ("action", 0),
        ("prior", 0),
        ("child", NO_NODE),
        ("edge_visits", 0),
        ("edge_value_sum", 0),
    ):
        arr = getattr(tree, name)
        new = np.full((arr.shape[0], edges), fill, arr.dtype)
        new[:, :old] = arr
        grown[name] = new
    return tree._replace(**grown)


def with_history_capacity(tree: Tree, width: int) -> Tree:
    """The same trees with a history ``hist`` at least ``width`` plies wide.

    Its contents are not kept: the search rewrites it for every search.
    """
    if width <= tree.hist.shape[1]:
        return tree
    return tree._replace(hist=np.zeros((tree.hist.shape[0], width), np.int64))
