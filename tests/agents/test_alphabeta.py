"""Alpha-beta: forced wins in hand-made positions, distance, repetition, no-progress."""

import pytest

from drl.agents import make
from drl.agents._alphabeta import WIN
from drl.rules import Board, Termination


def winning_moves(board: Board, plies: int) -> list[str]:
    """Moves of the side to move that force a win (by the Board's outcome) within
    ``plies`` plies: an exhaustive AND-OR search over the Board API, independent of the
    search code, to verify the hand-made positions."""
    me = board.turn

    def wins(b: Board, left: int) -> bool:
        out = b.outcome()
        if out is not None:
            return out.winner == me
        if left == 0:
            return False
        mine = b.turn == me
        for m in b.legal_moves:
            b.push(m)
            r = wins(b, left - 1)
            b.pop()
            if mine and r:
                return True
            if not mine and not r:
                return False
        return not mine

    out = []
    for m in board.legal_moves:
        board.push(m)
        if wins(board, plies - 1):
            out.append(str(m))
        board.pop()
    return out


# (variant, FEN, the one move that wins fastest, plies to the win)
POSITIONS = {
    # English shot: 14-18 gives a man, 22x15 is forced, 10x19x28 takes both white men.
    "english shot": ("english", "B:W22,24:B6,10,14", "14-18", 3),
    # Give and Take, Black gives: 24-27 forces the king's 23x32, which blocks Black's
    # last man on 28; Black is to move with a piece and no move: the Giver wins.
    "giver reaches a block": ("give_and_take:taker=white", "B:WK23:B24,28", "24-27", 2),
    # Giveaway: c3-b4 is taken at once and White, to move without pieces, wins.
    # (c3-d4 also wins, but two plies later.)
    "giveaway elimination": ("giveaway", "W:W22:B13", "c3-b4", 2),
    # Give and Take, Black takes: only the double jump takes the Giver's last pieces.
    "taker's last capture": ("give_and_take", "B:W15,24:B10,11", "10x19x28", 1),
}


@pytest.mark.parametrize("name", list(POSITIONS))
def test_positions_are_what_they_claim(name):
    variant, fen, move, plies = POSITIONS[name]
    board = Board(variant, fen=fen)
    assert len(board.legal_moves) >= 2
    assert winning_moves(board, plies) == [move]
    assert all(winning_moves(board, k) == [] for k in range(1, plies))


@pytest.mark.parametrize("name", list(POSITIONS))
@pytest.mark.parametrize("depth", [4, 6])
def test_alphabeta_finds_the_fastest_forced_win(name, depth):
    variant, fen, move, plies = POSITIONS[name]
    board = Board(variant, fen=fen)
    agent = make(f"alphabeta:depth={depth}")
    agent.reset(seed=3)
    assert str(agent.select_move(board)) == move
    assert agent.last_score == WIN - plies
    assert board.fen() == Board(variant, fen=fen).fen()  # board untouched


def test_alphabeta_sees_the_loss_it_cannot_avoid():
    # Same shot, seen by White after 14-18: the capture is forced and loses.
    board = Board("english", fen="B:W22,24:B6,10,14")
    board.push("14-18")
    assert len(board.legal_moves) == 1  # select_move would not search
    agent = make("alphabeta:depth=4")
    row, score = agent.search(board)
    assert score == -(WIN - 2)
    assert (row[0], row[1]) == (21, 14)  # 22x15 (0-based squares), the forced capture


def _repeating_board():
    board = Board("english", fen="W:WK1,K3:BK32")
    for text in ["1-5", "32-28", "5-1", "28-32", "1-5", "32-28", "5-1"]:
        board.push(text)
    return board


def test_losing_side_claims_threefold_repetition():
    board = _repeating_board()
    drawn = board.copy()
    drawn.push("28-32")
    assert drawn.outcome().termination == Termination.THREEFOLD_REPETITION
    fresh = Board("english", fen=board.fen())  # same position, no history
    agent = make("alphabeta:depth=4")
    agent.select_move(fresh)
    assert agent.last_score < -100  # two kings against one: lost on material
    move = agent.select_move(board)
    assert str(move) == "28-32"
    assert agent.last_score == 0


def test_no_progress_rule_is_a_draw_in_search():
    fen = "B:WK1,K3:BK32"
    agent = make("alphabeta:depth=3")
    agent.select_move(Board("english", fen=fen))
    assert agent.last_score < -100
    # One ply before the 40-move rule (80 plies) every king move draws.
    agent.select_move(Board("english", fen=fen + ":H79"))
    assert agent.last_score == 0


def test_time_mode_returns_a_legal_move_and_deepens():
    board = Board("english")
    agent = make("alphabeta:time=0.2")
    move = agent.select_move(board)
    assert move in board.legal_moves
    assert agent.last_depth >= 4


def test_seed_breaks_ties_reproducibly():
    board = Board("english")
    picks = set()
    for seed in range(6):
        agent = make("alphabeta:depth=1")
        agent.reset(seed=seed)
        first = agent.select_move(board)
        agent.reset(seed=seed)
        assert agent.select_move(board) == first
        picks.add(str(first))
    assert len(picks) > 1  # the start position has equally scored first moves


def test_checking_a_variant_searches_once_off_the_clock_and_changes_no_move(monkeypatch):
    """The arena checks each agent's variant before its clock starts: that check loads the
    compiled search (a depth-1 search of the start position, once per board size), keeps
    the agent's depth and time, and leaves what it then plays unchanged."""
    from drl.agents.alphabeta import AlphaBetaAgent

    board = Board("english")
    for _ in range(4):
        board.push(board.legal_moves[0])
    unchecked = make("alphabeta:depth=5,seed=3")
    unchecked._fits.add(8)  # as if checked: no search before the move
    expected = unchecked.select_move(board.copy())
    agent = make("alphabeta:depth=5,seed=3")
    calls: list[tuple[int | None, float | None]] = []
    search = AlphaBetaAgent.search

    def counted(self, b, rank=None):
        calls.append((self.depth, self.time))
        return search(self, b, rank)

    monkeypatch.setattr(AlphaBetaAgent, "search", counted)
    agent.check_variant("english")
    agent.check_variant("english")
    assert calls == [(1, None)]
    assert (agent.depth, agent.time) == (5, None)
    assert agent.select_move(board.copy()) == expected
