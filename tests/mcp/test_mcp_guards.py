"""MCP over HTTP behind the REST API's guards, on a real uvicorn server on loopback: the API key, rate limits and
the body cap."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from integrations_index import integration_search
from loopback import serving

pytestmark = [pytest.mark.db, pytest.mark.models]

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
MCP_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def search(pg_dsn):
    return integration_search(pg_dsn)[0]


async def _search_cantor(url: str, key: str) -> str:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with httpx2.AsyncClient(headers={"X-API-Key": key}, timeout=300) as http:
        async with Client(streamable_http_client(f"{url}/mcp", http_client=http), read_timeout_seconds=300) as client:
            r = await client.call_tool("search_theorems", {"query": "no surjection onto the power set", "k": 1})
            return r.structured_content["results"][0]["id"]


def test_mcp_over_http_needs_the_api_key(search):
    from theorem_rag.mcp_server.http import http_app
    from theorem_rag.mcp_server.server import build_server

    with serving(http_app(build_server(search), api_key="s3cret"), lifespan="on") as url:
        r = httpx.post(f"{url}/mcp", json=INIT, headers=MCP_HEADERS)
        assert r.status_code == 401 and r.json()["error"] == "unauthorized" and "s3cret" not in r.text
        r = httpx.post(f"{url}/mcp", json=INIT, headers={**MCP_HEADERS, "X-API-Key": "guess"})
        assert r.status_code == 401
        r = httpx.post(f"{url}/mcp", json=INIT, headers={**MCP_HEADERS, "Authorization": "Bearer s3cret"})
        assert r.status_code == 200, r.text
        assert asyncio.run(_search_cantor(url, "s3cret")) == "planetmath:CantorsTheorem"


def test_mcp_over_http_rate_limits_each_client(search):
    from theorem_rag.mcp_server.http import http_app
    from theorem_rag.mcp_server.server import build_server

    app = http_app(build_server(search), rate_limit_per_minute=1, rate_limit_burst=4)
    with serving(app, lifespan="on") as url:
        a = httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.1"), timeout=60)
        b = httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.2"), timeout=60)
        with a, b:
            codes = [a.post(f"{url}/mcp", json=INIT, headers=MCP_HEADERS).status_code for _ in range(5)]
            assert codes == [200, 200, 200, 200, 429]
            refused = a.post(f"{url}/mcp", json=INIT, headers=MCP_HEADERS)
            assert refused.json()["error"] == "rate_limited" and 1 <= int(refused.headers["retry-after"]) <= 60
            assert b.post(f"{url}/mcp", json=INIT, headers=MCP_HEADERS).status_code == 200


def test_mcp_over_http_refuses_a_body_over_the_cap(search):
    from theorem_rag.mcp_server.http import http_app
    from theorem_rag.mcp_server.server import build_server

    with serving(http_app(build_server(search), max_body_bytes=64 * 1024), lifespan="on") as url:
        big = {**INIT, "params": {**INIT["params"], "clientInfo": {"name": "x" * 70_000, "version": "0"}}}
        r = httpx.post(f"{url}/mcp", json=big, headers=MCP_HEADERS)
        assert r.status_code == 413 and r.json()["error"] == "payload_too_large"
        assert httpx.post(f"{url}/mcp", json=INIT, headers=MCP_HEADERS).status_code == 200
