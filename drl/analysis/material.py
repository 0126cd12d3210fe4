"""What the value function has learned material to be worth.

Probes are positions taken from games. A position is a probe when the game goes on, it is
quiet (the side to move has no capture: a position where a capture is pending is valued
mostly by the capture, not by the material), and the side to move has at least one man
and at least two pieces. For each probe, with ``u = atanh(clip(v, -CLIP, CLIP))`` of the
value ``v`` (side to move's view) and one of the mover's men ``s``:

- ``ΔM = u(P) - u(P without s)``: the worth of a man;
- ``ΔK = u(P) - u(P without a king k)`` when the mover has a king (method
  ``"king_removed"``), else ``ΔK = u(P with s crowned) - u(P without s)`` (method
  ``"man_crowned"``): the worth of a king added to the same rest of the position.

The man ``s`` and king ``k`` are the first (in a seeded random order) whose removal (or
crowning) leaves a quiet position whose game goes on; a probe where none does is
skipped. "A king is worth k men" is ``median ΔK / median ΔM``, with a 95% percentile
bootstrap interval (probes resampled with replacement, seeded), per game phase and
overall, per role of the mover in Give and Take.

Phases by the pieces on the board ``N`` against the start count ``S`` (24 on 8x8, 40 on
10x10): opening ``N >= 3/4 S``, endgame ``N <= S/3``, middlegame between.

In losing variants (giveaway, losing, Give and Take's Giver) material is worth less than
nothing to its owner: ΔM and ΔK come out negative, and they are reported with their sign.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from drl.analysis.games import PlayedGame, pieces_at_start, replay_game
from drl.rules import Board
from drl.rules.core import ST_BK, ST_BM, ST_TURN, ST_WK, ST_WM
from drl.rules.fen import FenPosition, format_fen

__all__ = [
    "CLIP",
    "ENDGAME_SHARE",
    "OPENING_SHARE",
    "MaterialSettings",
    "Probe",
    "ValueFn",
    "material_probes",
    "material_values",
    "phase_of",
    "summarize_probes",
]


@dataclass(frozen=True)
class MaterialSettings:
    """Probe and bootstrap counts of :func:`material_values`.

    How many probes it takes and how many bootstrap resamples its intervals use.

    Attributes:
        max_probes: most probed positions.
        n_boot: bootstrap resamples.
    """

    max_probes: int = 400
    n_boot: int = 2000


CLIP = 0.999
"""Values are clipped to ``[-CLIP, CLIP]`` before ``atanh`` (``atanh(0.999) ≈ 3.8``)."""

OPENING_SHARE = 0.75
"""Opening: at least this share of the start's pieces on the board."""

ENDGAME_SHARE = 1.0 / 3.0
"""Endgame: at most this share of the start's pieces on the board."""

PHASES = ("opening", "middlegame", "endgame")

ValueFn = Callable[[Sequence[Board]], np.ndarray]
"""``evaluate(boards) -> float[len(boards)]`` values in ``[-1, 1]`` from the view of each
board's side to move."""


@dataclass(frozen=True)
class Probe:
    """One probed position and its material deltas (in atanh space).

    Attributes:
        fen: the position.
        role: ``"taker"``/``"giver"`` of the mover in Give and Take, else None.
        objective: ``"take"`` or ``"give"``: what the mover plays for.
        phase: ``"opening"``, ``"middlegame"`` or ``"endgame"``.
        pieces: pieces on the board.
        value: ``v`` of the position.
        d_man: ``ΔM``.
        d_king: ``ΔK``.
        method: ``"king_removed"`` or ``"man_crowned"``.
    """

    fen: str
    role: str | None
    objective: str
    phase: str
    pieces: int
    value: float
    d_man: float
    d_king: float
    method: str


def phase_of(pieces: int, start_pieces: int) -> str:
    """The phase of a position with ``pieces`` on the board (see the module doc)."""
    if pieces >= OPENING_SHARE * start_pieces:
        return "opening"
    if pieces <= ENDGAME_SHARE * start_pieces:
        return "endgame"
    return "middlegame"


def _bits(x: int) -> list[int]:
    return [s for s in range(64) if (x >> s) & 1]


def _position(state: np.ndarray) -> tuple[int, list[list[int]]]:
    """``(turn, [black men, black kings, white men, white kings])`` of a state."""
    return int(state[ST_TURN]), [_bits(int(state[i])) for i in (ST_BM, ST_BK, ST_WM, ST_WK)]


def _board(variant: str, turn: int, sets: list[list[int]], size: int) -> Board:
    bm, bk, wm, wk = (frozenset(s) for s in sets)
    pos = FenPosition(turn, bm, bk, wm, wk)
    return Board(variant, fen=format_fen(pos, size))


def _quiet(board: Board) -> bool:
    """The game goes on and the side to move has no capture."""
    legal = board.legal_moves
    return bool(legal) and not board.is_game_over() and not any(m.is_capture for m in legal)


