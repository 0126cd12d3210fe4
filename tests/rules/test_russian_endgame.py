"""The Russian federation's endgame draw rules (``endgame_rule=russian``, docs/rules.md).

Each material class is drawn after exactly its number of moves (one move = a ply by
each side) counted from the position where the class is reached, and not one ply
earlier; a capture, a promotion or a change of class restarts the count; the flag off
gives no draw; the flag round-trips through the variant string; ``Board.outcome()``
reports ``Termination.ENDGAME_RULE``; the observation plane shows the counter.
"""

from __future__ import annotations

import numpy as np
import pytest

from drl.encode import planes as P
from drl.rules import Board, Termination, Variant, core
from drl.rules.geometry import parse_square

DRAW = core.DRAW
ENDGAME_DRAW = core.T_ENDGAME_RULE * 4 + DRAW
# The class rules alone: no 15-move kings-only rule, no repetition, so that each
# class's own count is what ends the game.
ONLY_CLASSES = "russian:no_progress_plies=none,repetition_draw=none"

#: (kind, moves of the rule, FEN, description). The lone king of MAIN_ROAD stands on the
#: main road (a1-h8); the one of KINGS does not.
CLASSES = [
    (core.ENDGAME_RU_KINGS, 15, "W:WKa3,Kc1,Ke1:BKh4", "three kings against a lone king"),
    (
        core.ENDGAME_RU_MAIN_ROAD,
        5,
        "W:WKa3,Kc1,Ke1:BKd4",
        "three kings against a lone king on the main road",
    ),
    (
        core.ENDGAME_RU_MAIN_ROAD,
        5,
        "W:WKa3,Kc1,a5:BKf6",
        "two kings and a man against a lone king on the main road",
    ),
    (core.ENDGAME_RU_TWO, 5, "W:WKa3,Kc1:BKh4", "two kings against a lone king"),
    (core.ENDGAME_RU_TWO, 5, "W:WKa3,c3:BKh4", "a king and a man against a lone king"),
    (core.ENDGAME_RU_4_5, 30, "W:WKa3,Kc1:BKh4,Kh8", "two kings against two kings"),
    (
        core.ENDGAME_RU_4_5,
        30,
        "W:WKa3,Kc1,Ke1:BKh4,h6",
        "three kings against a king and a man (5 pieces)",
    ),
    (core.ENDGAME_RU_6_7, 60, "W:WKa1,Kc1,Ke1:BKh4,Kh8,Kf8", "three kings against three"),
]


def state_of(fen: str, variant: Variant) -> np.ndarray:
    turn, *fields = fen.split(":")
    bits = [0, 0, 0, 0]
    for field in fields:
        for token in filter(None, field[1:].split(",")):
            king = token.startswith("K")
            bits[(0 if field[0] == "B" else 2) + king] |= 1 << parse_square(
                token.lstrip("K"), variant.board_size
            )
    return core.make_state(*bits, 0 if turn == "B" else 1, variant.params)


def quiet_walk(state, variant, plies, kind, seed=0, budget=20_000):
    """States of a game of ``plies`` plies without captures or promotions that stays in
    endgame class ``kind``: a depth-first search in random move order (seeded), which
    never steps into a position where the side to move must capture."""
    params = variant.params
    buf = core.move_buffer()
    rng = np.random.default_rng(seed)

    def successors(cur):
        n = core.generate_moves(cur, params, buf)
        rows = [buf[i].copy() for i in range(n)]
        out = []
        for row in rows:
            if row[core.M_CAPTURED] or row[core.M_FLAGS] & core.FLAG_CROWN:
                continue
            nxt = core.apply_move(cur, params, row)
            if core.endgame_kind(nxt, params) != kind:
                continue
            m = core.generate_moves(nxt, params, buf)
            if m == 0 or buf[0, core.M_CAPTURED]:  # blocked, or a capture is forced
                continue
            out.append(nxt)
        rng.shuffle(out)
        return out

    line = [state]
    stack = [successors(state)]
    expanded = 0
    while stack:
        if len(line) == plies + 1:
            return line
        if not stack[-1]:
            stack.pop()
            line.pop()
            continue
        nxt = stack[-1].pop()
        line.append(nxt)
        stack.append(successors(nxt))
        expanded += 1
        assert expanded < budget, f"no quiet line of {plies} plies in class {kind}"
    raise AssertionError(f"no quiet line of {plies} plies in class {kind}")


