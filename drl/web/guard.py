"""What a request must show before it may change anything on a ``drl-web`` server.

The server listens on the user's own machine, which any web page the user opens can send
requests to. Reading is harmless: a page of another origin cannot read the answers (no
CORS headers are sent). Changing is not: a form post or a ``no-cors`` fetch reaches the
server without reading its answer. So every request that may change something (any method
but ``GET``, ``HEAD`` and ``OPTIONS``) is refused with 403 unless

- its ``Sec-Fetch-Site`` header, when the browser sends one, is ``same-origin`` or
  ``none`` (typed by the user);
- its ``Origin`` header, when sent, is the server's own (``http://`` and its ``Host``);
- it carries the server's token in :data:`TOKEN_HEADER`: a random value made at start-up
  that only the server's own page holds (in a ``<meta name="drl-token">`` of the page).
  A page of another origin cannot read it, and cannot send a header of its own without
  the browser asking the server first, which the server does not allow;
- its body, if any, has the content type of its route: ``application/json``, or
  ``application/octet-stream`` (or ``application/x-draughts-pdn``) for a PDN upload. The
  content types a form can send are refused.

A JSON body is at most :data:`MAX_JSON_BYTES` and is read with a clear 400 for anything
that is not a JSON object, however deeply nested (:func:`json_object`).
"""

from __future__ import annotations

import hmac
import json
import re
from typing import Any

from flask import request

from drl.web.settings import GameError

__all__ = [
    "MAX_JSON_BYTES",
    "TOKEN_HEADER",
    "Forbidden",
    "check_request",
    "json_object",
]

TOKEN_HEADER = "X-DRL-Token"
"""The request header that carries the server's token."""

MAX_JSON_BYTES = 64 * 1024
"""Largest JSON request body read (64 KiB)."""

MAX_JSON_DEPTH = 32
"""The deepest nesting of arrays and objects a request body may have."""

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
FILE_TYPES = frozenset({"application/octet-stream", "application/x-draughts-pdn"})


class Forbidden(GameError):
    """A request refused because it may come from a page of another origin (HTTP 403)."""

    status = 403


def _refuse(why: str) -> Forbidden:
    return Forbidden(
        f"refused: {why}; only this server's own page may change anything (reload it if it "
        "was open before the server restarted)"
    )


def check_request(token: str, file_routes: frozenset[str]) -> None:
    """Refuse a state-changing request that does not come from the server's own page.

    Args:
        token: the server's token (see :data:`TOKEN_HEADER`).
        file_routes: the endpoints whose body is a file, not JSON.

    Raises:
        Forbidden: another site (``Sec-Fetch-Site``), another ``Origin``, no or a wrong
            token, or a body of a content type the route does not take.
    """
    if request.method in SAFE_METHODS:
        return
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None and site.strip().lower() not in ("same-origin", "none"):
        raise _refuse(f"it comes from another site (Sec-Fetch-Site: {site})")
    origin = request.headers.get("Origin")
    own = f"{request.scheme}://{request.host}".lower()
    if origin is not None and origin.strip().lower() != own:
        raise _refuse(f"it comes from another origin ({origin!r}, not {own!r})")
    sent = request.headers.get(TOKEN_HEADER, "")
    if not hmac.compare_digest(sent.encode("utf-8", "replace"), token.encode()):
        raise _refuse(f"it does not carry this server's {TOKEN_HEADER}")
    has_body = bool(request.content_length) or "chunked" in request.headers.get(
        "Transfer-Encoding", ""
    )
    if not has_body:
        return
    wanted = FILE_TYPES if request.endpoint in file_routes else frozenset({"application/json"})
    if request.mimetype not in wanted:
        raise _refuse(
            f"its body is {request.mimetype or 'of no content type'!s}, not "
            f"{' or '.join(sorted(wanted))}"
        )


_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')


def _nesting(raw: bytes) -> int:
    """The deepest nesting of arrays and objects in ``raw``, strings left out.

    Counted before parsing, so that the bound does not hang on the interpreter's
    recursion limit (which other code in the process may have raised).
    """
    depth = deepest = 0
    for byte in _STRING.sub(b'""', raw):
        if byte in (0x5B, 0x7B):  # [ {
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):  # ] }
            depth -= 1
    return deepest


def json_object() -> dict[str, Any]:
    """The request's JSON object.

    Raises:
        GameError: a body over :data:`MAX_JSON_BYTES`, not JSON (too deeply nested
            included), or not a JSON object.
    """
    if (request.content_length or 0) > MAX_JSON_BYTES:
        raise GameError(f"the request body is over {MAX_JSON_BYTES} bytes")
    raw = request.get_data(cache=True)
    if len(raw) > MAX_JSON_BYTES:
        raise GameError(f"the request body is over {MAX_JSON_BYTES} bytes")
    if _nesting(raw) > MAX_JSON_DEPTH:
        raise GameError(f"the request body is JSON nested deeper than {MAX_JSON_DEPTH} levels")
    try:
        data = json.loads(raw)
    except RecursionError:
        raise GameError("the request body is JSON nested too deeply") from None
    except ValueError as err:  # not UTF-8, not JSON
        raise GameError(f"the request body is not JSON ({err})") from None
    if not isinstance(data, dict):
        raise GameError("the request body must be a JSON object")
    return data
