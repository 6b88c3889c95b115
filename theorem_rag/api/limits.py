"""Plain ASGI middleware: the catch-all that turns a bug into a logged JSON 500, and the ``Server-Timing`` of every
response. The request body cap lives with the other guards (:class:`theorem_rag.guards.body.BodySizeLimit`, also the
web app's) and is imported from here as before.

>>> ServerTiming(app=None).app is None
True
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from theorem_rag.guards.body import BodySizeLimit

__all__ = ["BodySizeLimit", "InternalErrors", "ServerTiming"]

Scope = dict[str, Any]


class ServerTiming:
    """Add ``Server-Timing: app;dur=<ms>`` to every HTTP response: the time from the request reaching the app to
    its response starting. A client that measures more than that waited outside the app (for a process to run, in
    the event loop, on the network): benchmarks compare the two (``benchmarks/bench_api_load.py``)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        t0 = time.perf_counter()

        async def timed_send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                dur = f"app;dur={(time.perf_counter() - t0) * 1000:.1f}".encode()
                message = {**message, "headers": [*message.get("headers", []), (b"server-timing", dur)]}
            await send(message)

        await self.app(scope, receive, timed_send)


class InternalErrors:
    """An exception that escapes the app before its response started becomes ``500 {"error": "internal_error"}``
    (``respond(scope, receive, send)`` sends it) and a log line with the traceback; the client never sees the text.

    Plain ASGI rather than Starlette's ``@app.middleware("http")``: that one runs every request through a task group
    and memory streams (0.2-0.5 ms of the server's CPU per request: benchmarks/results/serving_20261205/). A handler for
    ``Exception`` would not do either: Starlette runs it outermost and raises the exception again afterwards, and
    uvicorn then drops the connection instead of delivering the 500.
    """

    def __init__(self, app: Any, respond: Callable[..., Any], logger: logging.Logger) -> None:
        self.app, self.respond, self.log = app, respond, logger

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watched_send(message: dict[str, Any]) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, watched_send)
        except Exception:
            self.log.exception("unhandled error on %s %s", scope.get("method", ""), scope.get("path", ""))
            if started:  # part of a response went out: nothing sane can follow it
                raise
            await self.respond(scope, receive, send)
