"""``confident`` in MCP tool results, through the SDK's in-process client (real index, real MiniLM)."""

from __future__ import annotations

import asyncio

import pytest

from integrations_index import integration_search

pytestmark = [pytest.mark.db, pytest.mark.models]


def test_search_results_say_whether_they_match(pg_dsn):
    from mcp import Client

    from theorem_rag.mcp_server.server import build_server

    search = integration_search(pg_dsn)[0]

    async def main():
        async with Client(build_server(search)) as client:
            good = (await client.call_tool("search_theorems", {"query": "Cantor's theorem", "k": 3})).structured_content
            bad = (await client.call_tool("search_theorems", {"query": "asdfghjkl", "k": 3})).structured_content
            return good, bad

    good, bad = asyncio.run(main())
    assert good["results"][0]["id"] == "planetmath:CantorsTheorem" and good["confident"] is True
    assert bad["confident"] is False and bad["message"].startswith("No close match") and bad["suggestions"]
    assert all(r["confidence"] is not None for r in bad["results"])
