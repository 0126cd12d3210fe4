"""The HTTP side of the browser board: one page and a small JSON API (Flask).

Routes (every answer but the page, the static files and the PDN download is JSON):

- ``GET /``: the page; ``GET /static/...``: its script and style (package data).
- ``GET /api/options``: presets, agent kinds, the server's defaults, whether a replay
  folder is set, the memory budget and the bytes reserved in it.
- ``POST /api/games``: a new game (``variant``, ``opponent``, ``color``, ``role``,
  ``fen``, ``move_time``; ``replace``: the id of the game it replaces) -> its state.
- ``GET /api/games/<id>``: the state; ``POST /api/games/<id>/step`` (``from``, ``to``:
  0-based squares): one step of the player; ``POST .../opponent``: the opponent's move;
  ``POST .../undo``; ``GET .../analysis``: the ``az`` overlay; ``GET .../pdn``: the game
  as a PDN file; ``DELETE /api/games/<id>``.
- ``GET /api/files``: the replay folder's PDN files; ``POST /api/replays`` (the PDN file
  as the body, its name in ``?name=``) or ``POST /api/replays/open`` (``path`` inside the
  folder) -> an id and the games; ``GET /api/replays/<id>/<game>``: one game's positions.

A server that listens on a loopback address answers only requests whose ``Host`` is a
loopback name (:data:`LOOPBACK_HOSTS`), so a web page of another site cannot reach it
through a DNS name of its own. Every request that may change something must come from the
server's own page (its origin, its token, its content type: :mod:`drl.web.guard`), so a
page of another origin cannot start games or send files (403). An opponent that runs an
external program (``hub:``, ``dxp:``) is only built from a spec the server was started
with (:func:`~drl.web.settings.check_opponent`).

A refused request is ``{"error": message}`` with status 400 (404 for an unknown game or
PDN file, 403 for a request of another origin), written to the server log too; the game
is left as it was. An unexpected failure is a 500 with a one-line message on the page and
the traceback in the log only.
"""

from __future__ import annotations

import html
import logging
import secrets
from collections.abc import Callable
from importlib import resources
from typing import Any

from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import ClientDisconnected, HTTPException

from drl.agents import registered_agents
from drl.rules.variant import PRESETS
from drl.web.game import WebGame
from drl.web.guard import check_request, json_object
from drl.web.replay import MAX_FILE_BYTES, ReplayFolder, ReplayStore, open_pdn
from drl.web.settings import GameError, GameSettings, NotFound, check_opponent
from drl.web.store import GameNotFound, GameStore

__all__ = ["LOOPBACK_HOSTS", "create_app"]

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "[::1]", "::1"})
"""The ``Host`` names a loopback server answers (any port)."""

log = logging.getLogger("drl.web")


def _refused(err: GameError) -> tuple[Response, int]:
    """The JSON answer of a refused request (logged)."""
    status = getattr(err, "status", 404 if isinstance(err, NotFound) else 400)
    log.warning("%s %s refused: %s", request.method, request.path, str(err).splitlines()[0])
    return jsonify(error=str(err)), status


def _failed(err: Exception) -> tuple[Response, int]:
    """The JSON answer of an unexpected failure (traceback logged, not sent)."""
    if isinstance(err, (TimeoutError, ConnectionError, ClientDisconnected)):  # stopped sending
        log.warning("%s %s: the request could not be read (%s)", request.method, request.path, err)
        return jsonify(error="the request could not be read in time"), 408
    if isinstance(err, HTTPException):
        return jsonify(error=f"{err.code} {err.name}: {err.description}"), err.code or 500
    log.exception("%s %s failed", request.method, request.path)
    return jsonify(error=f"internal error ({type(err).__name__}: {err}); see the server log"), 500


def _body() -> dict[str, Any]:
    """The request's JSON object (:func:`drl.web.guard.json_object`).

    Raises:
        GameError: the body is not a JSON object.
    """
    return json_object()


def _host_name(header: str) -> str:
    """The name of a ``Host`` header, without its port, lower case.

    A port that is not digits leaves the whole header as the name (so it matches no
    name answered).
    """
    header = header.strip().lower()
    if header.startswith("["):
        name, _, rest = header.partition("]")
        return name + "]" if not rest or (rest[0] == ":" and rest[1:].isdigit()) else header
    if header.count(":") != 1:
        return header
    name, _, port = header.partition(":")
    return name if port.isdigit() else header


def _check_host(hosts: frozenset[str]) -> None:
    """Refuse a request whose ``Host`` is not one of ``hosts``.

    Raises:
        GameError: another name (e.g. a DNS name that points at 127.0.0.1).
    """
    header = request.headers.get("Host", "")
    if _host_name(header) not in hosts:
        raise GameError(
            f"Host {header!r} refused: this server answers only {', '.join(sorted(hosts))} "
            f"(start it with --host to serve other names)"
        )


