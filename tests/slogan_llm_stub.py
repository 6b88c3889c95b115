"""A tiny OpenAI-compatible chat server on 127.0.0.1 (stdlib only): a real protocol peer for litellm in tests.

It answers ``POST /v1/chat/completions`` with ``reply(messages)``; the first ``fail_first`` calls get
``fail_status`` instead (500 or 429), to exercise retries.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class StubLLM:
    def __init__(self, reply: Callable[[list[dict]], str], fail_first: int = 0, fail_status: int = 500) -> None:
        self.reply = reply
        self.fail_first = fail_first
        self.fail_status = fail_status
        self.calls = 0
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                with stub._lock:
                    stub.calls += 1
                    n = stub.calls
                    stub.requests.append(body)
                if not self.path.endswith("/chat/completions"):
                    return self._send(404, {"error": {"message": "not found"}})
                if n <= stub.fail_first:
                    return self._send(stub.fail_status, {"error": {"message": "try again", "type": "server_error"}})
                content = stub.reply(body["messages"])
                self._send(200, {
                    "id": f"chatcmpl-{n}", "object": "chat.completion", "created": 0, "model": body.get("model", "stub"),
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": content}}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                })

            def _send(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> StubLLM:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
