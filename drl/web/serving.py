"""The HTTP server of ``drl-web``: one thread per connection, with a read timeout and a cap.

Werkzeug's threaded server, with two bounds, so that clients that connect and never send
their request (or its body) cannot hold the server's threads for ever:

- every socket read or write waits at most :data:`READ_TIMEOUT` seconds; a connection that
  stays silent that long is closed (a body that stops coming is answered 408);
- at most :data:`MAX_CONNECTIONS` connections are served at once; a connection beyond
  them is answered ``503`` at once and closed.
"""

from __future__ import annotations

import threading
from typing import Any

from werkzeug.serving import ThreadedWSGIServer, WSGIRequestHandler

__all__ = ["MAX_CONNECTIONS", "READ_TIMEOUT", "BoundedServer", "make_bounded_server"]

READ_TIMEOUT = 20.0
"""Seconds a connection may stay silent while a request is read (or its answer sent)."""

MAX_CONNECTIONS = 64
"""Connections served at once."""

_BUSY_BODY = b'{"error": "the server has too many connections: try again"}'
BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
    b"Connection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(_BUSY_BODY), _BUSY_BODY)
)
"""The answer to a connection beyond :data:`MAX_CONNECTIONS`."""


class BoundedServer(ThreadedWSGIServer):
    """A threaded WSGI server that serves at most ``max_connections`` at once.

    Args:
        host, port, app: as ``werkzeug.serving.make_server``.
        read_timeout: seconds each socket operation may wait.
        max_connections: connections served at once (>= 1).

    Raises:
        ValueError: a bound below its minimum.
        SystemExit: the address cannot be bound (werkzeug prints why).
    """

    def __init__(
        self,
        host: str,
        port: int,
        app: Any,
        read_timeout: float = READ_TIMEOUT,
        max_connections: int = MAX_CONNECTIONS,
    ) -> None:
        if not read_timeout > 0 or max_connections < 1:
            raise ValueError(
                f"read_timeout must be > 0 and max_connections >= 1, got {read_timeout}, "
                f"{max_connections}"
            )
        handler = type("Handler", (WSGIRequestHandler,), {"timeout": read_timeout})
        super().__init__(host, port, app, handler)
        self.max_connections = max_connections
        self._slots = threading.BoundedSemaphore(max_connections)

    def process_request(self, request: Any, client_address: Any) -> None:
        """Serve the connection in a thread of its own, or answer 503 when all are taken."""
        if not self._slots.acquire(blocking=False):
            try:
                request.settimeout(1.0)
                request.sendall(BUSY)
            except OSError:
                pass
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        """Serve one connection, then free its slot."""
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()


def make_bounded_server(
    host: str,
    port: int,
    app: Any,
    read_timeout: float = READ_TIMEOUT,
    max_connections: int = MAX_CONNECTIONS,
) -> BoundedServer:
    """A :class:`BoundedServer` listening on ``host:port`` (port 0: any free port)."""
    return BoundedServer(host, port, app, read_timeout, max_connections)
