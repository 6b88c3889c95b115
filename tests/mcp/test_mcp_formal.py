"""The formal / informal filter of the MCP tools ``search_theorems`` and ``find_premises`` (in process, through the
SDK's client), over the records of tests/formal_index.py."""

from __future__ import annotations

import asyncio

import pytest

from formal_index import LATEX_IDS, LEAN_IDS, formal_search

pytestmark = [pytest.mark.db, pytest.mark.models]

QUERY = "a prime number is at least two"


def _text(result) -> str:
    return " ".join(c.text for c in result.content if getattr(c, "text", None))


def test_search_and_premises_tools_filter_formal_statements(pg_dsn):
    from mcp import Client

    from theorem_rag.mcp_server.server import build_server

    async def main():
        async with Client(build_server(formal_search(pg_dsn))) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            for name in ("search_theorems", "find_premises"):
                assert "Lean" in tools[name].input_schema["properties"]["formal"]["description"]

            async def ids(tool, **args) -> set[str]:
                r = await client.call_tool(tool, {"k": 20, **args})
                assert not r.is_error, _text(r)
                return {h["id"] for h in r.structured_content["results"]}

            both = await ids("search_theorems", query=QUERY)
            assert both & set(LEAN_IDS) and both & set(LATEX_IDS)
            assert await ids("search_theorems", query=QUERY, formal=True) <= set(LEAN_IDS)
            assert await ids("search_theorems", query=QUERY, formal=False) <= set(LATEX_IDS)
            assert await ids("find_premises", statement="p.Prime → 2 ≤ p", formal=False) <= set(LATEX_IDS)
            r = await client.call_tool("search_theorems", {"query": QUERY, "formal": "lean"})
            assert r.is_error

    asyncio.run(main())
