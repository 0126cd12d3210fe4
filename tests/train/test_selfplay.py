"""Self-play: recorded games replay under the rules, targets match the results, both
Give and Take roles are played."""

import numpy as np
import pytest

from drl.encode.planes import CH_OWN_GIVE, CH_TO_MOVE
from drl.eval.arena import role_variant
from drl.nn import UniformEvaluator
from drl.rules import Variant
from drl.rules.pdn import read_games, replay, result_for_white
from drl.search import SearchConfig
from drl.train.buffer import GameBatch
from drl.train.selfplay import RESULT_DRAW, RESULT_TRUNCATED, SelfPlayActor, SelfPlayConfig


@pytest.fixture(scope="module")
def played():
    v = Variant.parse("give_and_take")
    actor = SelfPlayActor(
        [role_variant(v, "black"), role_variant(v, "white")],
        SearchConfig(num_simulations=8, root_selection="gumbel"),
        # full searches only: the policy-target tests read every searched position
        SelfPlayConfig(games_in_flight=4, max_plies=120, full_search_prob=1.0),
        seed=3,
    )
    chunks = []
    stats = actor.play(UniformEvaluator(), 6, on_games=lambda b, p: chunks.append((b, p)), chunk=4)
    batch = GameBatch.concat([c[0] for c in chunks])
    pdns = [p for c in chunks for p in c[1]]
    return stats, batch, pdns


def test_games_are_delivered_in_chunks(played):
    stats, batch, pdns = played
    assert stats.games == 6 == batch.num_games == len(pdns)
    assert batch.num_positions == stats.positions
    batch.validate()


def test_pdn_replays_to_the_recorded_result(played):
    _, batch, pdns = played
    for text, result, plies in zip(pdns, batch.game_result, batch.game_plies, strict=True):
        game = next(read_games(text))
        board = replay(game)
        assert board.ply == plies
        outcome = board.outcome()
        if result == RESULT_TRUNCATED:
            assert outcome is None and game.tags["Result"] == "*"
        else:
            assert outcome is not None
            expected = {0: "0-1", 1: "1-0", RESULT_DRAW: "1/2-1/2"}[int(result)]
            assert outcome.result == expected
            assert result_for_white(game.tags["Result"], board.variant) == expected


def test_value_targets_follow_the_winner(played):
    _, batch, _ = played
    starts = np.flatnonzero(np.r_[True, np.diff(batch.game_index) != 0])
    for g, s in enumerate(starts):
        e = starts[g + 1] if g + 1 < len(starts) else batch.num_positions
        res = int(batch.game_result[g])
        if res == RESULT_TRUNCATED:  # taught the adjudicated result (2: a draw)
            res = int(batch.game_adjudicated[g])
        players, values = batch.player[s:e], batch.value[s:e]
        if res in (0, 1):
            assert np.all(values[players == res] == 1.0)
            assert np.all(values[players != res] == -1.0)
        else:
            assert np.all(values == 0.0)
        # plies left count down to 0 at the end of the game
        assert batch.plies_left[s:e].min() >= 0


def test_both_roles_and_mover_view(played):
    _, batch, _ = played
    assert set(batch.game_taker.tolist()) == {0, 1}
    obs = batch.obs.astype(np.float32)
    assert np.all(obs[:, CH_TO_MOVE] == 1.0)
    # the objective plane tells the mover's role: Giver positions are those where the
    # mover's colour is not the game's Taker
    starts = np.flatnonzero(np.r_[True, np.diff(batch.game_index) != 0])
    taker_of_pos = batch.game_taker[
        np.searchsorted(starts, np.arange(batch.num_positions), side="right") - 1
    ]
    is_giver = batch.player != taker_of_pos
    assert np.all(obs[is_giver, CH_OWN_GIVE, 0, 0] == 1.0)
    assert np.all(obs[~is_giver, CH_OWN_GIVE, 0, 0] == 0.0)


def test_policy_targets_and_weights(played):
    _, batch, _ = played
    off = batch.legal_offsets
    counts = np.diff(off)
    sums = np.add.reduceat(batch.policy, off[:-1])
    np.testing.assert_allclose(sums, 1.0, rtol=1e-4)
    assert np.all(batch.policy >= 0)
    assert np.all(batch.policy_weight[counts == 1] == 0.0)
    assert np.all(batch.policy_weight[counts > 1] == 1.0)


def test_playout_cap_randomisation_marks_fast_searches():
    v = Variant.parse("english")
    actor = SelfPlayActor(
        [v],
        SearchConfig(num_simulations=8),
        SelfPlayConfig(games_in_flight=2, max_plies=40, full_search_prob=0.5, fast_simulations=2),
        seed=0,
    )
    got = []
    stats = actor.play(UniformEvaluator(), 2, on_games=lambda b, p: got.append(b))
    batch = GameBatch.concat(got)
    searched = np.diff(batch.legal_offsets) > 1
    w = batch.policy_weight[searched]
    assert 0 < w.sum() < len(w)
    assert stats.searched > 0
