"""Requests as the server's own page sends them: with its token (``drl.web.guard``)."""

from __future__ import annotations

import re
import urllib.request
from typing import Any

TOKEN_META = re.compile(r'<meta name="drl-token" content="([^"]+)">')


def client_of(app: Any) -> Any:
    """A Flask test client that sends the app's token with every request, as its page does."""
    client = app.test_client()
    client.environ_base["HTTP_X_DRL_TOKEN"] = app.config["DRL_TOKEN"]
    return client


def token_of(url: str) -> str:
    """The token in the page that the server at ``url`` (ending in ``/``) serves."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # 127.0.0.1 direct
    with opener.open(url, timeout=30) as answer:
        found = TOKEN_META.search(answer.read().decode())
    assert found, "the page holds no token"
    return found.group(1)