def _variants(board: Board, game: PlayedGame, rng: np.random.Generator) -> list[Board] | None:
    """``[P, P - s, P - k or P - s + K(s)]`` for one probe position, or None."""
    size = board.variant.board_size
    turn, sets = _position(board.state)
    men_i, kings_i = (0, 1) if turn == 0 else (2, 3)
    men, kings = sets[men_i], sets[kings_i]
    if not men or len(men) + len(kings) < 2:
        return None

    def edit(drop_man=None, drop_king=None, crown=None) -> Board:
        s = [list(x) for x in sets]
        if drop_man is not None:
            s[men_i].remove(drop_man)
        if drop_king is not None:
            s[kings_i].remove(drop_king)
        if crown is not None:
            s[men_i].remove(crown)
            s[kings_i].append(crown)
        return _board(game.variant, turn, s, size)

    base = _board(game.variant, turn, sets, size)
    for m in rng.permutation(men).tolist():
        no_man = edit(drop_man=m)
        if not _quiet(no_man):
            continue
        if kings:
            for k in rng.permutation(kings).tolist():
                no_king = edit(drop_king=k)
                if _quiet(no_king):
                    return [base, no_man, no_king]
            return None
        crowned = edit(crown=m)
        if _quiet(crowned):
            return [base, no_man, crowned]
    return None


def _candidates(
    games: Sequence[PlayedGame], counts: dict[str, int]
) -> list[tuple[PlayedGame, Board]]:
    """The quiet positions of ``games`` whose side to move has a man and another piece.

    Adds to ``counts`` the positions seen and those left out, by reason.
    """
    found: list[tuple[PlayedGame, Board]] = []
    for game in games:
        for board, _move in replay_game(game):
            counts["positions"] += 1
            if any(m.is_capture for m in board.legal_moves):
                counts["capture_pending"] += 1
                continue
            turn, sets = _position(board.state)
            men, kings = (sets[0], sets[1]) if turn == 0 else (sets[2], sets[3])
            if not men or len(men) + len(kings) < 2:
                counts["no_man"] += 1
                continue
            found.append((game, board.copy()))
    return found


def _values(evaluate: ValueFn, boards: list[Board]) -> np.ndarray:
    """``evaluate(boards)`` as ``float64[len(boards)]``, checked finite and in [-1, 1]."""
    v = np.asarray(evaluate(boards), dtype=np.float64).reshape(-1)
    if v.shape[0] != len(boards):
        raise ValueError(f"evaluate returned {v.shape[0]} values for {len(boards)} boards")
    if not np.isfinite(v).all() or np.abs(v).max() > 1.0 + 1e-6:
        raise ValueError("evaluate must return finite values in [-1, 1]")
    return v


def material_probes(
    games: Sequence[PlayedGame],
    evaluate: ValueFn,
    *,
    max_probes: int = 400,
    seed: int = 0,
) -> tuple[list[Probe], dict[str, int]]:
    """Probe the quiet positions of ``games`` with ``evaluate``.

    Args:
        games: the games (positions before each ply are candidates).
        evaluate: the value function (:data:`ValueFn`), called once with every board.
        max_probes: most probes kept (an even seeded sample of the candidates).
        seed: seeds the sample and the choice of the removed man and king.

    Returns:
        ``(probes, counts)``; ``counts`` = ``{"positions", "capture_pending",
        "no_man", "no_quiet_edit", "probes", "king_removed", "man_crowned"}``.

    Raises:
        ValueError: ``evaluate`` returns the wrong number of values, or values that are
            not finite or outside ``[-1, 1]``.
    """
    rng = np.random.default_rng(seed)
    counts = dict.fromkeys(("positions", "capture_pending", "no_man", "no_quiet_edit", "probes"), 0)
    found = _candidates(games, counts)
    if len(found) > max_probes:
        keep = np.sort(rng.choice(len(found), size=max_probes, replace=False))
        found = [found[i] for i in keep]
    boards: list[Board] = []
    kept = []
    for game, board in found:
        trio = _variants(board, game, rng)
        if trio is None:
            counts["no_quiet_edit"] += 1
            continue
        boards.extend(trio)
        turn, sets = _position(board.state)
        method = "king_removed" if sets[1 if turn == 0 else 3] else "man_crowned"
        pieces = sum(len(x) for x in sets)
        kept.append((game, board.fen(), board.role(turn), board.objective(turn), pieces, method))
    counts["probes"] = len(kept)
    counts["king_removed"] = sum(k[5] == "king_removed" for k in kept)
    counts["man_crowned"] = sum(k[5] == "man_crowned" for k in kept)
    if not kept:
        return [], counts
    v = _values(evaluate, boards)
    u = np.arctanh(np.clip(v, -CLIP, CLIP)).reshape(-1, 3)
    probes = []
    for (game, fen, role, objective, pieces, method), (p, no_man, third), val in zip(
        kept, u, v[0::3], strict=True
    ):
        d_king = p - third if method == "king_removed" else third - no_man
        probes.append(
            Probe(
                fen=fen,
                role=role,
                objective=objective,
                phase=phase_of(pieces, pieces_at_start(game.variant)),
                pieces=pieces,
                value=float(val),
                d_man=float(p - no_man),
                d_king=float(d_king),
                method=method,
            )
        )
    return probes, counts