def status(state, variant):
    return core.status(state, variant.params, core.count_moves(state, variant.params))


@pytest.mark.parametrize("kind, moves, fen, what", CLASSES, ids=[c[3] for c in CLASSES])
def test_class_draws_after_exactly_its_moves(kind, moves, fen, what):
    v = Variant.parse(ONLY_CLASSES)
    start = state_of(fen, v)
    assert core.endgame_kind(start, v.params) == kind, what
    assert core.ENDGAME_PLIES[kind] == 2 * moves
    line = quiet_walk(start, v, 2 * moves, kind)
    for ply, state in enumerate(line):
        assert state[core.ST_ENDGAME] == ply
        expected = ENDGAME_DRAW if ply == 2 * moves else -1
        assert status(state, v) == expected, f"{what}: ply {ply}"


@pytest.mark.parametrize("kind, moves, fen, what", CLASSES, ids=[c[3] for c in CLASSES])
def test_flag_off_gives_no_draw(kind, moves, fen, what):
    v = Variant.parse(ONLY_CLASSES + ",endgame_rule=none")
    start = state_of(fen, v)
    assert core.endgame_kind(start, v.params) == 0
    russian = Variant.parse(ONLY_CLASSES)
    line = quiet_walk(start, russian, 2 * moves, kind)
    state = line[0]
    for nxt in line[1:]:  # the same moves, played under the rule switched off
        move = [
            r
            for r in _rows(state, v)
            if np.array_equal(core.apply_move(state, v.params, r)[:4], nxt[:4])
        ][0]
        state = core.apply_move(state, v.params, move)
        assert state[core.ST_ENDGAME] == 0 and status(state, v) == -1
    counted = state.copy()
    counted[core.ST_ENDGAME] = 1000  # whatever the counter says, the rule is off
    assert status(counted, v) == -1


def _rows(state, variant):
    buf = core.move_buffer()
    return [buf[i].copy() for i in range(core.generate_moves(state, variant.params, buf))]


@pytest.mark.parametrize(
    "fen, kind",
    [
        ("W:WKa3,Kc1,Ke1:BKh4", core.ENDGAME_RU_KINGS),
        ("W:WKa3,Kc1,Ke1,Kg1:BKh4", core.ENDGAME_RU_KINGS),  # four kings
        ("W:WKa3,Kc1,Ke1,a5:BKh4", core.ENDGAME_RU_4_5),  # kings and a man: 30
        ("W:WKa3,Kc1,Ke1:BKb2", core.ENDGAME_RU_MAIN_ROAD),
        ("W:WKa3,c1,e1:BKg7", core.ENDGAME_RU_MAIN_ROAD),  # a king and two men
        ("W:WKa3,c1,e1:BKh4", core.ENDGAME_RU_4_5),  # ... off the main road
        ("W:Wa3,c1,e1:BKb2", 0),  # no white king
        ("W:WKa3,Kc1:BKd4", core.ENDGAME_RU_TWO),
        ("W:WKa3:BKd4,e7", core.ENDGAME_RU_TWO),  # Black is the strong side
        ("W:WKa3:BKd4", 0),  # one king each
        ("W:WKa3,Kc1:BKh4,h6", core.ENDGAME_RU_4_5),  # the lone "king" has a man
        ("W:WKa3,Kc1,e1:BKh4,h6,f8", core.ENDGAME_RU_6_7),
        ("W:WKa3,Kc1,e1,g1:BKh4,h6,f8", core.ENDGAME_RU_6_7),  # 7 pieces
        ("W:WKa3,Kc1,e1,g1:BKh4,h6,f8,d8", 0),  # 8 pieces
        ("W:WKa3,c1,e1:Bh4,h6,f8", 0),  # no black king
    ],
)
def test_endgame_kind(fen, kind):
    v = Variant.preset("russian")
    assert core.endgame_kind(state_of(fen, v), v.params) == kind


