"""Gymnasium ids of the single-agent envs, registered on ``import drl.envs``.

Every id makes a :class:`drl.envs.gym_env.DraughtsEnv`; the id fixes the variant (and the
agent's role in Give and Take), the other keyword arguments stay free::

    import gymnasium as gym
    import drl.envs  # noqa: F401  (registers the ids)

    env = gym.make("drl/GiveAndTake-Taker-v0", opponent="random", max_plies=300)

``gym.make("drl.envs:drl/English-v0")`` imports the package itself.
``gym.make_vec(id, num_envs)`` builds the compiled :class:`drl.envs.vector.DraughtsVectorEnv`
(random opponents only); ``vectorization_mode="sync"`` gives a ``SyncVectorEnv`` of
``DraughtsEnv`` for any opponent.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

ENTRY_POINT = "drl.envs.gym_env:DraughtsEnv"
VECTOR_ENTRY_POINT = "drl.envs.vector:DraughtsVectorEnv"

# id -> fixed keyword arguments.
ENV_IDS: dict[str, dict[str, Any]] = {
    "drl/GiveAndTake-Taker-v0": {"variant": "give_and_take", "role": "taker"},
    "drl/GiveAndTake-Giver-v0": {"variant": "give_and_take", "role": "giver"},
    "drl/GiveAndTake-BothGivers-v0": {"variant": "give_and_take:objectives=give/give"},
    "drl/GiveAndTake10x10-Taker-v0": {"variant": "give_and_take:board_size=10", "role": "taker"},
    "drl/GiveAndTake10x10-Giver-v0": {"variant": "give_and_take:board_size=10", "role": "giver"},
    "drl/English-v0": {"variant": "english"},
    "drl/Russian-v0": {"variant": "russian"},
    "drl/Brazilian-v0": {"variant": "brazilian"},
    "drl/International-v0": {"variant": "international"},
    "drl/Giveaway-v0": {"variant": "giveaway"},
    "drl/Losing-v0": {"variant": "losing"},
}


def register_envs() -> None:
    """Register every id of :data:`ENV_IDS` with Gymnasium (a no-op for ids already there)."""
    for env_id, kwargs in ENV_IDS.items():
        if env_id not in gym.registry:
            gym.register(
                id=env_id,
                entry_point=ENTRY_POINT,
                vector_entry_point=VECTOR_ENTRY_POINT,
                kwargs=dict(kwargs),
            )
