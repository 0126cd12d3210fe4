"""Maximum-likelihood Elo: recovers the ratings games were simulated from."""

import itertools

import numpy as np
import pytest

from drl.eval.elo import elo_from_score, expected_score, fit_elo

TRUE = {"random": 0.0, "greedy": 150.0, "ab2": 420.0, "ab4": 600.0}


def _simulate(rng, ratings, pairs, games_per_pair, draw_share=0.3, davidson_nu=None):
    out = []
    for a, b in pairs:
        diff = ratings[a] - ratings[b]
        if davidson_nu is None:
            e = expected_score(diff)
            p_draw = draw_share * 2 * min(e, 1 - e)
            p_win = e - p_draw / 2
        else:
            ga, gb = 10 ** (ratings[a] / 400), 10 ** (ratings[b] / 400)
            den = ga + gb + davidson_nu * np.sqrt(ga * gb)
            p_win, p_draw = ga / den, davidson_nu * np.sqrt(ga * gb) / den
        u = rng.random(games_per_pair)
        scores = np.where(u < p_win, 1.0, np.where(u < p_win + p_draw, 0.5, 0.0))
        out += [(a, b, float(s)) for s in scores]
    return out


def test_round_robin_recovers_ratings_within_intervals():
    rng = np.random.default_rng(1)
    games = _simulate(rng, TRUE, itertools.combinations(TRUE, 2), 400)
    r = fit_elo(games, anchor="random")
    for name, true in TRUE.items():
        assert abs(r[name] - true) < 45, (name, r[name], true)
        lo, hi = r.interval(name)
        assert lo <= true <= hi, (name, lo, true, hi)
    assert r["random"] == 0.0
    assert r.games.sum() == 2 * len(games)


def test_gauntlet_against_anchor_only():
    rng = np.random.default_rng(2)
    pairs = [(p, "random") for p in TRUE if p != "random"]
    truth = {"random": 0.0, "greedy": 150.0, "ab2": 300.0, "ab4": -100.0}
    r = fit_elo(_simulate(rng, truth, pairs, 600), anchor_elo=1000)
    for name, true in truth.items():
        assert abs(r[name] - 1000 - true) < 50


def test_davidson_model_recovers_ratings_and_draw_parameter():
    rng = np.random.default_rng(3)
    games = _simulate(rng, TRUE, itertools.combinations(TRUE, 2), 500, davidson_nu=0.8)
    r = fit_elo(games, draw_model="davidson")
    for name, true in TRUE.items():
        assert abs(r[name] - true) < 50, (name, r[name])
    assert 0.6 < r.draw_nu < 1.0


def test_two_players_match_closed_form():
    # One pair: the MLE of the half model is the logistic inverse of the score.
    games = [("a", "b", 1.0)] * 30 + [("a", "b", 0.0)] * 10
    r = fit_elo(games, anchor="b")
    assert r["a"] == pytest.approx(400 * np.log10(3), abs=0.05)
    assert elo_from_score(0.75) == pytest.approx(400 * np.log10(3))


def test_profile_and_hessian_intervals_agree_on_plenty_of_data():
    rng = np.random.default_rng(4)
    games = _simulate(rng, TRUE, itertools.combinations(TRUE, 2), 300)
    prof = fit_elo(games, interval="profile")
    hess = fit_elo(games, interval="hessian")
    np.testing.assert_allclose(prof.lower, hess.lower, atol=6)
    np.testing.assert_allclose(prof.upper, hess.upper, atol=6)
    assert (prof.upper - prof.lower)[1:].min() > 30


def test_perfect_score_is_infinite_unless_prior_draws():
    games = [("ab", "random", 1.0)] * 20
    r = fit_elo(games)
    assert r["ab"] == np.inf and r.interval("ab")[1] == np.inf
    assert np.isfinite(r.interval("ab")[0]) and r.interval("ab")[0] > 200
    reg = fit_elo(games, prior_draws=1.0)
    assert np.isfinite(reg["ab"]) and reg["ab"] > 300
    assert reg.to_dict()["players"][0]["name"] == "ab"


def test_bad_input_is_rejected():
    with pytest.raises(ValueError, match="never meet the anchor"):
        fit_elo([("a", "b", 1.0), ("c", "d", 0.5)], anchor="a")
    with pytest.raises(ValueError, match="score must be"):
        fit_elo([("a", "b", 2.0)])
    with pytest.raises(ValueError, match="anchor"):
        fit_elo([("a", "b", 1.0)], anchor="zz")
    with pytest.raises(ValueError, match="draw_model"):
        fit_elo([("a", "b", 1.0)], draw_model="bayes")
    with pytest.raises(ValueError, match="no games"):
        fit_elo([])