def _bootstrap(dk: np.ndarray, dm: np.ndarray, n_boot: int, rng: np.random.Generator):
    """95% percentile intervals of median ΔM, median ΔK and their ratio."""
    n = len(dk)
    idx = rng.integers(0, n, size=(n_boot, n))
    mk = np.median(dk[idx], axis=1)
    mm = np.median(dm[idx], axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(np.abs(mm) > 1e-12, mk / mm, np.nan)

    def ci(x: np.ndarray) -> list[float] | None:
        x = x[np.isfinite(x)]
        if len(x) < 0.95 * n_boot:  # the ratio is undefined in too many resamples
            return None
        return [float(np.percentile(x, 2.5)), float(np.percentile(x, 97.5))]

    return ci(mm), ci(mk), ci(ratio)


def _estimate(value: float | None, ci: list[float] | None, n: int) -> dict[str, Any]:
    return {"value": value, "ci95": ci, "n": n}


def summarize_probes(
    probes: Sequence[Probe], *, n_boot: int = 2000, seed: int = 0
) -> dict[str, Any]:
    """Median worth of a man and a king and the king's worth in men, with bootstrap intervals.

    Returns:
        ``{phase: block}`` for ``"all"``, ``"opening"``, ``"middlegame"``, ``"endgame"``;
        each block ``{"probes": n, "man_value": est, "king_value": est, "king_in_men":
        est}`` with ``est = {"value", "ci95", "n"}`` (None value with no probes; None
        ratio when the median ΔM is 0; ``ci95`` None when undefined).
    """
    rng = np.random.default_rng(seed)
    out: dict[str, Any] = {}
    for phase in ("all", *PHASES):
        sub = [p for p in probes if phase == "all" or p.phase == phase]
        n = len(sub)
        if n == 0:
            none = _estimate(None, None, 0)
            out[phase] = {
                "probes": 0,
                "man_value": none,
                "king_value": dict(none),
                "king_in_men": dict(none),
            }
            continue
        dm = np.array([p.d_man for p in sub])
        dk = np.array([p.d_king for p in sub])
        mm, mk = float(np.median(dm)), float(np.median(dk))
        ratio = mk / mm if abs(mm) > 1e-12 else None
        ci_m, ci_k, ci_r = _bootstrap(dk, dm, n_boot, rng)
        out[phase] = {
            "probes": n,
            "man_value": _estimate(mm, ci_m, n),
            "king_value": _estimate(mk, ci_k, n),
            "king_in_men": _estimate(ratio, ci_r if ratio is not None else None, n),
        }
    return out


def material_values(
    games: Sequence[PlayedGame],
    evaluate: ValueFn,
    *,
    max_probes: int = 400,
    n_boot: int = 2000,
    seed: int = 0,
) -> dict[str, Any]:
    """Learned material values from the quiet positions of ``games``.

    Args:
        games: the games to take positions from.
        evaluate: the value function (:data:`ValueFn`).
        max_probes: most probed positions.
        n_boot: bootstrap resamples.
        seed: seeds the probe sample, the removed pieces and the bootstrap.

    Returns:
        ``{"groups": {group: {phase: block}}, "counts": {...}, "phases": {...},
        "space": "atanh", "clip": CLIP, "method": str}``; groups are ``all`` plus, in Give
        and Take, ``taker`` and ``giver`` (the role of the side to move; both Givers:
        ``giver``), blocks as in :func:`summarize_probes`. Each group also says the
        mover's ``objective`` (``take``, ``give`` or ``mixed``).

    Raises:
        ValueError: see :func:`material_probes`.
    """
    probes, counts = material_probes(games, evaluate, max_probes=max_probes, seed=seed)
    groups: dict[str, Any] = {}
    roles = sorted({p.role for p in probes if p.role is not None}, key=("taker", "giver").index)
    for group in ["all", *roles]:
        sub = [p for p in probes if group == "all" or p.role == group]
        objectives = {p.objective for p in sub}
        block = summarize_probes(sub, n_boot=n_boot, seed=seed)
        block["objective"] = (
            objectives.pop() if len(objectives) == 1 else ("mixed" if objectives else None)
        )
        groups[group] = block
    start = pieces_at_start(games[0].variant) if games else None
    return {
        "groups": groups,
        "counts": counts,
        "phases": {
            "start_pieces": start,
            "opening": f"pieces >= {OPENING_SHARE:g} x start",
            "endgame": "pieces <= 1/3 x start",
            "middlegame": "between",
        },
        "space": "atanh",
        "clip": CLIP,
        "method": (
            "quiet positions only (no capture for the side to move, also after the edit); "
            "dM = u(P) - u(P - man); dK = u(P) - u(P - king), or u(P - man + king on its "
            "square) - u(P - man) when the mover has no king; king_in_men = median dK / "
            "median dM; 95% percentile bootstrap over probes"
        ),
    }
