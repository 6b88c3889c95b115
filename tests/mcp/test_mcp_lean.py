"""Lean declarations through the MCP server (in-process client): the tools say they serve them, and a declaration
comes back with its full name, Lean statement, docstring, module, links, and what its proof uses and what uses it.

On the Lean fixture (tests/fixtures/lean) indexed in the session's embedded PostgreSQL with the MiniLM model.
"""

from __future__ import annotations

import asyncio

import pytest

from lean_fixture_index import lean_fixture_search

pytestmark = [pytest.mark.db, pytest.mark.models]

TWO_LE = "mathlib:Fix.Prime.two_le"
SOURCE = "https://github.com/leanprover-community/mathlib4/blob/54df8a3/Mathlib/Fixture/Prime.lean#L"


@pytest.fixture(scope="module")
def lean(pg_dsn):
    return lean_fixture_search(pg_dsn)


def test_the_tools_and_instructions_mention_lean_declarations(lean):
    from theorem_rag.mcp_server.server import build_server

    server = build_server(lean)
    tools = {t.name: t for t in asyncio.run(server.list_tools())}
    for name in ("search_theorems", "find_premises", "get_theorem"):
        assert "Lean" in tools[name].description, name
    assert "Lean" in tools["search_theorems"].input_schema["properties"]["query"]["description"]
    assert "'lean'" in server.instructions and "exact/apply" in server.instructions


def test_a_lean_declaration_comes_back_ready_to_use_in_a_proof(lean):
    from mcp import Client

    from theorem_rag.mcp_server.server import build_server

    async def main():
        async with Client(build_server(lean)) as client:
            r = await client.call_tool("search_theorems", {"query": "every prime is at least two", "k": 50})
            assert not r.is_error
            hit = next(h for h in r.structured_content["results"] if h["id"] == TWO_LE)
            assert hit["language"] == "lean" and hit["statement"] == (
                "theorem Fix.Prime.two_le {p : ℕ} (hp : Prime p) : 2 ≤ p")
            lean_out = hit["lean"]
            assert (lean_out["full_name"], lean_out["kind"], lean_out["module"], lean_out["docstring"]) == (
                "Fix.Prime.two_le", "theorem", "Mathlib.Fixture.Prime", "Every prime is at least $2$.")
            assert lean_out["statement"] == hit["statement"] and lean_out["source_url"].startswith(SOURCE)
            assert lean_out["docs_url"].endswith("/Mathlib/Fixture/Prime.html#Fix.Prime.two_le")

            r = await client.call_tool("get_theorem", {"id": TWO_LE})
            t = r.structured_content
            assert (t["language"], t["proof"], t["uses"]) == ("lean", "hp.1", [])
            assert t["used_by"] == ["mathlib:Fix.Prime.not_in_comments_or_strings", "mathlib:Fix.Prime.one_lt",
                                    "mathlib:Fix.Prime.three_le_or", "mathlib:two_le_of_prime"]  # fmt: skip
            r = await client.call_tool("get_theorem", {"id": "mathlib:opened"})
            assert r.structured_content["uses"] == ["mathlib:Fix.Prime.one_lt"]

            r = await client.call_tool("find_premises", {"statement": "mathlib:Fix.Prime.one_lt", "k": 5})
            assert not r.is_error
            ids = [h["id"] for h in r.structured_content["results"]]
            assert ids and "mathlib:Fix.Prime.one_lt" not in ids
            assert {h["language"] for h in r.structured_content["results"]} == {"lean"}

    asyncio.run(main())
