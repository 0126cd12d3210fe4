"""Outcome and style rates on small games counted by hand."""

from __future__ import annotations

import json

import pytest

from drl.analysis import analyze_games, as_games, outcome_rates, style_stats
from drl.eval.stats import wilson_interval

# English, counted by hand:
#   A: Black to move takes White's last man: Black (the first mover) wins in 1 ply.
#   B: White to move takes Black's last man: White (the first mover) wins in 1 ply.
#   C: two plies from the start, no result: truncated (first mover Black, 1/2).
#   D: two kings shuffle: threefold repetition after 8 plies (first mover White, 1/2).
ENGLISH = [
    {"opening": "B:W18:B14", "moves": ["14x23"]},
    {"opening": "W:W18:B14", "moves": ["18x9"]},
    {"moves": ["11-15", "22-18"]},
    {"opening": "W:WK32:BK1", "moves": ["32-28", "1-5", "28-32", "5-1"] * 2},
]


def test_outcome_rates_match_a_hand_count():
    out = outcome_rates(as_games(ENGLISH, "english"))
    assert out["games"] == 4
    fm = out["first_mover"]
    assert fm["score"]["value"] == pytest.approx(3 / 4)
    assert fm["score"]["ci95"] == pytest.approx(list(wilson_interval(3, 4)))
    assert fm["win"]["value"] == pytest.approx(2 / 4) and fm["loss"]["value"] == 0
    assert out["draw_rate"]["value"] == pytest.approx(1 / 4)
    assert out["truncation_rate"]["value"] == pytest.approx(1 / 4)
    assert out["decisive_rate"]["value"] == pytest.approx(2 / 4)
    assert out["length"]["mean"]["value"] == pytest.approx((1 + 1 + 2 + 8) / 4)
    assert out["length"]["median"] == pytest.approx(1.5)
    lo, hi = out["length"]["mean"]["ci95"]
    assert lo < 3 < hi
    assert out["terminations"] == {"no_pieces": 2, "max_plies": 1, "threefold_repetition": 1}
    assert out["taker"] is None and "same objective" in out["taker_note"]


def test_the_takers_score_in_give_and_take():
    # 1: Taker Black takes the Giver's last piece (Taker wins); 2: Taker White does the
    # same; 3: Giver White must take the Taker's last man (the Giver wins).
    games = as_games(
        [
            {"variant": "give_and_take", "opening": "B:W18:B14", "moves": ["14x23"]},
            {"variant": "give_and_take:taker=white", "opening": "W:W18:B14", "moves": ["18x9"]},
            {"variant": "give_and_take", "opening": "W:W18:B14", "moves": ["18x9"]},
        ]
    )
    out = outcome_rates(games)
    taker = out["taker"]
    assert taker["score"]["value"] == pytest.approx(2 / 3)
    assert taker["win"]["value"] == pytest.approx(2 / 3)
    assert out["giver"]["score"]["value"] == pytest.approx(1 / 3)
    assert taker["by_color"]["black"]["score"]["value"] == pytest.approx(1 / 2)
    assert taker["by_color"]["white"]["score"]["value"] == pytest.approx(1.0)
    # the first mover was the Taker in games 1 and 2 (both won), the Giver in game 3 (won)
    assert out["first_mover_by_role"]["taker"]["score"]["value"] == pytest.approx(1.0)
    assert out["first_mover_by_role"]["giver"]["score"]["n"] == 1
    assert out["taker_note"] is None


def test_both_givers_has_no_taker():
    out = outcome_rates(as_games([["11-15", "22-18"]], "give_and_take:objectives=give/give"))
    assert out["taker"] is None and out["giver"] is None
    assert "both players are Givers" in out["taker_note"]
    assert out["first_mover"]["score"]["value"] == pytest.approx(0.5)


# Style, counted by hand (English):
#   game 1: 11-15 (Black, quiet, no offer), 22-18 (White, quiet, offers 18 to 15x22),
#           15x22 (Black takes 1). Mobility 7, 7, 1.
#   game 2: Black 14x23x32 takes 2 and is crowned; 29-25 (White man); 32-27 (Black's
#           king moves); 25-22 (White); 1-6 (Black's man moves while it has a king).
STYLE = [
    {"moves": ["11-15", "22-18", "15x22"]},
    {"opening": "B:W18,27,29:B1,14", "moves": ["14x23x32", "29-25", "32-27", "25-22", "1-6"]},
]


def test_style_rates_match_a_hand_count():
    st = style_stats(as_games(STYLE, "english"))
    assert st["grouping"] == "mover"
    g = st["groups"]
    assert g["all"]["plies"] == 8
    assert g["first"]["plies"] == 5 and g["second"]["plies"] == 3
    assert g["second"]["offers"] == 1 and g["second"]["offer_rate"]["n"] == 3
    assert g["first"]["offers"] == 0 and g["first"]["offer_rate"]["n"] == 3
    assert g["all"]["capture_length"]["distribution"] == {"1": 1, "2": 1}
    assert g["all"]["capture_length"]["mean"]["value"] == pytest.approx(1.5)
    assert g["all"]["capture_length"]["multi_rate"]["value"] == pytest.approx(0.5)
    assert g["first"]["king_usage"]["value"] == pytest.approx(1 / 2)
    assert g["first"]["king_usage"]["n"] == 2
    assert g["second"]["king_usage"]["n"] == 0
    assert g["all"]["capture_rate"]["value"] == pytest.approx(2 / 8)


def test_style_in_give_and_take_is_by_role():
    st = style_stats(as_games([["11-15", "22-18", "15x22"]], "give_and_take"))
    assert st["grouping"] == "role"
    g = st["groups"]
    # Black is the Taker: 11-15 and 15x22; White the Giver offers with 22-18
    assert g["taker"]["plies"] == 2 and g["giver"]["plies"] == 1
    assert g["giver"]["offer_rate"]["value"] == 1.0
    assert g["taker"]["capture_length"]["distribution"] == {"1": 1}


def test_analyze_games_is_json_and_draws_every_position():
    s = analyze_games(ENGLISH, "english")
    json.dumps(s)
    assert s["material"] is None and s["games"] == 4
    assert len(s["sample_games"]) == 3
    first = s["sample_games"][0]
    assert first["fens"][0] == "B:W18:B14" and len(first["fens"]) == len(first["moves"]) + 1
    assert first["termination"] == "no_pieces" and "14x23" in first["pdn"]


def test_pdn_games_are_read_too():
    pdn = '[Event "t"]\n[GameType "21"]\n1. 11-15 22-18 2. 15x22 *\n'
    out = analyze_games(pdn, "english")
    assert out["games"] == 1 and out["style"]["groups"]["all"]["offers"] == 1


def test_bad_games_name_what_is_wrong():
    with pytest.raises(ValueError, match="ply 2 '11-15' is not legal"):
        as_games([["11-15", "11-15"]], "english")
    with pytest.raises(ValueError, match="unknown variant"):
        as_games([["11-15"]], "checkers9")
    with pytest.raises(ValueError, match="move list: give its variant"):
        as_games([["11-15"]])
    with pytest.raises(ValueError, match="no games"):
        analyze_games([], "english")


def test_the_package_example_runs():
    import doctest

    import drl.analysis

    assert doctest.testmod(drl.analysis).failed == 0
