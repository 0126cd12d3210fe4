"""Endgame databases: the exact value of every position with few pieces, in any variant.

>>> from drl.egtb import build, probe, stats
>>> db = build("english", 3)                       # doctest: +SKIP
>>> probe("english", ["W:WK1,K2:BK32"])            # doctest: +SKIP
[Probe(value='win', plies=...)]

Solved by compiled retrograde analysis over the rules engine's own move generation, so
every preset and flag (flying kings, maximum capture, promotion during a capture, Give
and Take with either Taker or both Givers, the losing objectives) is played as in a
game. Values are win / loss / draw for the side to move with the plies to the end under
best play, without the counters (no-progress, endgame rules) and with repetition a
draw; :meth:`Database.exact` applies the counters of a game. Files live in
:func:`egtb_dir` (``DRL_EGTB_DIR``, default ``~/.cache/drl/egtb``), are written
atomically, checksummed and memory-mapped. See ``docs/egtb.md``.
"""

from drl.egtb._rules import EgtbError
from drl.egtb.database import (
    Database,
    Estimate,
    Probe,
    build,
    egtb_dir,
    estimate,
    open_database,
    probe,
    stats,
)

__all__ = [
    "Database",
    "EgtbError",
    "Estimate",
    "Probe",
    "build",
    "egtb_dir",
    "estimate",
    "open_database",
    "probe",
    "stats",
]
