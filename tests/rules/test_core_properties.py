"""Properties of the compiled rules core, checked on random positions and playouts.

- Move generation agrees with a slow, independent reference written here on board
  coordinates (no kernel tables), for random positions under every flag combination.
- Random playouts in every preset and flag combination keep the state consistent: no two
  pieces on a square, piece counts only fall, no man rests on its own crowning row, the
  incremental hash equals a recomputation, counters move as the rules say.
- Mirroring a position (180 degrees, colours and side to move swapped) mirrors its moves.
- ``status`` resolves the rule cases of ``tests/golden/cases`` and DESIGN section 2.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drl.rules import core
from drl.rules.geometry import parse_square, rowcol_to_square, square_to_rowcol
from drl.rules.variant import PRESETS, Variant
from tests.shared_paths import GOLDEN_CASES

HYP = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# --------------------------------------------------------------------------- helpers


@st.composite
def variants(draw):
    """A preset with random move-generation flags (and random objectives)."""
    name = draw(st.sampled_from(sorted(PRESETS)))
    flags = {
        "board_size": draw(st.sampled_from([8, 10])),
        "men_capture_backward": draw(st.booleans()),
        "flying_kings": draw(st.booleans()),
        "max_capture": draw(st.booleans()),
        "promotion_mid_capture": draw(
            st.sampled_from(["stop", "continue_as_man", "continue_as_king"])
        ),
        "promotion": draw(st.sampled_from(["crown", "crown", "remove"])),
    }
    keep = draw(st.lists(st.sampled_from(sorted(flags)), unique=True))
    text = ",".join(f"{k}={str(flags[k]).lower()}" for k in keep)
    return Variant.parse(f"{name}:{text}" if text else name)


def bits(squares) -> int:
    return sum(1 << s for s in squares)


def squares_of(bb: int) -> list[int]:
    return [s for s in range(64) if (bb >> s) & 1]


@st.composite
def positions(draw, variant):
    """A random legal-looking position: men never on their own crowning row."""
    n = variant.board_size
    nsq = n * n // 2
    chosen = draw(st.lists(st.integers(0, nsq - 1), unique=True, min_size=0, max_size=min(nsq, 24)))
    king_percent = draw(st.sampled_from([0, 20, 60]))
    boards = [0, 0, 0, 0]
    for s in chosen:
        row = s // (n // 2)
        color = draw(st.integers(0, 1))
        king = draw(st.integers(0, 99)) < king_percent
        if not king and row == (n - 1 if color == 0 else 0):
            king = True
        boards[2 * color + int(king)] |= 1 << s
    turn = draw(st.integers(0, 1))
    return core.make_state(*boards, turn, variant.params)


def kernel_moves(state, variant):
    out = core.move_buffer()
    k = core.generate_moves(state, variant.params, out)
    return out[:k].copy()


def move_key(row) -> tuple:
    return (
        int(row[core.M_FROM]),
        int(row[core.M_TO]),
        frozenset(squares_of(int(row[core.M_CAPTURED]))),
        int(row[core.M_FLAGS]) & (core.FLAG_CROWN | core.FLAG_REMOVE),
    )


# --------------------------------------------------------------------------- reference

DIRS = ((-1, -1), (-1, 1), (1, -1), (1, 1))


def reference_moves(state, variant) -> list[tuple]:  # noqa: C901, PLR0915 (the slow way, kept flat)
    """Legal moves computed the slow way, on (row, col) coordinates.

    Rules (seeds 002-004, FMJD): compulsory capture; Turkish strike; men capture forwards
    unless ``men_capture_backward``; flying kings land anywhere beyond the captured piece
    but must pick a square from which the capture continues when there is one;
    promotion mid-capture per flag; maximum capture per flag; duplicates dropped.
    """
    n = variant.board_size
    side = int(state[core.ST_TURN])
    board = {}
    for kind in range(4):
        for s in squares_of(int(state[kind])):
            board[square_to_rowcol(s, n)] = (kind // 2, kind % 2 == 1)
    forward = 1 if side == 0 else -1
    crown_row = n - 1 if side == 0 else 0
    flying = variant.flying_kings
    remove = variant.promotion == "remove"
    promo = variant.promotion_mid_capture

    def on(r, c):
        return 0 <= r < n and 0 <= c < n

    def sq(rc):
        return rowcol_to_square(rc[0], rc[1], n)

    def crown_flag(ends_as_man_on_row, crowned):
        if crowned or ends_as_man_on_row:
            return core.FLAG_REMOVE if remove else core.FLAG_CROWN
        return 0

    captures = []
    for start, (color, king0) in board.items():
        if color != side:
            continue

        def empty(rc, start=start):
            return rc == start or rc not in board

        def enemy(rc):
            return rc in board and board[rc][0] != side

        def jumps(pos, king, taken):
            """[(landing squares, captured square)] of one more jump."""
            found = []
            dirs = (
                DIRS
                if (king or variant.men_capture_backward)
                else [d for d in DIRS if d[0] == forward]
            )
            for dr, dc in dirs:
                r, c = pos[0] + dr, pos[1] + dc
                if king and flying:
                    while on(r, c) and empty((r, c)):
                        r, c = r + dr, c + dc
                if not on(r, c) or not enemy((r, c)) or (r, c) in taken:
                    continue
                victim = (r, c)
                lands = []
                r, c = r + dr, c + dc
                while on(r, c) and empty((r, c)):
                    lands.append((r, c))
                    if not (king and flying):
                        break
                    r, c = r + dr, c + dc
                if lands:
                    found.append((lands, victim))
            return found

        def dfs(pos, king, crowned, taken, path, start=start):
            options = jumps(pos, king, taken)
            if not options:
                if path:
                    on_row = not king and pos[0] == crown_row
                    captures.append(
                        (
                            sq(start),
                            sq(pos),
                            frozenset(sq(t) for t in taken),
                            crown_flag(on_row, crowned),
                        )
                    )
                return
            for lands, victim in options:
                now = taken | {victim}
                if king and flying:
                    going_on = [land for land in lands if jumps(land, True, now)]
                    lands = going_on or lands
                for land in lands:
                    if not king and land[0] == crown_row and promo != "continue_as_man":
                        if promo == "stop" or remove:
                            captures.append(
                                (
                                    sq(start),
                                    sq(land),
                                    frozenset(sq(t) for t in now),
                                    crown_flag(True, False),
                                )
                            )
                            continue
                        dfs(land, True, True, now, path + [land])
                        continue
                    dfs(land, king, crowned, now, path + [land])

        dfs(start, king0, False, frozenset(), [])

    if captures:
        if variant.max_capture:
            most = max(len(m[2]) for m in captures)
            captures = [m for m in captures if len(m[2]) == most]
        unique = {}
        for m in captures:
            unique.setdefault(m[:3], m)
        return list(unique.values())
    quiet = []
    for start, (color, king) in board.items():
        if color != side:
            continue
        dirs = DIRS if king else [d for d in DIRS if d[0] == forward]
        for dr, dc in dirs:
            r, c = start[0] + dr, start[1] + dc
            while on(r, c) and (r, c) not in board:
                flag = 0 if king else crown_flag(r == crown_row, False)
                quiet.append((sq(start), sq((r, c)), frozenset(), flag))
                if not (king and flying):
                    break
                r, c = r + dr, c + dc
    return quiet


@settings(HYP, max_examples=200)
@given(data=st.data())
def test_move_generation_matches_the_reference(data):
    variant = data.draw(variants(), label="variant")
    state = data.draw(positions(variant), label="position")
    rows = kernel_moves(state, variant)
    got = [move_key(r) for r in rows]
    expected = reference_moves(state, variant)
    assert sorted(got, key=repr) == sorted(expected, key=repr)
    assert len(got) == len(set(got))
    assert core.count_moves(state, variant.params) == len(rows)


def test_reference_agrees_on_a_known_case():
    # Case 025 (Turkish strike): only 46x28x17x26 is legal.
    v = Variant.preset("international")
    state = core.make_state(bits([36, 21, 20, 30]), 0, 0, bits([45]), 1, v.params)
    (move,) = reference_moves(state, v)
    assert move[:3] == (45, 25, frozenset({36, 21, 20}))


# --------------------------------------------------------------------------- playouts


def mirror(state, variant) -> np.ndarray:
    """The position turned 180 degrees with colours and side to move swapped."""
    nsq = variant.board_size**2 // 2

    def flip(bb):
        return bits(nsq - 1 - s for s in squares_of(int(bb)))

    return core.make_state(
        flip(state[core.ST_WM]),
        flip(state[core.ST_WK]),
        flip(state[core.ST_BM]),
        flip(state[core.ST_BK]),
        1 - int(state[core.ST_TURN]),
        variant.params,
    )


def check_position(state, variant):
    n = variant.board_size
    nsq = n * n // 2
    boards = [int(b) for b in state[:4]]
    union = 0
    for b in boards:
        assert union & b == 0, "two pieces on one square"
        assert b >> nsq == 0 and b >= 0, "piece off the board"
        union |= b
    assert state[core.ST_HASH] == core.zobrist_hash(state, variant.params)
    half = n // 2
    black_row = (1 << nsq) - (1 << (nsq - half))
    white_row = (1 << half) - 1
    assert boards[0] & black_row == 0, "black man on its crowning row"
    assert boards[2] & white_row == 0, "white man on its crowning row"


def check_moves(state, rows, variant):
    side = int(state[core.ST_TURN])
    opp = int(state[2 - 2 * side]) | int(state[3 - 2 * side])
    own = int(state[2 * side]) | int(state[2 * side + 1])
    keys = [move_key(r)[:3] for r in rows]
    assert len(keys) == len(set(keys)), "duplicate capture kept"
    captures = [r for r in rows if r[core.M_CAPTURED]]
    if captures:
        assert len(captures) == len(rows), "a quiet move offered while a capture exists"
        if variant.max_capture:
            assert len({int(r[core.M_NSTEPS]) for r in rows}) == 1
    for r in rows:
        assert (own >> int(r[core.M_FROM])) & 1
        assert int(r[core.M_CAPTURED]) & ~opp == 0
        nsteps = int(r[core.M_NSTEPS])
        assert r[core.M_PATH + nsteps - 1] == r[core.M_TO]
        if r[core.M_CAPTURED]:
            assert bin(int(r[core.M_CAPTURED])).count("1") == nsteps
        assert not r[core.M_PATH + nsteps :].any()


@HYP
@given(variant=variants(), seed=st.integers(0, 2**32 - 1))
def test_random_playouts_keep_the_state_consistent(variant, seed):
    rng = np.random.default_rng(seed)
    params = variant.params
    state = core.initial_state(params)
    check_position(state, variant)
    for _ in range(120):
        rows = kernel_moves(state, variant)
        assert core.count_moves(state, params) == len(rows)
        if len(rows) == 0:
            assert core.status(state, params, 0) != -1
            break
        check_moves(state, rows, variant)
        move = rows[rng.integers(len(rows))]
        new = core.apply_move(state, params, move)
        in_place = state.copy()
        core.apply_move_into(in_place, params, move, in_place)
        assert np.array_equal(new, in_place)
        check_position(new, variant)
        side = int(state[core.ST_TURN])
        for color in (0, 1):
            before = bin(int(state[2 * color]) | int(state[2 * color + 1])).count("1")
            after = bin(int(new[2 * color]) | int(new[2 * color + 1])).count("1")
            assert after <= before
        taken = bin(int(move[core.M_CAPTURED])).count("1")
        assert new[core.ST_CAPTURED] == state[core.ST_CAPTURED] + taken
        assert new[core.ST_PLY] == state[core.ST_PLY] + 1
        assert new[core.ST_TURN] == 1 - side
        man_moved = (int(state[2 * side]) >> int(move[core.M_FROM])) & 1
        expected_noprog = 0 if (taken or man_moved) else state[core.ST_NOPROG] + 1
        assert new[core.ST_NOPROG] == expected_noprog
        # The endgame counter runs while the material class stays the same, and restarts
        # on a capture, a promotion or removal, or a change of class.
        kind = core.endgame_kind(new, params)
        same_class = kind != 0 and kind == core.endgame_kind(state, params)
        quiet = not taken and not move[core.M_FLAGS] & (core.FLAG_CROWN | core.FLAG_REMOVE)
        assert new[core.ST_ENDGAME] == (state[core.ST_ENDGAME] + 1 if quiet and same_class else 0)
        state = new


@HYP
@given(data=st.data())
def test_mirrored_position_has_mirrored_moves(data):
    variant = data.draw(variants(), label="variant")
    state = data.draw(positions(variant), label="position")
    nsq = variant.board_size**2 // 2
    mirrored = mirror(state, variant)
    assert np.array_equal(mirror(mirrored, variant)[:5], state[:5])

    def flipped(key):
        start, end, taken, flag = key
        return nsq - 1 - start, nsq - 1 - end, frozenset(nsq - 1 - s for s in taken), flag

    own = sorted((flipped(move_key(r)) for r in kernel_moves(state, variant)), key=repr)
    other = sorted((move_key(r) for r in kernel_moves(mirrored, variant)), key=repr)
    assert own == other
    assert core.count_moves(state, variant.params) == core.count_moves(mirrored, variant.params)


@settings(max_examples=25, deadline=None)
@given(variant=variants(), seed=st.integers(0, 2**32 - 1), depth=st.integers(1, 3))
def test_bulk_perft_equals_explicit_tree(variant, seed, depth):
    rng = np.random.default_rng(seed)
    params = variant.params
    state = core.initial_state(params)
    for _ in range(int(rng.integers(0, 30))):
        rows = kernel_moves(state, variant)
        if len(rows) == 0:
            break
        state = core.apply_move(state, params, rows[rng.integers(len(rows))])

    def tree(s, d):
        rows = kernel_moves(s, variant)
        if d == 1:
            return len(rows)
        return sum(tree(core.apply_move(s, params, r), d - 1) for r in rows)

    assert core.perft(state, params, depth) == tree(state, depth)


# --------------------------------------------------------------------------- status

WIN_BLACK, WIN_WHITE, DRAW = 0, 1, 2


def status_of(fen, variant):
    state = state_from_fen(fen, variant)
    return core.status(state, variant.params, core.count_moves(state, variant.params))


def state_from_fen(fen, variant):
    turn, *fields = fen.split(":")
    boards = [0, 0, 0, 0]
    for field in fields:
        for token in filter(None, field[1:].split(",")):
            king = token.startswith("K")
            s = parse_square(token.lstrip("K"), variant.board_size)
            boards[(0 if field[0] == "B" else 2) + int(king)] |= 1 << s
    return core.make_state(*boards, 0 if turn == "B" else 1, variant.params)


def play(state, variant, texts):
    """Play moves given as 'from-to' / 'fromxto' (numeric), checking each is legal."""
    for text in texts:
        sep = "x" if "x" in text else "-"
        start, end = (int(t) - 1 for t in (text.split(sep)[0], text.split(sep)[-1]))
        rows = [
            r
            for r in kernel_moves(state, variant)
            if r[core.M_FROM] == start and r[core.M_TO] == end
        ]
        assert len(rows) == 1, text
        state = core.apply_move(state, variant.params, rows[0])
    return state


@pytest.mark.parametrize(
    "variant, fen, expected",
    [
        # Case 017: Black to move with no pieces left loses.
        ("international", "B:W50:B", core.T_NO_PIECES * 4 + WIN_WHITE),
        # Case 032: blocked Black wins giveaway, loses Russian.
        ("giveaway", "B:Wb2,c1:Ba3", core.T_BLOCKED * 4 + WIN_BLACK),
        ("russian", "B:Wb2,c1:Ba3", core.T_BLOCKED * 4 + WIN_WHITE),
        # Case 034: losing draughts, blocked player wins unless blocked_giver=loses.
        ("losing", "B:W31,32:B27", core.T_BLOCKED * 4 + WIN_BLACK),
        ("losing:blocked_giver=loses", "B:W31,32:B27", core.T_BLOCKED * 4 + WIN_WHITE),
        ("english", "B:W31,32:B27", core.T_BLOCKED * 4 + WIN_WHITE),
        # Give and Take (DESIGN 2): the Giver with no move wins; a blocked Taker loses or draws.
        ("give_and_take", "W:W29:B25,22", core.T_BLOCKED * 4 + WIN_WHITE),
        ("give_and_take:taker=white", "W:W29:B25,22", core.T_BLOCKED * 4 + WIN_BLACK),
        ("give_and_take:taker=white,taker_blocked=draw", "W:W29:B25,22", core.T_BLOCKED * 4 + DRAW),
        ("give_and_take:blocked_giver=loses", "W:W29:B25,22", core.T_BLOCKED * 4 + WIN_BLACK),
        # Both Givers: the side to move without pieces wins.
        ("give_and_take:objectives=give/give", "W:W:B1", core.T_NO_PIECES * 4 + WIN_WHITE),
        # The side not to move has no pieces (set-up position).
        ("english", "W:W29:B", core.T_NO_PIECES * 4 + WIN_WHITE),
        ("giveaway", "W:Wa1:B", core.T_NO_PIECES * 4 + WIN_BLACK),
        ("english", "W:W29:B1", -1),
    ],
)
def test_status_resolution(variant, fen, expected):
    assert status_of(fen, Variant.parse(variant)) == expected


@pytest.mark.parametrize("flag, winner", [("taker", WIN_WHITE), ("giver", WIN_BLACK)])
def test_giver_eliminated(flag, winner):
    # Case 036: the Taker (White) captures the Giver's last piece.
    v = Variant.parse(f"give_and_take:taker=white,elimination_winner={flag}")
    state = play(state_from_fen("W:W22:B18", v), v, ["22x15"])
    assert (
        core.status(state, v.params, core.count_moves(state, v.params))
        == core.T_GIVER_ELIMINATED * 4 + winner
    )


def test_role_swap_after_captures():
    v = Variant.parse("give_and_take:role_swap_after_captures=2")
    state = core.initial_state(v.params)
    assert (core.objective(state, v.params, 0), core.objective(state, v.params, 1)) == (0, 1)
    state[core.ST_CAPTURED] = 2
    assert (core.objective(state, v.params, 0), core.objective(state, v.params, 1)) == (1, 0)
    state[core.ST_CAPTURED] = 5
    assert (core.objective(state, v.params, 0), core.objective(state, v.params, 1)) == (0, 1)


def _case(name):
    return json.loads((GOLDEN_CASES / f"{name}.json").read_text())


def test_no_progress_draw_case_026():
    case = _case("026-international-25-move-king-only-draw")
    v = Variant.parse("international:no_progress_plies=50")
    state = state_from_fen(case["fen"], v)
    for ply, text in enumerate(case["moves"], start=1):
        state = play(state, v, [text])
        code = core.status(state, v.params, core.count_moves(state, v.params))
        assert code == (core.T_NO_PROGRESS * 4 + DRAW if ply == 50 else -1), ply


def test_endgame_rule_case_028():
    case = _case("028-international-16-move-count-then-2v1")
    v = Variant.preset("international")
    state = state_from_fen(case["fen"], v)
    assert core.endgame_kind(state, v.params) == 1
    for ply, text in enumerate(case["moves"], start=1):
        state = play(state, v, [text])
        code = core.status(state, v.params, core.count_moves(state, v.params))
        assert code == (core.T_ENDGAME_RULE * 4 + DRAW if ply == 36 else -1), ply
        if ply == 26:  # a king is taken: two kings against one, the count restarts
            assert core.endgame_kind(state, v.params) == 2 and state[core.ST_ENDGAME] == 0


def test_endgame_rule_is_international_only():
    v = Variant.parse("international:endgame_rule=none")
    state = state_from_fen("W:WK46,K47:BK3", v)
    state[core.ST_ENDGAME] = 40
    assert core.status(state, v.params, 5) == -1
    fmjd = Variant.preset("international")
    assert core.status(state, fmjd.params, 5) == core.T_ENDGAME_RULE * 4 + DRAW


@pytest.mark.parametrize(
    "fen, kind",
    [
        ("W:WK46,K47,K48:BK3", 1),
        ("W:WK46,K47,10:BK3", 1),
        ("W:WK46,9,10:BK3", 1),
        ("W:WK46,K47:BK3", 2),
        ("W:WK46,10:BK3", 2),
        ("W:WK46:BK3", 2),
        ("W:WK46,K47,K48,K49:BK3", 0),
        ("W:W46,10:BK3", 0),
        ("W:WK46,K47:BK3,K4", 0),
        ("B:BK1,K2,K3:WK50", 1),
    ],
)
def test_endgame_kind(fen, kind):
    v = Variant.preset("international")
    assert core.endgame_kind(state_from_fen(fen, v), v.params) == kind


def test_kernels_reject_wrong_shapes():
    v = Variant.preset("english")
    state = core.initial_state(v.params)
    with pytest.raises(ValueError, match="STATE_SIZE"):
        core.count_moves(state[:5].copy(), v.params)
    with pytest.raises(ValueError, match="PARAMS_SIZE"):
        core.count_moves(state, np.zeros(5, dtype=np.int64))
    with pytest.raises(ValueError, match="MOVE_WIDTH"):
        core.generate_moves(state, v.params, np.zeros((512, 8), dtype=np.int64))
    with pytest.raises(ValueError, match="STATE_SIZE"):
        core.perft(np.zeros(3, dtype=np.int64), v.params, 2)


def test_geometry_follows_the_documented_numbering():
    from drl.rules import geometry as g

    # docs/internals.md: 8x8 square 1 is b8, 4 is h8, 29 is a1, 32 is g1;
    # 10x10 square 1 is b10, 46 is a1, 50 is i1.
    for n, number, name in [
        (8, 1, "b8"),
        (8, 4, "h8"),
        (8, 29, "a1"),
        (8, 32, "g1"),
        (10, 1, "b10"),
        (10, 46, "a1"),
        (10, 50, "i1"),
    ]:
        assert g.square_name(number - 1, n, "algebraic") == name
        assert g.parse_square(name, n) == number - 1
        assert g.parse_square(str(number), n) == number - 1
    for bad in ("a2", "k1", "0", "33", "x"):
        with pytest.raises(ValueError):
            g.parse_square(bad, 8)
    for z, n in enumerate((8, 10)):
        for s in range(n * n // 2):
            r, c = g.square_to_rowcol(s, n)
            assert (g.ROW[z, s], g.COL[z, s]) == (r, c)
            for d, (dr, dc) in enumerate(DIRS):
                ray = [
                    rowcol_to_square(r + k * dr, c + k * dc, n)
                    for k in range(1, n)
                    if 0 <= r + k * dr < n and 0 <= c + k * dc < n
                ]
                assert list(g.RAY[z, s, d, : g.RAY_LEN[z, s, d]]) == ray
                assert g.NEIGHBOR[z, s, d] == (ray[0] if ray else -1)


# Flying kings without the maximum-capture rule on 10x10: each king has many capture
# sequences, with free landing squares at the end; more legal moves than the old
# 512-row buffer held (found by a local search over king positions).
MANY_MOVES = [
    (
        "russian:board_size=10",
        "W:WK1,K5,K6,K45,K47,K49,K50:BK10,K11,K12,K13,K20,K23,K27,K30,K33,K37,K40",
    ),
    (
        "international:max_capture=false",
        "W:WK1,K2,K4,K6,K15,K45,K46,K50:BK11,K12,K13,K14,K21,K28,K29,K30,K31,K41,K42,K43,K44",
    ),
]


@pytest.mark.parametrize("variant, fen", MANY_MOVES)
def test_positions_with_more_than_512_moves_are_generated_whole(variant, fen):
    from drl.rules import Board

    board = Board(variant, fen=fen)
    params = board.variant.params
    moves = board.legal_moves
    assert 512 < len(moves) <= core.MAX_MOVES
    assert len(set(moves)) == len(moves)  # no duplicate (start, end, captured set)
    assert all(m.is_capture for m in moves)
    assert core.count_moves(board.state, params) == len(moves) == core.perft(board.state, params, 1)
    # Every move plays: the captured pieces leave, the king lands on its end square.
    for m in moves[::50]:
        after = Board(variant, fen=fen)
        after.push(m)
        assert after.fen().count(",") == board.fen().count(",") - len(m.captures)


def test_a_move_list_longer_than_the_buffer_is_a_clear_error():
    from drl.rules import Board

    board = Board(*MANY_MOVES[0])
    small = np.zeros((100, core.MOVE_WIDTH), dtype=np.int64)
    with pytest.raises(ValueError, match="MAX_MOVES"):
        core.generate_moves(board.state, board.variant.params, small)
