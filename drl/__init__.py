"""drl: reinforcement learning for draughts, losing draughts and Give and Take."""

__version__ = "0.1.0"
