"""Hand-made summaries for the report tests: a short real game played on drl's Board, and
blocks in the shape of :func:`drl.analysis.analyze_run`'s summary."""

from __future__ import annotations

import random

from drl.rules import Board


def rate(value: float, lo: float, hi: float, n: int = 10) -> dict:
    return {"value": value, "ci95": [lo, hi], "n": n}


def played_game(variant: str = "english", plies: int = 12, seed: int = 3) -> dict:
    """A real game of random legal moves: moves, FENs before each and after the last."""
    rng = random.Random(seed)
    board = Board(variant)
    fens, moves = [board.fen()], []
    for _ in range(plies):
        legal = board.legal_moves
        if not legal or board.is_game_over():
            break
        move = rng.choice(legal)
        moves.append(str(move))
        board.push(move)
        fens.append(board.fen())
    return {
        "title": f"game 1 ({variant})",
        "pdn": '[Result "*"]\n' + " ".join(moves) + " *",
        "moves": moves,
        "fens": fens,
        "result": "*",
        "termination": "none",
    }


def summary(name: str = "english-run", variant: str = "english", taker: bool = False) -> dict:
    block = {
        "score": rate(0.55, 0.4, 0.7),
        "win": rate(0.3, 0.2, 0.4),
        "draw": rate(0.5, 0.4, 0.6),
        "loss": rate(0.2, 0.1, 0.3),
        "truncated": rate(0.1, 0.0, 0.2),
    }
    phase = {
        "probes": 40,
        "man_value": rate(0.2, 0.1, 0.3, 40),
        "king_value": rate(0.5, 0.4, 0.6, 40),
        "king_in_men": rate(2.5, 2.0, 3.1, 40),
    }
    return {
        "name": name,
        "source": f"/runs/{name}",
        "checkpoint": f"/runs/{name}/ckpt.pt",
        "variant": variant,
        "iteration": 7,
        "games_trained": 896,
        "simulations": 64,
        "self_play": {"games": 10, "opening_plies": 4, "max_plies": 200, "seed": 0},
        "outcomes": {
            "games": 10,
            "first_mover": block,
            "draw_rate": rate(0.5, 0.4, 0.6),
            "truncation_rate": rate(0.1, 0.0, 0.2),
            "decisive_rate": rate(0.4, 0.3, 0.5),
            "length": {"mean": rate(88.0, 70.0, 101.0), "median": 90, "min": 40, "max": 200},
            "taker": dict(block) if taker else None,
            "giver": dict(block) if taker else None,
        },
        "material": {"groups": {"all": {"objective": "take", "all": phase, "endgame": phase}}},
        "openings": {
            "entries": [
                {
                    "variant": variant,
                    "mover_role": None,
                    "legal": ["11-15", "9-13"],
                    "prior": {"11-15": 0.7, "9-13": 0.3},
                    "search": {"11-15": 0.9, "9-13": 0.1},
                    "human": None,
                    "human_reason": "no recorded games",
                    "divergence": None,
                }
            ]
        },
        "style": {
            "grouping": "mover",
            "groups": {
                "all": {
                    "plies": 300,
                    "offer_rate": rate(0.12, 0.1, 0.15, 250),
                    "offers": 30,
                    "capture_rate": rate(0.2, 0.15, 0.25, 300),
                    "capture_length": {
                        "mean": rate(1.2, 1.1, 1.3, 60),
                        "distribution": {"1": 50, "2": 10},
                        "multi_rate": rate(0.17, 0.1, 0.28, 60),
                    },
                    "king_usage": rate(0.8, 0.7, 0.85, 120),
                    "mobility": rate(7.5, 7.0, 8.0, 300),
                }
            },
        },
        "sample_games": [played_game(variant)],
    }
