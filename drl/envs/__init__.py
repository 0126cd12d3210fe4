"""Gymnasium and PettingZoo environments for every variant and role.

Importing this package registers the Gymnasium ids of :data:`ENV_IDS`
(``drl/English-v0``, ``drl/GiveAndTake-Taker-v0``, ...). The PettingZoo AEC env for two
learning agents is :func:`drl.envs.pettingzoo.env`; many games against random opponents
step at once in :class:`DraughtsVectorEnv` (``gymnasium.make_vec``).
"""

from drl.envs.gym_env import DraughtsEnv
from drl.envs.registration import ENV_IDS, register_envs
from drl.envs.step_game import StepGame
from drl.envs.vector import DraughtsVectorEnv

register_envs()

__all__ = ["DraughtsEnv", "DraughtsVectorEnv", "ENV_IDS", "StepGame", "register_envs"]
