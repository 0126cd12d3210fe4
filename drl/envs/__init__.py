"""Gymnasium and PettingZoo environments for every variant and role.

Importing this package registers the Gymnasium ids of :data:`ENV_IDS`
(``drl/English-v0``, ``drl/GiveAndTake-Taker-v0``, ...). The PettingZoo AEC env for two
learning agents is :func:`drl.envs.pettingzoo.env`.
"""

from drl.envs.gym_env import DraughtsEnv
from drl.envs.registration import ENV_IDS, register_envs

register_envs()

__all__ = ["DraughtsEnv", "ENV_IDS", "register_envs"]
