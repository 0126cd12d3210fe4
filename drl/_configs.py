"""The ``variant`` config group that ``drl-train`` and ``drl-eval`` share.

It sits below every layer (see ``docs/architecture.md``) so that ``drl.train`` can use it
without importing ``drl.cli``. This module imports nothing else of drl (nor torch):
``drl-eval`` reads its schema from here and starts without loading the training stack.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_MAX_PLIES", "VariantCfg"]

DEFAULT_MAX_PLIES = 200
"""The one default cap on a game's plies: self-play training, ``drl-eval``, the
evaluations during training, the envs, ``drl-analyze``, ``drl-hub`` and every published
table. A game that reaches it is truncated (scored 1/2 in a match, value 0 in training),
not drawn by rule. 200 plies is past the end of nearly every game between agents that try
to win (the longest of the committed PDN collections' games are under 200 plies)."""


@dataclass
class VariantCfg:
    """Which game is played or learned (``configs/variant/*.yaml``).

    Attributes:
        name: short name (run folders, logs); the config file's name.
        spec: variant string, ``name[:flag=value,...]`` (see ``drl.rules.Variant.parse``).
        alternate_roles: training, Give and Take: alternate the Taker's colour game by
            game so the one network learns both roles (ignored for symmetric variants).
        max_plies: training: self-play games are truncated here (value target 0); the
            ``max_plies`` of ``drl.train.selfplay.SelfPlayConfig``.
    """

    name: str = "give_and_take"
    spec: str = "give_and_take"
    alternate_roles: bool = True
    max_plies: int = DEFAULT_MAX_PLIES
