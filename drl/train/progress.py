"""What training shows while it runs: a progress bar on a terminal, plain lines elsewhere.

On a terminal (stderr is a TTY) a tqdm bar counts games, its label names the iteration
(``give_and_take it 3``) and its postfix shows the last loss and the time budget used.
When stderr is not a terminal (a log file, a pipe, a notebook, CI) a bar would write
hundreds of carriage-return updates a minute; there each iteration prints one plain line
instead::

    give_and_take iteration 3: 86 games (258 in all), budget=0.7/2 min, loss=1.912
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from drl.train.config import TrainSettings

__all__ = ["Progress", "is_terminal"]


def is_terminal(stream: TextIO | None = None) -> bool:
    """Whether ``stream`` (default: stderr) is a terminal."""
    stream = sys.stderr if stream is None else stream
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


class Progress:
    """The progress of a training session, in games and iterations.

    With a time budget the iteration cap is rarely what ends the run: the bar then counts
    games without a total (no hours-long ETA) and its postfix shows the budget used.

    Args:
        s: the run's settings (``s.progress`` off: nothing is shown).
        wall_minutes: the run's training time so far, in minutes (all sessions).
        iteration: iterations completed before this session.
        bar: a tqdm bar on stderr; None: a bar when stderr is a terminal, else one plain
            line per iteration.
        stream: where the plain lines go (default: stderr).
    """

    def __init__(
        self,
        s: TrainSettings,
        wall_minutes: Callable[[], float],
        iteration: int,
        bar: bool | None = None,
        stream: TextIO | None = None,
    ) -> None:
        from tqdm.auto import tqdm

        loop = s.loop
        self.name = s.variant_name
        self.stream = stream
        self.lines = s.progress and not (is_terminal() if bar is None else bar)
        planned = loop.iterations * loop.games_per_iteration
        self.bar = tqdm(
            total=None if loop.max_minutes > 0 else planned,
            unit="game",
            disable=not s.progress or self.lines,
            desc=self._label(iteration + 1),
            dynamic_ncols=True,
        )
        self.bar.update(min(iteration * loop.games_per_iteration, planned))
        self.max_minutes, self.wall_minutes = loop.max_minutes, wall_minutes
        self.extra: dict[str, str] = {}
        self.postfix()

    def _label(self, iteration: int) -> str:
        return f"{self.name} it {iteration}"

    def postfix(self, **extra: str) -> None:
        """Show ``key=value`` items after the bar (the budget used is added)."""
        self.extra.update(extra)
        if self.max_minutes > 0:
            self.extra["budget"] = f"{self.wall_minutes():.1f}/{self.max_minutes:g} min"
        self.bar.set_postfix(refresh=False, **self.extra)

    def iteration_done(self, iteration: int, scalars: Mapping[str, float]) -> None:
        """Iteration ``iteration`` (1-based) is done: label the next one, or print its line.

        Args:
            iteration: the iteration just completed.
            scalars: its metrics (``replay/games``, ``selfplay/games``, ``loss/loss``).
        """
        self.postfix()
        self.bar.set_description(self._label(iteration + 1), refresh=False)
        if not self.lines:
            return
        parts = [f"{self.name} iteration {iteration}:"]
        played, total = scalars.get("selfplay/games"), scalars.get("replay/games")
        games = f"{int(played)} games" if played is not None else ""
        if total is not None:
            games += f" ({int(total)} in all)" if games else f"{int(total)} games in all"
        if games:
            parts.append(games + ",")
        parts += [f"{k}={v}," for k, v in self.extra.items()]
        print(" ".join(parts).rstrip(","), file=self.stream or sys.stderr, flush=True)

    def close(self) -> None:
        """Close the bar."""
        self.bar.close()
