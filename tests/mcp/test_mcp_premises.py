"""The MCP tool ``find_premises`` through the SDK's own client, in process, on the real index."""

from __future__ import annotations

import asyncio

import pytest

from integrations_index import integration_search

pytestmark = [pytest.mark.db, pytest.mark.models]

CITING = "stacks:00AC"


def _text(result) -> str:
    return " ".join(c.text for c in result.content if getattr(c, "text", None))


def test_find_premises_tool(pg_dsn):
    from mcp import Client

    from theorem_rag.mcp_server.server import build_server

    search = integration_search(pg_dsn)[0]
    expected = [h.theorem_id for h in search.premises(CITING, k=3)]
    definitions = [h.theorem_id for h in search.premises(CITING, k=20, kinds=["definition"])]

    async def main():
        async with Client(build_server(search)) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            schema = tools["find_premises"].input_schema["properties"]
            assert {"statement", "k", "sources", "kinds", "papers", "year_min", "year_max"} <= set(schema)
            r = await client.call_tool("find_premises", {"statement": CITING, "k": 3})
            assert not r.is_error, _text(r)
            assert [h["id"] for h in r.structured_content["results"]] == expected
            assert r.structured_content["statement"] == CITING and CITING not in expected
            r = await client.call_tool("find_premises", {"statement": CITING, "k": 20, "kinds": ["definition"]})
            assert [h["id"] for h in r.structured_content["results"]] == definitions
            r = await client.call_tool("find_premises", {"statement": "stacks:ZZZZ"})
            assert r.is_error and "no statement with id 'stacks:ZZZZ'" in _text(r)
            r = await client.call_tool("find_premises", {"statement": CITING, "k": 0})
            assert r.is_error and "k must be an integer from 1 to" in _text(r)

    asyncio.run(main())
