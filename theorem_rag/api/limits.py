"""Plain ASGI middleware: a request body cap (over ``max_bytes`` -> 413 with a JSON error, nothing buffered), the
catch-all that turns a bug into a logged JSON 500, and the ``Server-Timing`` of every response.

The body cap checks ``Content-Length`` first and counts streamed chunks too (chunked uploads have no length), so a client
cannot make the server hold a huge body in memory.

>>> BodySizeLimit(app=None, max_bytes=1024).max_bytes
1024
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any

Scope = dict[str, Any]


class BodySizeLimit:
    """Reject request bodies larger than ``max_bytes`` with ``413 {"error": "payload_too_large", ...}``."""

    def __init__(self, app: Any, max_bytes: int = 256 * 1024) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers") or ()).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_bytes):
            await self._reject(send, length.isdigit())
            return
        seen = 0
        started = rejected = False

        async def counted_receive() -> dict[str, Any]:
            nonlocal seen, rejected
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    # Answer now and tell the app the client left: frameworks turn exceptions raised while reading
                    # the body into their own 400, so raising would lose the 413.
                    if not started and not rejected:
                        rejected = True
                        await self._reject(send, True)
                    return {"type": "http.disconnect"}
            return message

        async def tracked_send(message: dict[str, Any]) -> None:
            nonlocal started
            if rejected:
                return
            started = started or message["type"] == "http.response.start"
            await send(message)

        await self.app(scope, counted_receive, tracked_send)

    async def _reject(self, send: Any, too_large: bool) -> None:
        status, code = (413, "payload_too_large") if too_large else (400, "bad_content_length")
        message = (f"the request body is larger than {self.max_bytes} bytes" if too_large
                   else "the Content-Length header is not a number")  # fmt: skip
        body = json.dumps({"error": code, "message": message}).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})  # fmt: skip
        await send({"type": "http.response.body", "body": body})


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