def test_fmjd_classes_are_unchanged_under_the_fmjd_rule():
    v = Variant.preset("international")
    assert core.endgame_kind(state_of("W:WK46,K47,K48:BK3", v), v.params) == 1
    assert core.endgame_kind(state_of("W:WK46,K47:BK3", v), v.params) == 2
    assert core.endgame_kind(state_of("W:WK46,K47,K48,K49:BK3", v), v.params) == 0


def test_capture_restarts_the_count():
    """Seven pieces to six: the class (kings on both sides, 6-7 pieces) stays, the count
    restarts at the capture."""
    v = Variant.parse(ONLY_CLASSES)
    state = state_of("B:WKa1,Kc1,Kg1,e5:BKh8,Kb8,Kf6", v)
    assert core.endgame_kind(state, v.params) == core.ENDGAME_RU_6_7
    state[core.ST_ENDGAME] = 100
    rows = _rows(state, v)
    assert rows and all(r[core.M_CAPTURED] for r in rows)  # the capture is compulsory
    after = core.apply_move(state, v.params, rows[0])
    assert core.endgame_kind(after, v.params) == core.ENDGAME_RU_6_7
    assert after[core.ST_ENDGAME] == 0


def test_promotion_restarts_the_count():
    """Two kings and a man against a king and a man (5 pieces): the white man is crowned,
    the class stays (kings on both sides, 5 pieces), the count restarts."""
    v = Variant.parse(ONLY_CLASSES)
    state = state_of("W:WKa1,Kc1,c7:BKh4,h6", v)
    assert core.endgame_kind(state, v.params) == core.ENDGAME_RU_4_5
    state[core.ST_ENDGAME] = 59
    assert status(state, v) == -1
    (crown,) = [r for r in _rows(state, v) if r[core.M_FLAGS] & core.FLAG_CROWN][:1]
    after = core.apply_move(state, v.params, crown)
    assert core.endgame_kind(after, v.params) == core.ENDGAME_RU_4_5
    assert after[core.ST_ENDGAME] == 0 and status(after, v) == -1
    # A man move that does not crown keeps counting (the class rule counts moves of
    # every kind; only a capture or a promotion changes the balance).
    black = state_of("B:WKa1,Kc1,c7:BKh4,h6", v)
    black[core.ST_ENDGAME] = 59
    men = [r for r in _rows(black, v) if r[core.M_FROM] == parse_square("h6", 8)]
    assert men
    after = core.apply_move(black, v.params, men[0])
    assert after[core.ST_ENDGAME] == 60 and status(after, v) == ENDGAME_DRAW


def test_leaving_or_reaching_the_main_road_restarts_the_count():
    v = Variant.parse(ONLY_CLASSES)
    on_road = state_of("B:WKa3,Kc1,Ke1:BKd4", v)
    on_road[core.ST_ENDGAME] = 9
    rows = _rows(on_road, v)
    stays = [r for r in rows if (1 << int(r[core.M_TO])) & int(core.MAIN_ROAD[0])]
    leaves = [r for r in rows if not (1 << int(r[core.M_TO])) & int(core.MAIN_ROAD[0])]
    after = core.apply_move(on_road, v.params, stays[0])
    assert after[core.ST_ENDGAME] == 10 and status(after, v) == ENDGAME_DRAW
    after = core.apply_move(on_road, v.params, leaves[0])
    assert core.endgame_kind(after, v.params) == core.ENDGAME_RU_KINGS
    assert after[core.ST_ENDGAME] == 0


def test_main_road_is_the_long_diagonal():
    road = int(core.MAIN_ROAD[0])
    assert road == sum(
        1 << parse_square(sq, 8) for sq in ("a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8")
    )
    assert bin(int(core.MAIN_ROAD[1])).count("1") == 10


def test_variant_string_round_trip():
    russian = Variant.preset("russian")
    assert russian.endgame_rule == "russian" and str(russian) == "russian"
    for rule in ("none", "fmjd", "russian"):
        for name in ("russian", "international", "english"):
            v = Variant.parse(f"{name}:endgame_rule={rule}")
            assert v.endgame_rule == rule
            assert Variant.parse(str(v)) == v
    assert str(Variant.parse("russian:endgame_rule=none")) == "russian:endgame_rule=none"
    assert (
        str(Variant.parse("international:endgame_rule=russian"))
        == "international:endgame_rule=russian"
    )
    with pytest.raises(ValueError, match="endgame_rule"):
        Variant.parse("russian:endgame_rule=ussr")


