"""The browser board: play any agent in any variant, and replay recorded games.

The game logic lives here and needs no web library: :class:`WebGame` (one game, played by
steps), :class:`GameStore` (the games of one server), :class:`ReplayFolder` and
:func:`open_pdn` (PDN files to step through). The page (``static/``) and the HTTP routes
(:mod:`drl.web.app`, which needs Flask) are separate; ``drl-web`` (:mod:`drl.cli.web`)
serves them.
"""

from drl.web.game import WebGame
from drl.web.settings import GRACE, GameError, GameSettings

__all__ = ["GRACE", "GameError", "GameSettings", "WebGame"]
