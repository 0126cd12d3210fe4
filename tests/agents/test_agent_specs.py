"""Spec strings: building agents, canonical names, and errors that list what is valid."""

import pytest

from drl.agents import Agent, Param, make, register_agent, registered_agents, spec_name
from drl.rules import Board

KINDS = ["random", "greedy", "alphabeta", "mcts"]
PARAMS = ["depth", "time", "tt", "sims", "c", "rollout_limit", "seed"]


@pytest.mark.parametrize(
    "spec, name",
    [
        ("random", "random"),
        ("greedy", "greedy"),
        ("alphabeta:depth=3", "alphabeta:depth=3"),
        ("AlphaBeta: time=0.5 , depth=3", "alphabeta:depth=3,time=0.5"),
        ("mcts:sims=50,c=2", "mcts:sims=50,c=2.0"),
    ],
)
def test_make_builds_named_agents(spec, name):
    agent = make(spec)
    assert isinstance(agent, Agent)
    assert agent.name == name == spec_name(spec)
    board = Board("english")
    agent.reset(seed=1)
    assert agent.select_move(board) in board.legal_moves


@pytest.mark.parametrize(
    "spec, problem",
    [
        ("alphabeta:depht=3", "unknown parameter 'depht'"),
        ("minimax:depth=3", "unknown agent 'minimax'"),
        ("alphabeta:depth=three", "not a valid int"),
        ("alphabeta:depth=1_0", "not a valid int"),
        ("alphabeta:depth=\uff12", "not a valid int"),  # a full-width digit 2
        ("mcts:c=nan", "not a valid float"),
        ("mcts:c=-inf", "not a valid float"),
        ("alphabeta:time=inf", "not a valid float"),
        ("alphabeta:time=1e400", "not a valid float"),  # overflows to inf
        ("alphabeta:depth=0", "below its minimum"),
        ("mcts:sims=10,sims=20", "given twice"),
        ("mcts:sims", "expected param=value"),
        ("", "non-empty"),
    ],
)
def test_bad_specs_list_every_agent_and_parameter(spec, problem):
    with pytest.raises(ValueError) as err:
        make(spec)
    text = str(err.value)
    assert problem in text
    for word in KINDS + PARAMS:
        assert word in text


def test_registry_accepts_new_kinds():
    class First(Agent):
        def __init__(self, offset: int = 0):
            self.offset = offset

        def select_move(self, board):
            moves = board.legal_moves
            return moves[self.offset % len(moves)]

    def factory(offset=0):
        return First(offset)

    register_agent(
        "first_test",
        factory,
        {"offset": Param(int, 0, "index of the move")},
        "plays the n-th legal move",
    )
    assert "first_test" in registered_agents()
    agent = make("first_test:offset=1")
    board = Board("english")
    assert agent.select_move(board) == board.legal_moves[1]
    assert agent.name == "first_test:offset=1"
    with pytest.raises(ValueError, match="first_test"):
        make("first_test:offset=x")
    with pytest.raises(ValueError, match="already registered"):
        register_agent("first_test", lambda: First(), {})


def test_agents_built_directly_refuse_non_finite_numbers():
    from drl.agents.alphabeta import AlphaBetaAgent
    from drl.agents.mcts import MCTSAgent

    for c in (float("nan"), float("inf")):
        with pytest.raises(ValueError, match="finite"):
            MCTSAgent(c=c)
    for t in (float("nan"), float("inf")):
        with pytest.raises(ValueError, match="finite"):
            AlphaBetaAgent(time=t)
    assert make("mcts:c=1e-1,sims=5").name == "mcts:sims=5,c=0.1"