def test_board_fen_round_trip_keeps_the_rule():
    fen = "W:WKa3,Kc1:BKh4"
    for spec in ("russian", "russian:endgame_rule=none"):
        board = Board(spec, fen=fen)
        assert board.fen() == fen
        assert Board(str(board.variant), fen=board.fen()).variant == board.variant


def test_board_outcome_reports_the_endgame_rule():
    """The default preset: two kings against a lone king, drawn when the fifth move of
    each side is played (10 plies), on a line of distinct positions (no repetition)."""
    fen = "W:WKa3,Kc1:BKh4"
    v = Variant.preset("russian")
    for seed in range(100):
        line = quiet_walk(state_of(fen, v), v, 10, core.ENDGAME_RU_TWO, seed=seed)
        if len({int(s[core.ST_HASH]) for s in line}) == len(line):
            break
    board = Board("russian", fen=fen)
    off = Board("russian:endgame_rule=none", fen=fen)
    for ply, nxt in enumerate(line[1:], start=1):
        assert board.outcome() is None, ply
        (move,) = [m for m in board.legal_moves if np.array_equal(_after(board, m)[:4], nxt[:4])]
        board.push(move)
        off.push(str(move))
    outcome = board.outcome()
    assert outcome is not None and outcome.termination == Termination.ENDGAME_RULE
    assert outcome.result == "1/2-1/2" and board.ply == 10
    assert off.outcome() is None


def _after(board, move):
    copy = board.copy()
    copy.push(move)
    return copy.state


def test_three_kings_report_the_endgame_rule_before_the_kings_only_rule():
    """Three kings against one off the main road, default preset: the 15-move class rule
    and the 15-move kings-only rule (no_progress_plies=30) fall on the same ply; the
    specific rule is reported."""
    v = Variant.preset("russian")
    line = quiet_walk(state_of("W:WKa3,Kc1,Ke1:BKh4", v), v, 30, core.ENDGAME_RU_KINGS)
    assert all(status(s, v) == -1 for s in line[:-1])
    assert line[-1][core.ST_NOPROG] == 30
    assert status(line[-1], v) == ENDGAME_DRAW


def test_endgame_plane_shows_the_share_of_the_limit():
    v = Variant.parse(ONLY_CLASSES)
    obs = np.zeros((P.N_CHANNELS, 8, 8), dtype=np.float32)
    prefix = np.zeros(1, dtype=np.int64)
    for fen, limit in (
        ("W:WKa3,Kc1:BKh4", 10),
        ("W:WKa3,Kc1:BKh4,Kh8", 60),
        ("W:WKa1,Kc1,Ke1:BKh4,Kh8,Kf8", 120),
    ):
        state = state_of(fen, v)
        assert core.endgame_plies(state, v.params) == limit
        state[core.ST_ENDGAME] = limit // 2
        P.encode_planes(state, v.params, prefix, 0, 0, obs)
        assert np.allclose(obs[P.CH_ENDGAME], 0.5)
    off = Variant.parse(ONLY_CLASSES + ",endgame_rule=none")
    state = state_of("W:WKa3,Kc1:BKh4", off)
    state[core.ST_ENDGAME] = 5
    P.encode_planes(state, off.params, prefix, 0, 0, obs)
    assert not obs[P.CH_ENDGAME].any()
    fmjd = Variant.preset("international")
    state = state_of("W:WK46,K47,K48:BK3", fmjd)
    state[core.ST_ENDGAME] = 16
    obs10 = np.zeros((P.N_CHANNELS, 10, 10), dtype=np.float32)
    P.encode_planes(state, fmjd.params, prefix, 0, 0, obs10)
    assert np.allclose(obs10[P.CH_ENDGAME], 0.5)


def test_russian_perft_is_unchanged_by_the_rule():
    """Perft ignores draws: the published start counts hold with the rule on or off."""
    from drl.rules.perft import perft

    assert [perft("russian", d) for d in range(1, 7)] == [7, 49, 302, 1469, 7482, 37986]
    assert perft("russian:endgame_rule=none", 6) == 37986