def create_app(
    store: GameStore,
    folder: ReplayFolder | None = None,
    defaults: GameSettings | None = None,
    engines: tuple[str, ...] | list[str] = (),
    hosts: frozenset[str] | None = None,
    token: str | None = None,
) -> Flask:
    """The Flask application of one server.

    Args:
        store: the games.
        folder: where PDN files may be opened from by path (None: uploads only).
        defaults: the new-game form's initial values.
        engines: the agent specs that run an external program which a page may name
            (``defaults.opponent`` is one too); any other such spec is refused.
        hosts: the ``Host`` names answered (:data:`LOOPBACK_HOSTS` for a loopback
            server); None answers any.
        token: the value the page must send in ``X-DRL-Token`` with every request that
            changes something (default: a new random one; ``app.config["DRL_TOKEN"]``).

    Returns:
        The application (serve it with ``werkzeug.serving.make_server``, threaded).
    """
    static = resources.files("drl.web") / "static"
    app = Flask("drl.web", static_folder=str(static), static_url_path="/static")
    app.config["MAX_CONTENT_LENGTH"] = MAX_FILE_BYTES + 4096
    app.config["DRL_TOKEN"] = token = token or secrets.token_urlsafe(24)
    app.json.sort_keys = False  # type: ignore[attr-defined]
    replays = ReplayStore(budget=store.budget)
    app.extensions["drl.replays"] = replays
    app.register_error_handler(GameError, _refused)
    app.register_error_handler(Exception, _failed)
    if hosts is not None:
        app.before_request(lambda: _check_host(hosts))
    app.before_request(lambda: check_request(token, frozenset({"upload"})))
    allowed = [*engines, *([] if defaults is None else [defaults.opponent])]
    _game_routes(app, store, allowed, defaults)
    _replay_routes(app, replays, folder)

    page_text = (static / "index.html").read_text(encoding="utf-8")
    meta = f'<meta name="drl-token" content="{html.escape(token)}">'
    page_text = page_text.replace("<head>", f"<head>\n    {meta}", 1)

    @app.get("/")
    def page() -> Response:
        return Response(page_text, mimetype="text/html", headers={"Cache-Control": "no-store"})

    @app.get("/api/options")
    def options() -> Response:
        start = defaults or GameSettings()
        return jsonify(
            presets=list(PRESETS),
            agents=registered_agents(),
            defaults=start.__dict__,
            folder=None if folder is None else str(folder.root),
            memory={"budget": store.budget.limit, "used": store.budget.used},
        )

    return app


def _game_routes(
    app: Flask, store: GameStore, engines: list[str], defaults: GameSettings | None
) -> None:
    """The ``/api/games`` routes."""

    def answer(game: WebGame, change: Callable[[], object] | None = None) -> Response:
        if change is not None:
            change()
            store.save(game)
        return jsonify(game.state())

    @app.post("/api/games")
    def new_game() -> tuple[Response, int]:
        data = _body()
        replace = data.get("replace")
        settings = GameSettings.from_json(data, defaults)
        check_opponent(settings.opponent, engines)
        game = store.new(settings, replace if isinstance(replace, str) else None)
        store.save(game)
        return jsonify(game.state()), 201

    @app.get("/api/games/<game_id>")
    def game_state(game_id: str) -> Response:
        return answer(store.get(game_id))

    @app.post("/api/games/<game_id>/step")
    def step(game_id: str) -> Response:
        game, data = store.get(game_id), _body()
        return answer(game, lambda: game.play_step(data.get("from"), data.get("to")))

    @app.post("/api/games/<game_id>/opponent")
    def opponent(game_id: str) -> Response:
        game = store.get(game_id)
        return answer(game, game.opponent_move)

    @app.post("/api/games/<game_id>/undo")
    def undo(game_id: str) -> Response:
        game = store.get(game_id)
        return answer(game, game.undo)

    @app.get("/api/games/<game_id>/analysis")
    def analysis(game_id: str) -> Response:
        return jsonify(store.get(game_id).analysis())

    @app.get("/api/games/<game_id>/pdn")
    def pdn(game_id: str) -> Response:
        game = store.get(game_id)
        return Response(
            game.pdn(),
            mimetype="application/x-draughts-pdn",
            headers={"Content-Disposition": f'attachment; filename="drl-{game.id}.pdn"'},
        )

    @app.delete("/api/games/<game_id>")
    def close(game_id: str) -> Response:
        if not store.remove(game_id):
            raise GameNotFound(f"no game {game_id!r} (closed or from an earlier server)")
        return jsonify(closed=game_id)


def _replay_routes(app: Flask, replays: ReplayStore, folder: ReplayFolder | None) -> None:
    """The ``/api/files`` and ``/api/replays`` routes."""

    def opened(key: str) -> Response:
        found = replays.get(key)
        return jsonify(id=key, source=found.source, games=found.summary())

    @app.get("/api/files")
    def files() -> Response:
        return (
            jsonify(folder=None, files=[])
            if folder is None
            else jsonify(folder=str(folder.root), files=folder.files())
        )

    @app.post("/api/replays")
    def upload() -> Response:
        name = (request.args.get("name") or "uploaded.pdn")[:200]
        return opened(replays.add(open_pdn(request.get_data(), name, replays.budget)))

    @app.post("/api/replays/open")
    def open_path() -> Response:
        if folder is None:
            raise GameError("this server was started without a folder (drl-web --games DIR)")
        path = _body().get("path")
        return opened(replays.add(folder.open(path, replays.budget)))  # type: ignore[arg-type]

    @app.get("/api/replays/<key>/<int:index>")
    def frames(key: str, index: int) -> Response:
        return Response(replays.get(key).frames_json(index), mimetype="application/json")
