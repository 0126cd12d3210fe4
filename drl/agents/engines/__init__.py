"""External engines and the two protocols drl speaks with them, client and server side.

- Hub (text lines on stdin/stdout, as Scan speaks it): :class:`HubAgent` plays an
  external Hub engine as a drl agent (:mod:`~drl.agents.engines.hub`); :class:`HubServer`
  answers a Hub client with a drl agent (:mod:`~drl.agents.engines.hub_server`).
- DXP (TCP, International draughts): :class:`DXPAgent` plays an external DXP engine
  (:mod:`~drl.agents.engines.dxp`); :func:`serve_dxp` plays a DXP peer with a drl agent
  (:mod:`~drl.agents.engines.dxp_server`).
- What both sides share: the engine process and its errors
  (:mod:`~drl.agents.engines.process`, :class:`EngineError`), bounded reading of lines
  and messages (:mod:`~drl.agents.engines.records`), and the protocols' move and
  position text (:mod:`~drl.agents.engines.wire`).

The agent kinds ``hub`` and ``dxp`` are registered by :mod:`drl.agents`, which imports
this package only when one is built. ``drl-hub`` (:mod:`drl.cli.hub`) is the command line
of the two servers.
"""

from drl.agents.engines.dxp import DXPAgent
from drl.agents.engines.dxp_server import serve_dxp
from drl.agents.engines.hub import HubAgent
from drl.agents.engines.hub_server import ENGINE_NAME, HubServer
from drl.agents.engines.process import EngineError

__all__ = ["DXPAgent", "ENGINE_NAME", "EngineError", "HubAgent", "HubServer", "serve_dxp"]
