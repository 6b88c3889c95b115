"""MCP: an InputError is a tool error with its message; any other exception is an internal error without its text."""

from __future__ import annotations

import asyncio

import pytest

from integrations_index import BuggySearch, integration_search

pytestmark = [pytest.mark.db, pytest.mark.models]

SECRET = BuggySearch.SECRET


def test_plain_value_errors_are_internal_errors(pg_dsn):
    from mcp import Client

    from theorem_rag.mcp_server.server import build_server

    async def main():
        async with Client(build_server(BuggySearch(integration_search(pg_dsn)[0]))) as client:
            r = await client.call_tool("search_theorems", {"query": "ring", "k": 3})
            text = " ".join(c.text for c in r.content)
            assert r.is_error and text == "Error executing tool search_theorems" and SECRET not in text
            r = await client.call_tool("search_theorems", {"query": "ring", "k": 0, "paper_level": True})
            assert r.is_error and "k must be an integer from 1 to" in " ".join(c.text for c in r.content)

    asyncio.run(main())
