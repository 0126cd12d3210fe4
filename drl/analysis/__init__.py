"""What a trained agent has learned, from its games, value head and policy.

Its outcome rates under its own play, the material values of its value head, its
first-move preferences next to people's, its style, and its endgame accuracy against the
endgame database (where one is on disk).

>>> from drl.analysis import analyze_games
>>> summary = analyze_games([["11-15", "22-18", "15x22"]], "english")
>>> summary["style"]["groups"]["all"]["offers"]   # 22-18 let Black take on the next ply
1

:func:`analyze_run` takes a run folder (``drl-train run_dir=...``; its newest good
checkpoint under ``checkpoints/``) or a checkpoint file, lets the agent play itself at a
stated search budget from distinct seeded random openings, and summarises the games, the
value head and the policy. :func:`analyze_games` does the network-free parts on any games
(arena records, PDN, hand-written move lists), with an optional value function
``evaluate(boards) -> values`` for the material probes. Statistics use scipy; nothing
here plots (the HTML report is :mod:`drl.analysis.report`).

Summary schema (:func:`analyze_run`; JSON-serialisable). A *rate* is
``{"value": float | None, "ci95": [lo, hi], "n": int}`` with the 95% Wilson interval; an
*estimate* (a mean or median) is ``{"value": float | None, "ci95": [lo, hi] | None,
"n": int}`` (Student-t for means, percentile bootstrap for medians and ratios)::

    name            str   run folder name (or checkpoint file stem)
    source          str   the path given
    checkpoint      str   the checkpoint file read
    variant         str   canonical variant string analysed (Give and Take without a
                          Taker colour: the colour alternates from game to game)
    trained_on      str | None   the variant in the checkpoint
    iteration       int | None   training iteration of the checkpoint
    games_trained   int | None   self-play games in the run's replay folder at that time
    drl_version     str   the drl version that wrote the checkpoint ("unknown": not recorded)
    code_version    str   the git commit of the code that wrote it ("unknown": not recorded)
    simulations     int   search simulations per step in the games below
    self_play       {"games", "opening_plies", "max_plies", "seed"}
    outcomes        (drl.analysis.outcomes.outcome_rates)
        games              int
        first_mover        block: {"score", "win", "draw", "loss", "truncated"} (rates;
                           score counts a draw or truncation as 1/2; draw = by rule)
        draw_rate, truncation_rate, decisive_rate   rates
        length             {"mean": estimate (plies), "median": float, "min", "max"}
        terminations       {termination: count}
        taker              Give and Take: the Taker's block + "by_color": {"black":
                           block, "white": block}; else None
        giver              Give and Take: the Giver's block; else None
        first_mover_by_role  Give and Take: {"taker": block, "giver": block} of the
                           first mover by its role; else None
        taker_note         str | None  why there is no Taker (both Givers, or no roles)
    material        (drl.analysis.material.material_values); None without a value function
        groups             {"all" | "taker" | "giver": {
                               "objective": "take" | "give" | "mixed",
                               "all" | "opening" | "middlegame" | "endgame": {
                                   "probes": int,
                                   "man_value": estimate (median dM, atanh units),
                                   "king_value": estimate (median dK, atanh units),
                                   "king_in_men": estimate (median dK / median dM)}}}
                           negative values (losing objectives) keep their sign
        counts             {"positions", "capture_pending", "no_man", "no_quiet_edit",
                            "probes", "king_removed", "man_crowned"}
        phases             {"start_pieces": int, "opening", "middlegame", "endgame": str}
        space, clip, method   "atanh", 0.999, str
    openings
        entries            one per start position asked about (Give and Take: the first
                           mover as Taker, then as Giver), each
                           {"variant", "mover_role": str | None, "fen", "legal": [moves],
                            "prior": {move: p}, "search": {move: p}, "simulations",
                            "human": None | {"counts": {move: n}, "freq": {move: p},
                                             "games", "skipped_bad", "skipped_setup",
                                             "sources": [paths]},
                            "human_reason": str | None (why human is None),
                            "divergence": None | {"prior" | "search": {
                                "js_distance": float (Jensen-Shannon, base 2),
                                "top_agreement": bool, "model_top": [moves],
                                "human_top": [moves], "support": [moves]}}}
        human_source       str | None
    style           (drl.analysis.style.style_stats)
        grouping           "role" (Give and Take) | "mover"
        groups             {"all" | "taker" | "giver" | "first" | "second": {
                               "plies": int, "offer_rate": rate (over non-capturing
                               moves), "offers": int, "capture_rate": rate,
                               "capture_length": {"mean": estimate (pieces),
                                   "distribution": {"<pieces>": count},
                                   "multi_rate": rate},
                               "king_usage": rate (plies where the mover had a king),
                               "mobility": estimate (legal moves)}}
    endgame         (drl.analysis.endgame.endgame_accuracy); None where the variant's
                    endgame database is not on disk
        pieces             int   the most pieces the database holds
        groups             {"all" | "taker" | "giver": {
                               "accuracy": rate (moves from won or drawn database
                                   positions that keep the value),
                               "win_kept": rate, "draw_kept": rate,
                               "moves": int, "from_loss": int (moves from lost
                                   positions, left out of the rates)}}
        players            {name: the same block for each player's moves} (the
                           self-play's two sides are "agent" and "agent (other side)")
    sample_games    up to 3: {"title", "pdn", "moves": [str], "fens": [FEN before the
                    first move, then after each ply], "result", "termination"}

Moves are written in the variant's standard notation (``str(Move)``).
"""

from drl.analysis.endgame import endgame_accuracy
from drl.analysis.games import PlayedGame, as_games, game_fens, mean_ci, rate, sample_game
from drl.analysis.material import (
    CLIP,
    MaterialSettings,
    Probe,
    ValueFn,
    material_probes,
    material_values,
    phase_of,
    summarize_probes,
)
from drl.analysis.openings import (
    FirstMoves,
    compare_first_moves,
    first_move_counts,
    human_collection,
)
from drl.analysis.outcomes import outcome_rates
from drl.analysis.run import (
    analyze_games,
    analyze_run,
    load_source,
    network_values,
    start_position_policy,
)
from drl.analysis.style import style_stats

__all__ = [
    "CLIP",
    "FirstMoves",
    "MaterialSettings",
    "PlayedGame",
    "Probe",
    "ValueFn",
    "analyze_games",
    "analyze_run",
    "as_games",
    "compare_first_moves",
    "endgame_accuracy",
    "first_move_counts",
    "game_fens",
    "human_collection",
    "load_source",
    "material_probes",
    "material_values",
    "mean_ci",
    "network_values",
    "outcome_rates",
    "phase_of",
    "rate",
    "sample_game",
    "start_position_policy",
    "style_stats",
    "summarize_probes",
]
