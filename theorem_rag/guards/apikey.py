"""The API key shared by the REST API and the MCP server over HTTP, and the rule for binding beyond loopback.

The key comes from ``THEOREM_RAG_API_KEY`` (never a flag: flags show in the process list). Clients send it as
``X-API-Key: <key>`` or ``Authorization: Bearer <key>``; the comparison takes the same time whatever the guess.
A server that listens on anything but loopback without a key would serve anyone who can reach the machine, so
:func:`check_bind` refuses that.

>>> key_matches("s3cret", "s3cret"), key_matches("guess", "s3cret"), key_matches(None, "s3cret")
(True, False, False)
>>> is_loopback("127.0.0.1"), is_loopback("::1"), is_loopback("localhost"), is_loopback("0.0.0.0")
(True, True, True, False)
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import os
from collections.abc import Collection
from typing import Any

ENV_VAR = "THEOREM_RAG_API_KEY"


def api_key_from_env() -> str | None:
    """The key in ``THEOREM_RAG_API_KEY`` (an empty value means none)."""
    return os.environ.get(ENV_VAR) or None


def key_matches(given: str | None, expected: str) -> bool:
    """Whether the presented key is the expected one (constant-time comparison)."""
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


def presented_key(headers: dict[str, str]) -> str | None:
    """The key a request presents: ``X-API-Key``, else a bearer token (header names lower-case).

    >>> presented_key({"authorization": "Bearer abc"}), presented_key({"x-api-key": "k"}), presented_key({})
    ('abc', 'k', None)
    """
    if headers.get("x-api-key"):
        return headers["x-api-key"]
    scheme, _, token = headers.get("authorization", "").partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an interface to listen on) is reachable only from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # another host name: it may resolve to a public interface


# The flag of every server command that lets it listen beyond loopback without a key: a proxy in front checks access.
PROXY_AUTH_FLAG = "--auth-by-proxy"


def check_bind(host: str, api_key: str | None, what: str = "the server", *, proxy_auth: bool = False) -> None:
    """Raise ``ValueError`` when ``host`` is not loopback and no API key is set, unless ``proxy_auth`` (the
    operator's word that a reverse proxy in front checks who may reach the server).

    >>> check_bind("0.0.0.0", None, "the MCP server")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: the MCP server would listen on 0.0.0.0 without an API key, ...: set THEOREM_RAG_API_KEY ...
    >>> check_bind("0.0.0.0", "k"), check_bind("127.0.0.1", None), check_bind("0.0.0.0", None, proxy_auth=True)
    (None, None, None)
    """
    if api_key is None and not is_loopback(host) and not proxy_auth:
        raise ValueError(f"{what} would listen on {host} without an API key, open to anyone who can reach this "
                         f"machine: set {ENV_VAR} (clients send it as X-API-Key or Authorization: Bearer), listen "
                         f"on 127.0.0.1, or pass {PROXY_AUTH_FLAG} when a reverse proxy in front checks access")  # fmt: skip


class RequireApiKey:
    """ASGI middleware: ``401 {"error": "unauthorized", ...}`` for HTTP requests without the key (but ``exempt``).

    The REST API checks the key in a FastAPI dependency, so that its OpenAPI schema shows the scheme; this is the
    same check for apps that are not FastAPI (the MCP server's Starlette app).
    """

    def __init__(self, app: Any, api_key: str, *, exempt: Collection[str] = ()) -> None:
        self.app, self.api_key, self.exempt = app, api_key, frozenset(exempt)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("path") in self.exempt:
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or ()}
        if key_matches(presented_key(headers), self.api_key):
            await self.app(scope, receive, send)
            return
        body = json.dumps({"error": "unauthorized",
                           "message": "missing or wrong API key (X-API-Key header or Authorization: Bearer)"}).encode()
        await send({"type": "http.response.start", "status": 401,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"www-authenticate", b"Bearer")]})  # fmt: skip
        await send({"type": "http.response.body", "body": body})
