"""The MCP server through the SDK's own client: in-process, over stdio (a spawned server) and streamable HTTP.

All on the real index (tests/fixtures/integrations) in the session's embedded PostgreSQL with the MiniLM model.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys

import pytest

from integrations_index import integration_search, records
from loopback import assert_kept_alive, free_port, wait_for_port

pytestmark = [pytest.mark.db, pytest.mark.models]

THEOREMS = {t.id: t for t in records()[0]}
# `theorem-rag mcp`, through the CLI group, with the interpreter running the tests.
SERVE = ["-c", "from theorem_rag.cli import main; main()", "mcp"]


@pytest.fixture(scope="module")
def integ(pg_dsn):
    return integration_search(pg_dsn)


def _text(result) -> str:
    return " ".join(c.text for c in result.content if getattr(c, "text", None))


async def _exercise(client) -> None:
    """The checks every transport must pass: listing, search, filters, records, and bad input that keeps serving."""
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert {"search_theorems", "find_premises", "get_theorem", "get_paper"} <= set(tools)
    schema = tools["search_theorems"].input_schema["properties"]
    assert {"query", "k", "sources", "kinds", "papers", "year_min", "year_max", "paper_level"} <= set(schema)

    r = await client.call_tool("search_theorems", {"query": "no surjection from a set onto its power set", "k": 3})
    assert not r.is_error, _text(r)
    results = r.structured_content["results"]
    top = results[0]
    assert top["id"] == "planetmath:CantorsTheorem" and top["url"] == THEOREMS[top["id"]].url
    assert top["statement"] == THEOREMS[top["id"]].body_latex and top["slogan"] and top["id"] in top["citation"]
    assert json.loads(_text(r))["results"][0]["id"] == top["id"]  # the same JSON for clients without structured output

    r = await client.call_tool("search_theorems", {"query": "ring", "k": 10, "sources": ["stacks"], "kinds": ["lemma"]})
    assert {(h["source"], h["kind"]) for h in r.structured_content["results"]} == {("stacks", "lemma")}
    r = await client.call_tool("search_theorems", {"query": "rank of a quasigroup", "k": 2, "paper_level": True})
    assert r.structured_content["papers"][0]["id"] == "finkelstein-group-rank"
    r = await client.call_tool("search_theorems", {"query": "rank", "k": 5, "papers": ["finkelstein-group-rank"],
                                                   "year_min": 2016})  # fmt: skip
    assert {h["doc_id"] for h in r.structured_content["results"]} == {"finkelstein-group-rank"}

    r = await client.call_tool("get_theorem", {"id": "stacks:00AC"})
    assert not r.is_error and r.structured_content["statement"] == THEOREMS["stacks:00AC"].body_latex
    assert r.structured_content["proof_refs"] == list(THEOREMS["stacks:00AC"].proof_refs)
    assert (r.structured_content["uses"], r.structured_content["used_by"]) == (
        ["stacks:00AB", "stacks:00AE"], ["stacks:00AD"])
    assert r.structured_content["cite"] == "\\cite[Tag 00AC]{stacks-project}"

    bad = [
        ("get_theorem", {"id": "stacks:ZZZZ"}, "no theorem with id 'stacks:ZZZZ'"),
        ("get_paper", {"id": "nope"}, "no paper or document with id 'nope'"),
        ("search_theorems", {"query": "ring", "k": "many"}, "k"),
        ("search_theorems", {"query": "ring", "k": 0}, "k must be an integer from 1 to"),
        ("search_theorems", {"query": "   "}, "empty query"),
        ("search_theorems", {"query": "x" * 30_000}, "the limit is"),
        ("search_theorems", {"query": "ring", "sources": "stacks", "year_min": "then"}, "year_min"),
        ("search_theorems", {}, "query"),
        ("no_such_tool", {"query": "ring"}, "no_such_tool"),
    ]
    for name, args, fragment in bad:
        r = await client.call_tool(name, args)
        assert r.is_error and fragment in _text(r), (name, args, _text(r))
    r = await client.call_tool("search_theorems", {"query": "bijection", "k": 1})
    assert r.structured_content["results"][0]["id"] == "planetmath:Bijection"


def test_in_process_session(integ):
    from mcp import Client

    from theorem_rag.mcp_server.server import build_server

    async def main():
        async with Client(build_server(integ[0])) as client:
            await _exercise(client)
            r = await client.call_tool("get_paper", {"id": "finkelstein-group-rank", "limit": 3})
            paper = sorted((t for t in THEOREMS.values() if t.doc_id == "finkelstein-group-rank"),
                           key=lambda t: (t.file, t.line, t.id))  # source order, as the store defines it
            assert [t["id"] for t in r.structured_content["theorems"]] == [t.id for t in paper[:3]]

    asyncio.run(main())


def _server_env(pg_dsn: str, table: str) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR", "VIRTUAL_ENV",
                                                               "THEOREM_RAG_EMBED_BACKEND")}
    return {**keep, "THEOREM_RAG_DATABASE_URL": pg_dsn, "THEOREM_RAG_TABLE": table, "HF_HUB_OFFLINE": "1",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": os.getcwd()}  # fmt: skip


@pytest.mark.slow
def test_stdio_session_against_a_spawned_server(integ, pg_dsn):
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, args=[*SERVE, "--transport", "stdio"],
                                   env=_server_env(pg_dsn, integ[1]))  # fmt: skip

    async def main():
        # The server's stderr named here: stdio_client's default is the sys.stderr of the moment the SDK was
        # imported, which is click's capture stream when a CLI test imported it first (no fileno: the spawn fails).
        async with Client(stdio_client(params, errlog=sys.stderr), read_timeout_seconds=300) as client:
            await _exercise(client)

    asyncio.run(main())


async def _exercise_with_key(url: str, key: str) -> None:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=300) as http:
        async with Client(streamable_http_client(url, http_client=http), read_timeout_seconds=300) as client:
            await _exercise(client)


@pytest.mark.slow
def test_streamable_http_session(integ, pg_dsn):
    """`theorem-rag mcp --transport http` with THEOREM_RAG_API_KEY set: the key is required, as on REST."""
    import httpx

    port = free_port()
    env = {**_server_env(pg_dsn, integ[1]), "THEOREM_RAG_API_KEY": "mcp-k3y"}
    proc = subprocess.Popen([sys.executable, *SERVE, "--transport", "http", "--port", str(port)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    url = f"http://127.0.0.1:{port}/mcp"
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    try:
        wait_for_port(proc, port, "the MCP HTTP server")
        asyncio.run(_exercise_with_key(url, "mcp-k3y"))
        without = httpx.post(url, content=b"{}", headers=headers)
        assert without.status_code == 401 and without.json()["error"] == "unauthorized"
        # Not MCP at all: a clear HTTP error, and the server is still there for the next client.
        r = httpx.post(url, content=b"{not json", headers={**headers, "X-API-Key": "mcp-k3y"})
        assert 400 <= r.status_code < 500 and r.status_code != 401
        assert proc.poll() is None
        assert_kept_alive(port, "/mcp", idle=6.0)  # idle connections outlive the clients' own 5 s
    finally:
        proc.terminate()
        proc.wait(30)
    assert "mcp-k3y" not in proc.stderr.read().decode()
