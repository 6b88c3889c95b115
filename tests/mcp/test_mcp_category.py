"""The arXiv category filter of the MCP tool ``search_theorems`` (in process, through the SDK's client), over the
three papers of tests/category_index.py."""

from __future__ import annotations

import asyncio

import pytest

from category_index import IN_AG, IN_NT, QUERY, STATEMENTS, category_search

pytestmark = [pytest.mark.db, pytest.mark.models]


def _text(result) -> str:
    return " ".join(c.text for c in result.content if getattr(c, "text", None))


def test_search_theorems_filters_by_category(pg_dsn):
    from mcp import Client

    from theorem_rag.mcp_server.server import build_server

    async def main():
        async with Client(build_server(category_search(pg_dsn))) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            prop = tools["search_theorems"].input_schema["properties"]["categories"]
            assert prop["anyOf"][0]["items"]["pattern"].startswith("^[a-z]+") and "cross-list" in prop["description"]

            async def ids(**args):
                r = await client.call_tool("search_theorems", {"query": QUERY, "k": 10, **args})
                assert not r.is_error, _text(r)
                return r.structured_content

            assert sorted(h["id"] for h in (await ids())["results"]) == sorted(STATEMENTS)
            assert sorted(h["id"] for h in (await ids(categories=["math.AG"]))["results"]) == IN_AG
            assert sorted(h["id"] for h in (await ids(categories=["math.NT"]))["results"]) == IN_NT
            papers = (await ids(categories=["math.AG"], paper_level=True))["papers"]
            assert sorted(p["id"] for p in papers) == ["arxiv:2401.00001", "arxiv:2401.00002"]
            for bad in ("math AG", ""):
                r = await client.call_tool("search_theorems", {"query": QUERY, "categories": [bad]})
                assert r.is_error and "arXiv categories such as 'math.AG'" in _text(r), _text(r)
            assert sorted(h["id"] for h in (await ids(categories=["math.AG"]))["results"]) == IN_AG  # still serving

    asyncio.run(main())
