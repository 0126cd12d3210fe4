"""First-move histograms of recorded games, checked against a hand count."""

from __future__ import annotations

import pytest

from drl.analysis import compare_first_moves, first_move_counts, human_collection

# Hand count: 11-15 twice, 9-13 once; one game from a set-up position; two bad games
# (22-18 is White's move, Black moves first; the last one has a word that is not a move).
PDN = """[Event "a"]
[Result "1-0"]
1. 11-15 23-19 2. 8-11 22-17 1-0

[Event "b"]
1. 9-13 22-18 1/2-1/2

[Event "c"]
[FEN "B:W18:B14"]
1. 14x23 2-0

[Event "d"]
1. 11-15 24-20 0-1

[Event "e"]
1. 22-18 11-15 *

[Event "f"]
1. 10-14 foo 23-19 *
"""


def test_first_move_histogram_matches_a_hand_count():
    h = first_move_counts(PDN, "english")
    assert h.counts == {"11-15": 2, "9-13": 1}
    assert h.games == 3 and h.setup == 1 and h.bad == 2
    d = h.to_dict()
    assert d["freq"]["11-15"] == pytest.approx(2 / 3)


def test_a_folder_of_pdn_files_is_read_file_by_file(tmp_path):
    (tmp_path / "one.pdn").write_text(PDN)
    (tmp_path / "two.pdn").write_text('[Event "x"]\n1. 12-16 21-17 *\n')
    (tmp_path / "notes.txt").write_text("11-15 22-18")
    h = first_move_counts(tmp_path, "english")
    assert h.counts == {"11-15": 2, "9-13": 1, "12-16": 1}
    assert len(h.sources) == 2


def test_a_missing_file_or_folder_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        first_move_counts(tmp_path / "missing.pdn", "english")
    with pytest.raises(ValueError, match="does not exist"):
        first_move_counts(str(tmp_path / "nowhere"), "english")
    with pytest.raises(ValueError, match="unknown variant"):
        first_move_counts(PDN, "checkers9")


def test_a_game_whose_fen_is_the_start_position_counts():
    from drl.rules import Board

    start = Board("english").fen()
    h = first_move_counts(f'[FEN "{start}"]\n1. 10-15 *\n', "english")
    assert h.counts == {"10-15": 1} and h.setup == 0


def test_divergence_of_first_move_distributions():
    legal = ["9-13", "11-15", "12-16"]
    same = compare_first_moves({"11-15": 0.5, "9-13": 0.5}, {"11-15": 3, "9-13": 3}, legal)
    assert same["js_distance"] == pytest.approx(0.0, abs=1e-9)
    apart = compare_first_moves({"12-16": 1.0}, {"11-15": 2}, legal)
    assert apart["js_distance"] == pytest.approx(1.0)
    assert apart["top_agreement"] is False
    assert apart["model_top"] == ["12-16"] and apart["human_top"] == ["11-15"]
    assert apart["support"] == sorted(legal)
    # half the mass shared: JSD (base 2) of (1/2, 1/2, 0) and (1/2, 0, 1/2) is 1/2
    half = compare_first_moves({"9-13": 0.5, "11-15": 0.5}, {"9-13": 1, "12-16": 1}, legal)
    assert half["js_distance"] == pytest.approx(0.5**0.5)
    assert half["top_agreement"] is True


def test_variants_without_recorded_games_say_why(tmp_path):
    folder, reason = human_collection("give_and_take", tmp_path)
    assert folder is None and "give_and_take" in reason
    folder, reason = human_collection("english", tmp_path)
    assert folder is None and "no folder" in reason
    (tmp_path / "english").mkdir()
    (tmp_path / "english" / "g.pdn").write_text(PDN)
    assert human_collection("english", tmp_path) == (tmp_path / "english", None)
    folder, reason = human_collection("english:first_player=white", tmp_path)
    assert folder is None and "changes the start" in reason


def test_the_shared_english_collection(games_dir):
    h = first_move_counts(games_dir / "english", "english")
    from drl.rules import Board

    assert h.games > 100 and sum(h.counts.values()) == h.games
    assert set(h.counts) <= {str(m) for m in Board("english").legal_moves}
    assert h.setup > 0  # the collection has set-up problems, which are not openings
