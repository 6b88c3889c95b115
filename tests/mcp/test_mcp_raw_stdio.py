"""Raw JSON-RPC lines into a spawned ``theorem-rag mcp`` (stdio): garbage is dropped, valid requests still answered.

The SDK's client cannot send malformed JSON, so this test writes the wire format itself.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time

import pytest

from test_mcp import SERVE, _server_env

pytestmark = [pytest.mark.db, pytest.mark.models, pytest.mark.slow]


@pytest.fixture(scope="module")
def integ(pg_dsn):
    from integrations_index import integration_search

    return integration_search(pg_dsn)


def test_malformed_lines_do_not_stop_the_server(integ, pg_dsn):
    proc = subprocess.Popen([sys.executable, *SERVE], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=_server_env(pg_dsn, integ[1]), text=True)  # fmt: skip
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()

    def send(message) -> None:
        proc.stdin.write((message if isinstance(message, str) else json.dumps(message)) + "\n")
        proc.stdin.flush()

    def responses(ids: set[int], timeout: float = 300) -> dict[int, dict]:
        got: dict[int, dict] = {}
        deadline = time.monotonic() + timeout
        while not ids <= set(got):
            try:
                msg = json.loads(lines.get(timeout=max(0.1, deadline - time.monotonic())))
            except queue.Empty:
                raise AssertionError(f"no answer for ids {sorted(ids - set(got))}; got {got}") from None
            if "id" in msg:
                got[msg["id"]] = msg
        return got

    try:
        send("{not json")
        send('["a", 1]')
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})  # fmt: skip
        assert responses({1})[1]["result"]["serverInfo"]["name"] == "theorem-rag"
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send("\x00\x01 binary garbage")
        send({"jsonrpc": "2.0", "id": 2, "method": "no/such/method"})
        send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "search_theorems",
                                                                            "arguments": "not an object"}})  # fmt: skip
        send({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "nope", "arguments": {}}})
        send({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "search_theorems",
                                                                            "arguments": {"query": "bijection", "k": 1}}})  # fmt: skip
        got = responses({2, 3, 4, 5})
        assert got[2]["error"]["code"] == -32601
        assert got[3]["error"]["code"] == -32602
        assert got[4].get("result", {}).get("isError") or got[4].get("error"), got[4]
        assert got[5]["result"]["structuredContent"]["results"][0]["id"] == "planetmath:Bijection"
        assert proc.poll() is None
    finally:
        proc.stdin.close()
        proc.wait(60)
    assert proc.returncode == 0
