"""drl: reinforcement learning for draughts, losing draughts and Give and Take."""

__version__ = "0.1.0"

from drl import _numba_cache

_numba_cache.check()  # before any compiled module of the package loads
