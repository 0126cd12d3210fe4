"""The old home of :class:`drl.envs.StepGame` and :func:`drl.encode.actions.action_index`.

Both names still work from here, with a ``DeprecationWarning`` naming where they are now.
"""

from __future__ import annotations

import warnings

__all__: list[str] = []  # nothing new lives here


def __getattr__(name: str) -> object:
    if name == "StepGame":
        warnings.warn(
            "drl.game.game.StepGame is now drl.envs.StepGame", DeprecationWarning, stacklevel=2
        )
        from drl.envs import StepGame

        return StepGame
    if name == "action_index":
        warnings.warn(
            "drl.game.game.action_index is now drl.encode.actions.action_index",
            DeprecationWarning,
            stacklevel=2,
        )
        from drl.encode.actions import action_index

        return action_index
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
