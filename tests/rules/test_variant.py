"""Variant flags, presets, parsing, canonical strings and the kernel parameter array."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drl.rules import variant as V
from drl.rules.variant import PRESETS, Variant, VariantError

# DESIGN section 2, "Named variants": (board, first, men back, flying, max capture,
# promotion mid-capture, objectives, no-progress plies, notation).
# fmt: off
DESIGN_TABLE = {
    "english": (8, "black", False, False, False, "stop", ("take", "take"), 80, "numeric"),
    "russian": (8, "white", True, True, False, "continue_as_king", ("take", "take"), 30,
                "algebraic"),
    "brazilian": (8, "white", True, True, True, "continue_as_man", ("take", "take"), 50,
                  "algebraic"),
    "international": (10, "white", True, True, True, "continue_as_man", ("take", "take"), 50,
                      "numeric"),
    "giveaway": (8, "white", True, True, False, "continue_as_king", ("give", "give"), 30,
                 "algebraic"),
    "losing": (8, "black", False, False, False, "continue_as_man", ("give", "give"), None,
               "numeric"),
    "give_and_take": (8, "black", False, False, False, "stop", ("take", "give"), None,
                      "numeric"),
}
# fmt: on


@pytest.mark.parametrize("name", sorted(DESIGN_TABLE))
def test_presets_follow_the_design_table(name):
    v = Variant.preset(name)
    row = DESIGN_TABLE[name]
    board, first, back, flying, max_cap, promo, objectives, no_progress, notation = row
    assert v.name == name
    assert v.board_size == board
    assert v.rows_of_men == (3 if board == 8 else 4)
    assert v.first_player == first
    assert v.men_capture_backward is back
    assert v.flying_kings is flying
    assert v.max_capture is max_cap
    assert v.promotion_mid_capture == promo
    assert v.objectives == objectives
    assert v.no_progress_plies == no_progress
    assert v.notation == notation
    assert v.repetition_draw == 3
    assert v.promotion == "crown"
    assert v.endgame_rule == {"international": "fmjd", "russian": "russian"}.get(name, "none")
    assert str(v) == name


def test_every_preset_is_tested():
    assert set(PRESETS) == set(DESIGN_TABLE)


def test_parse_flags_from_the_brief_example():
    v = Variant.parse("give_and_take:max_capture=true,board_size=10,taker=white")
    assert (v.max_capture, v.board_size, v.rows_of_men, v.taker) == (True, 10, 4, "white")
    assert v.objectives == ("give", "take")
    assert v.role(0) == "giver" and v.role(1) == "taker"
    assert Variant.parse(str(v)) == v


def test_board_size_sets_rows_unless_given():
    assert Variant.parse("english:board_size=10").rows_of_men == 4
    assert Variant.parse("international:board_size=8").rows_of_men == 3
    assert Variant.parse("english:board_size=10,rows_of_men=3").rows_of_men == 3
    assert Variant.parse("english:rows_of_men=2,board_size=10").rows_of_men == 2


def test_give_and_take_roles_and_both_givers():
    default = Variant.preset("give_and_take")
    assert default.taker == "black" and default.objectives == ("take", "give")
    assert default.is_asymmetric
    white_takes = Variant.parse("give_and_take:taker=white")
    assert white_takes.objectives == ("give", "take")
    both = Variant.parse("give_and_take:objectives=give/give")
    assert not both.is_asymmetric
    assert both.role(0) == both.role(1) == "giver"
    assert Variant.parse(str(both)) == both
    # Objectives written out make the taker follow them.
    assert Variant.parse("give_and_take:objectives=give/take").taker == "white"


def test_with_taker_flips_the_objectives_with_the_takers_colour():
    v = Variant.parse("give_and_take:board_size=10")
    white = v.with_taker("white")
    assert white == Variant.parse("give_and_take:board_size=10,taker=white")
    assert white.role(1) == "taker" and white.role(0) == "giver"
    assert white.with_taker("black") == v and v.with_taker("black") == v
    asym = Variant.parse("english:objectives=take/give")
    assert asym.with_taker("white").objectives == ("give", "take")
    # Without one Taker and one Giver there is no colour to set.
    for same in (Variant.preset("english"), Variant.parse("give_and_take:objectives=give/give")):
        assert same.with_taker("white") is same
    with pytest.raises(VariantError, match="taker must be 'black' or 'white'"):
        v.with_taker("red")


def test_roles_outside_give_and_take():
    for name in ("english", "russian", "giveaway", "losing"):
        assert Variant.preset(name).role(0) is None
        assert not Variant.preset(name).is_asymmetric
    asym = Variant.parse("english:objectives=take/give")
    assert asym.is_asymmetric and asym.role("black") == "taker" and asym.role(1) == "giver"
    with pytest.raises(VariantError):
        asym.role(2)


def test_conflicting_taker_and_objectives_rejected():
    with pytest.raises(VariantError, match="taker"):
        Variant.parse("give_and_take:taker=white,objectives=take/give")


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("chess", "valid: english, russian"),
        ("english:flyingkings=true", "valid flags: board_size"),
        ("english:max_capture=maybe", "true or false"),
        ("english:board_size=12", "8 or 10"),
        ("english:rows_of_men=4", "1..3"),
        ("english:promotion_mid_capture=jump", "stop, continue_as_man, continue_as_king"),
        ("english:objectives=take", "take|give"),
        ("english:no_progress_plies=-3", "integer"),
        ("english:max_capture", "flag=value"),
        ("english:taker=red", "black, white"),
        ("english:max_capture=true,max_capture=false", "twice"),
        # Counts too large for the kernels' int64 counters, and non-ASCII digits.
        (f"english:role_swap_after_captures={10**23}", "1..1000000000"),
        (f"english:no_progress_plies={2**63}", "1..1000000000"),
        (f"english:repetition_draw={10**10}", "2..1000000000"),
        ("english:no_progress_plies=\u00b2", "integer"),  # superscript two
        ("english:board_size=\u00b2", "integer"),
        ("english:rows_of_men=\uff13", "integer"),  # full-width three
    ],
)
def test_errors_name_the_problem_and_the_valid_choices(text, fragment):
    with pytest.raises(VariantError) as info:
        Variant.parse(text)
    assert fragment in str(info.value)
    assert isinstance(info.value, ValueError)


def test_constructor_validates():
    with pytest.raises(VariantError):
        Variant(name="english", promotion="explode")
    with pytest.raises(VariantError):
        Variant(name="english", repetition_draw=1)
    with pytest.raises(VariantError):
        Variant.preset("english").replace(flying_kings="yes")
    with pytest.raises(VariantError, match="no_progress_plies"):
        Variant.preset("english").replace(no_progress_plies=2**63)
    assert (
        Variant.preset("english").replace(no_progress_plies=10**9).params[V.P_NO_PROGRESS] == 10**9
    )


def test_optional_integers():
    v = Variant.parse("english:no_progress_plies=none,role_swap_after_captures=4")
    assert v.no_progress_plies is None and v.role_swap_after_captures == 4
    assert v.params[V.P_NO_PROGRESS] == 0 and v.params[V.P_ROLE_SWAP] == 4
    assert Variant.parse(str(v)) == v


def test_params_layout():
    v = Variant.parse(
        "give_and_take:taker=white,board_size=10,max_capture=true,"
        "promotion=remove,blocked_giver=loses,taker_blocked=draw,"
        "elimination_winner=giver,first_player=white"
    )
    p = v.params
    assert p.dtype == np.int64 and p.shape == (V.PARAMS_SIZE,)
    assert not p.flags.writeable
    assert p is v.params  # cached
    expected = {
        V.P_SIZE_IDX: 1,
        V.P_BOARD_SIZE: 10,
        V.P_NSQ: 50,
        V.P_MEN_BACK: 0,
        V.P_FLYING: 0,
        V.P_MAX_CAPTURE: 1,
        V.P_PROMO_MID: 0,
        V.P_PROMOTION: 1,
        V.P_OBJ_BLACK: 1,
        V.P_OBJ_WHITE: 0,
        V.P_ASYMMETRIC: 1,
        V.P_BLOCKED_GIVER: 1,
        V.P_TAKER_BLOCKED: 1,
        V.P_ELIM_WINNER: 1,
        V.P_ROLE_SWAP: 0,
        V.P_REPETITION: 3,
        V.P_NO_PROGRESS: 0,
        V.P_FIRST: 1,
        V.P_ROWS: 4,
        V.P_ENDGAME_RULE: 0,
    }
    for index, value in expected.items():
        assert p[index] == value, index
    assert not p[20:].any()
    russian = Variant.preset("russian").params
    assert (russian[V.P_PROMO_MID], russian[V.P_FLYING], russian[V.P_MEN_BACK]) == (2, 1, 1)
    assert Variant.preset("international").params[V.P_ENDGAME_RULE] == 1
    assert russian[V.P_ENDGAME_RULE] == 2


def test_frozen_and_hashable():
    v = Variant.preset("russian")
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.board_size = 10
    assert len({v, Variant.parse("russian"), Variant.preset("english")}) == 2


_FLAG_VALUES = {
    "board_size": st.sampled_from([8, 10]),
    "first_player": st.sampled_from(V.COLORS),
    "men_capture_backward": st.booleans(),
    "flying_kings": st.booleans(),
    "max_capture": st.booleans(),
    "promotion_mid_capture": st.sampled_from(V.PROMO_MID),
    "promotion": st.sampled_from(V.PROMOTION),
    "taker": st.sampled_from(V.COLORS),
    "blocked_giver": st.sampled_from(V.BLOCKED_GIVER),
    "taker_blocked": st.sampled_from(V.TAKER_BLOCKED),
    "elimination_winner": st.sampled_from(V.ELIM_WINNER),
    "role_swap_after_captures": st.none() | st.integers(1, 30),
    "repetition_draw": st.none() | st.integers(2, 5),
    "no_progress_plies": st.none() | st.integers(1, 200),
    "endgame_rule": st.sampled_from(V.ENDGAME_RULES),
    "notation": st.sampled_from(V.NOTATIONS),
}


@settings(max_examples=150, deadline=None)
@given(
    name=st.sampled_from(sorted(PRESETS)),
    flags=st.dictionaries(st.sampled_from(sorted(_FLAG_VALUES)), st.just(None)),
    data=st.data(),
)
def test_canonical_string_round_trips(name, flags, data):
    overrides = {flag: data.draw(_FLAG_VALUES[flag], label=flag) for flag in flags}
    if "taker" in overrides and name != "give_and_take":
        overrides.pop("taker")  # outside Give and Take the taker follows the objectives
    text = name + (
        ":" + ",".join(f"{k}={V._format_value(v)}" for k, v in overrides.items())
        if overrides
        else ""
    )
    v = Variant.parse(text)
    for flag, value in overrides.items():
        assert getattr(v, flag) == value
    canonical = str(v)
    again = Variant.parse(canonical)
    assert again == v
    assert str(again) == canonical
    assert np.array_equal(again.params, v.params)
    # Only flags that differ from the preset are written.
    if all(getattr(v, f) == getattr(Variant.preset(name), f) for f in _FLAG_VALUES):
        assert canonical == name


@pytest.mark.parametrize("color", ["black", "white"])
@pytest.mark.parametrize("role", ["taker", "giver"])
def test_with_role_puts_the_colour_in_the_role(color, role):
    v = Variant.parse("give_and_take").with_role(color, role)
    index = ("black", "white").index(color)
    assert v.role(index) == role
    assert v.role(1 - index) == ("giver" if role == "taker" else "taker")
    assert Variant.parse("english").with_role(color, role) == Variant.parse("english")


def test_with_role_names_a_bad_colour_or_role():
    with pytest.raises(VariantError, match="color must be"):
        Variant.parse("give_and_take").with_role("red", "taker")
    with pytest.raises(VariantError, match="role must be"):
        Variant.parse("give_and_take").with_role("black", "thief")
