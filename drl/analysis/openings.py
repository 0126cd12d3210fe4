"""First-move preferences at the start position: the network's, and people's.

People's come from recorded games.

Moves are keyed by their standard notation (``str(Move)``: ``"11-15"`` on the English
board, ``"c3-d4"`` in Russian notation). Human histograms come from the PDN collections
in ``<shared>/data/games/<variant>/`` (:func:`drl._paths.shared_dir`; ``DRL_SHARED``
overrides): only games that start from the standard position are counted (a game with a
``FEN`` tag of another position is skipped as a set-up), and a game that cannot be read
or whose first move is not legal is skipped and counted as bad.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy.spatial.distance import jensenshannon

from drl.analysis.games import parse_variant
from drl.rules import Board, IllegalMoveError, Variant
from drl.rules.pdn import PDNError, read_games

__all__ = [
    "HUMAN_COLLECTIONS",
    "FirstMoves",
    "compare_first_moves",
    "first_move_counts",
    "human_collection",
]

HUMAN_COLLECTIONS = ("english", "russian", "international", "brazilian")
"""Variants with a collection of recorded games (a folder of that name)."""


@dataclass
class FirstMoves:
    """A histogram of first moves.

    Attributes:
        counts: ``{move text: games}``.
        games: games counted.
        bad: games skipped because they could not be read or their first move was not
            legal (or missing).
        setup: games skipped because they start from a set-up position (``FEN`` tag).
        sources: files read.
    """

    counts: dict[str, int] = field(default_factory=dict)
    games: int = 0
    bad: int = 0
    setup: int = 0
    sources: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The summary's ``human`` block: counts (most played first), frequencies, skips."""
        total = sum(self.counts.values())
        return {
            "counts": dict(sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0]))),
            "freq": {k: v / total for k, v in self.counts.items()} if total else {},
            "games": self.games,
            "skipped_bad": self.bad,
            "skipped_setup": self.setup,
            "sources": list(self.sources),
        }


def _pdn_sources(source: str | os.PathLike) -> list[Path] | None:
    """Files to read for ``source``, or None when it is PDN text.

    A one-line string without spaces that names a folder, ends in ``.pdn`` or holds a
    path separator is a path (and must exist); other strings are PDN text.
    """
    if isinstance(source, str):
        one_word = "\n" not in source and not any(c.isspace() for c in source)
        if not one_word or not (
            Path(source).is_dir() or source.lower().endswith(".pdn") or os.sep in source
        ):
            return None
    p = Path(source)
    if p.is_dir():
        return sorted(q for q in p.iterdir() if q.suffix.lower() == ".pdn" and q.is_file())
    if not p.exists():
        raise ValueError(f"PDN source {p} does not exist")
    return [p]


def first_move_counts(source: str | os.PathLike, variant: Variant | str) -> FirstMoves:
    """Count the first moves of the games in ``source``.

    Args:
        source: PDN text, a PDN file, or a folder (its ``*.pdn`` files, sorted by name).
        variant: the rules the moves are read under (its start position is the standard
            one; a game whose ``FEN`` tag is that position counts).

    Returns:
        :class:`FirstMoves`.

    Raises:
        ValueError: an unknown variant, or a path that does not exist.
    """
    v = parse_variant(variant)
    start = Board(v)
    start_fen = start.fen()
    out = FirstMoves()
    files = _pdn_sources(source)
    texts: list[tuple[str, Any]] = (
        [(str(f), f) for f in files] if files is not None else [("<text>", source)]
    )
    for name, src in texts:
        out.sources.append(name)
        try:
            games = list(read_games(src, strict=False))
        except (PDNError, OSError, UnicodeDecodeError):
            out.bad += 1  # the file as a whole cannot be read: counted as one bad game
            continue
        for g in games:
            if g.error is not None:
                out.bad += 1
                continue
            fen = g.fen
            if fen is not None:
                try:
                    same = Board(v, fen=fen).fen() == start_fen
                except ValueError:
                    out.bad += 1
                    continue
                if not same:
                    out.setup += 1
                    continue
            if not g.moves:
                out.bad += 1
                continue
            try:
                move = start.parse_move(g.moves[0])
            except IllegalMoveError:
                out.bad += 1
                continue
            key = str(move)
            out.counts[key] = out.counts.get(key, 0) + 1
            out.games += 1
    return out


def human_collection(
    variant: Variant | str, games_dir: str | os.PathLike | None = None
) -> tuple[Path | None, str | None]:
    """Where the recorded games of ``variant`` are: ``(folder, None)`` or ``(None, reason)``.

    ``(None, reason)`` when there are none.

    A collection is used only for the preset it was recorded under, with the same board,
    rows of men, first player and objectives (house rules that do not change the first
    moves are allowed).

    Args:
        variant: the variant.
        games_dir: the folder holding one folder per variant (default
            ``<shared>/data/games``).
    """
    from drl._paths import shared_dir

    v = parse_variant(variant)
    base = Variant.parse(v.name)
    if v.name not in HUMAN_COLLECTIONS:
        return (
            None,
            f"no collection of recorded games for {v.name} (only {', '.join(HUMAN_COLLECTIONS)})",
        )
    if (v.board_size, v.rows_of_men, v.first_player, v.objectives) != (
        base.board_size,
        base.rows_of_men,
        base.first_player,
        base.objectives,
    ):
        return None, f"{v} changes the start of {v.name}: its recorded games do not apply"
    root = Path(games_dir) if games_dir is not None else shared_dir() / "data" / "games"
    folder = root / v.name
    if not folder.is_dir():
        return None, f"no folder of recorded games at {folder}"
    if not any(q.suffix.lower() == ".pdn" for q in folder.iterdir()):
        return None, f"no PDN files in {folder}"
    return folder, None


def _top(dist: Mapping[str, float]) -> list[str]:
    if not dist:
        return []
    best = max(dist.values())
    return sorted(k for k, p in dist.items() if p == best)


def compare_first_moves(
    model: Mapping[str, float], human: Mapping[str, float], legal: Sequence[str]
) -> dict[str, Any]:
    """How far a model's first-move distribution is from the human one.

    Args:
        model: ``{move: probability}`` (need not be normalised).
        human: ``{move: count or frequency}``.
        legal: the legal first moves (the union with the keys of both is the support).

    Returns:
        ``{"js_distance": float in [0, 1] (Jensen-Shannon distance, base 2),
        "top_agreement": bool (the model's most likely move is among the humans' most
        played), "model_top": [moves], "human_top": [moves], "support": [moves]}``.

    Raises:
        ValueError: either distribution is empty or sums to 0.
    """
    support = sorted(set(legal) | set(model) | set(human))
    p = np.array([float(model.get(m, 0.0)) for m in support])
    q = np.array([float(human.get(m, 0.0)) for m in support])
    if p.sum() <= 0 or q.sum() <= 0:
        raise ValueError("compare_first_moves: a distribution is empty")
    model_top, human_top = _top(model), _top(human)
    return {
        "js_distance": float(jensenshannon(p / p.sum(), q / q.sum(), base=2)),
        "top_agreement": bool(set(model_top) & set(human_top)),
        "model_top": model_top,
        "human_top": human_top,
        "support": support,
    }
