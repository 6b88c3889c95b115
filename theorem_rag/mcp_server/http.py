"""The MCP server over streamable HTTP, guarded like the REST API: the same API key, per-client rate limits, the
same request body cap.

``THEOREM_RAG_API_KEY``, when set, is required on every request (``X-API-Key`` or ``Authorization: Bearer``), as
on REST; without one the server refuses to listen beyond loopback. Rate limits are the REST API's token buckets.

>>> from theorem_rag.mcp_server.server import build_server
>>> serve_http(build_server(search), host="0.0.0.0", port=8765, api_key=None, keep_alive=75)
Traceback (most recent call last):
...
ValueError: the MCP server would listen on 0.0.0.0 without an API key, ...
"""

from __future__ import annotations

from typing import Any

from theorem_rag.guards.apikey import RequireApiKey, check_bind
from theorem_rag.guards.body import BodySizeLimit
from theorem_rag.guards.proxy import DEFAULT_TRUSTED, uvicorn_proxy_options
from theorem_rag.guards.ratelimit import RateLimit, RateLimiter

MCP_PATH = "/mcp"


def http_app(server: Any, *, host: str = "127.0.0.1", api_key: str | None = None, rate_limit_per_minute: float = 0,
             rate_limit_burst: int = 60, json_response: bool = True, max_body_bytes: int = 256 * 1024) -> Any:  # fmt: skip
    """The ASGI app serving ``server`` (an ``MCPServer``) at ``/mcp``, behind the key check, the rate limit and the
    body cap (413 above ``max_body_bytes``, the REST API's default).

    ``host`` is where it will listen: on loopback the SDK also turns on its DNS-rebinding protection. With
    ``json_response`` (the default) a tool call is answered with one JSON body instead of an event stream; clients
    must accept both, our tools send no progress events, and the event stream costs the server more per call
    (benchmarks/results/: MCP latency against REST).
    """
    app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=host, json_response=json_response)
    app.add_middleware(BodySizeLimit, max_bytes=max_body_bytes)
    if api_key is not None:
        app.add_middleware(RequireApiKey, api_key=api_key)
    if rate_limit_per_minute:
        # Added last, so outermost: a client over its rate is refused before its key is even checked.
        app.add_middleware(RateLimit, limiter=RateLimiter(rate_limit_per_minute, rate_limit_burst))
    return app


def serve_http(server: Any, *, host: str, port: int, api_key: str | None, rate_limit_per_minute: float = 0,
               rate_limit_burst: int = 60, log_level: str = "info", json_response: bool = True,
               keep_alive: float, proxy_auth: bool = False, forwarded_allow_ips: str = DEFAULT_TRUSTED) -> None:  # fmt: skip
    """Serve MCP over streamable HTTP until interrupted; refuses a non-loopback ``host`` without ``api_key`` (but
    with ``proxy_auth``). Idle connections stay open ``keep_alive`` seconds (``Settings.keep_alive``: longer than
    the clients keep theirs); ``X-Forwarded-For`` names the client on connections from ``forwarded_allow_ips``
    (:mod:`theorem_rag.guards.proxy`)."""
    check_bind(host, api_key, "the MCP server", proxy_auth=proxy_auth)
    proxy = uvicorn_proxy_options(forwarded_allow_ips)
    import uvicorn

    app = http_app(server, host=host, api_key=api_key, rate_limit_per_minute=rate_limit_per_minute,
                   rate_limit_burst=rate_limit_burst, json_response=json_response)  # fmt: skip
    uvicorn.run(app, host=host, port=port, log_level=log_level, timeout_graceful_shutdown=5,
                timeout_keep_alive=keep_alive, **proxy)  # fmt: skip
