"""The checks of the training settings that span several config keys.

Each key's own range is checked by the dataclass that holds it, when
:func:`~drl.train.config.train_settings` builds it; here what depends on several keys,
run on the :class:`~drl.train.config.TrainSettings` once they are built: the learning
settings together, the evaluations' distinct openings and baseline specs, and the memory
the run's arrays need. Each error is ``config KEY=VALUE: MESSAGE``.
"""

from __future__ import annotations

from typing import Any

from drl.train.config.memory import check_memory
from drl.train.config.settings import LoopCfg, TrainSettings

__all__ = ["check_baselines", "check_learning", "check_openings", "check_settings"]


def _check(ok: bool, key: str, message: str, value: Any) -> None:
    if not ok:
        raise ValueError(f"config {key}={value!r}: {message}")


def check_learning(t: LoopCfg) -> None:
    """Refuse ``train`` settings that make the learner diverge or do nothing by construction.

    Each message names the key and its allowed range.
    """
    # Each key's own range (lr > 0, weight_decay >= 0, ...) is checked by the dataclass
    # that holds it (LoopCfg); here what depends on two keys.
    if t.optimizer == "adamw":
        # AdamW multiplies every weight by (1 - lr * weight_decay) at each step.
        _check(
            t.lr * t.weight_decay < 1,
            "train.lr",
            f"with adamw, lr * train.weight_decay ({t.weight_decay!r}) must be < 1 "
            "(each step multiplies the weights by 1 - lr * weight_decay)",
            t.lr,
        )
    if t.optimizer == "sgd":
        _check(
            0 < t.momentum < 1,
            "train.momentum",
            "must lie in (0, 1) with sgd (Nesterov momentum; 1 or more never decays)",
            t.momentum,
        )
    _check(
        0 <= t.min_replay <= t.replay_window,
        "train.min_replay",
        f"must lie in [0, train.replay_window={t.replay_window}] (the learner draws from "
        "the newest replay_window positions; more would never start it)",
        t.min_replay,
    )


def _evaluations(s: TrainSettings) -> tuple[tuple[str, Any], ...]:
    return (("train.eval", s.loop.eval), ("train.final_eval", s.loop.final_eval))


def check_openings(s: TrainSettings) -> None:
    """Refuse an evaluation that asks for more distinct openings than the variant has.

    Only an evaluation that will be played counts (with games and baselines, and
    ``train.eval`` only when ``every`` > 0).

    Raises:
        ValueError: ``config train.eval.openings=N: ...`` (or ``train.final_eval``).
    """
    from drl.eval.openings import check_distinct_openings

    for key, ev in _evaluations(s):
        if (
            ev.games >= 1
            and ev.baselines
            and ev.openings > 0
            and (ev.every > 0 or key != "train.eval")
        ):
            try:
                check_distinct_openings(s.variant, ev.openings, ev.games)
            except ValueError as err:
                raise ValueError(f"config {key}.openings={ev.openings}: {err}") from None


def check_baselines(s: TrainSettings) -> None:
    """Refuse a baseline that is not an agent spec (the agents are not built here).

    Raises:
        ValueError: ``config train.eval.baselines: ...`` with the first line of the
            registry's message.
    """
    from drl.agents import spec_name

    for key, ev in _evaluations(s):
        for spec in ev.baselines:
            try:
                spec_name(spec)
            except ValueError as err:
                first = str(err).splitlines()[0]
                raise ValueError(f"config {key}.baselines: {first}") from None


def check_settings(s: TrainSettings, available: tuple[int, str] | None = None) -> None:
    """Every check of this module, in order: learning, openings, memory, baselines.

    Args:
        s: the settings.
        available: the memory the run may take, ``(bytes, source)``; default:
            :func:`drl._system.available_memory`.

    Raises:
        ValueError: ``config KEY=VALUE: MESSAGE`` for the first check that fails.
    """
    check_learning(s.loop)
    check_openings(s)
    check_memory(s, available)
    check_baselines(s)
