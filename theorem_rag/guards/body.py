"""A request body cap as plain ASGI middleware, for every server (REST, the web app): over ``max_bytes`` -> 413
with a JSON error, nothing buffered.

The cap checks ``Content-Length`` first and counts streamed chunks too (chunked uploads have no length), so a client
cannot make the server hold a huge body in memory.

>>> BodySizeLimit(app=None, max_bytes=1024).max_bytes
1024
"""

from __future__ import annotations

import json
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
