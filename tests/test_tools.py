"""The LlamaIndex tools on the real index: FunctionTool sync and async, the async search, the query engine tool."""

from __future__ import annotations

import asyncio
import json

import pytest

pytestmark = [pytest.mark.db, pytest.mark.models]

CANTOR = "no surjection from a set onto its power set"


def test_function_tool_metadata_and_schema(tiny_search):
    from theorem_rag.tools import theorem_search_tool

    tool = theorem_search_tool(tiny_search)
    assert tool.metadata.name == "search_theorems" and "cite" in tool.metadata.description
    params = json.loads(tool.metadata.fn_schema_str)
    assert params["required"] == ["query"]
    assert {"query", "k", "sources", "kinds", "paper"} <= set(params["properties"])
    assert "LaTeX" in params["properties"]["query"]["description"]


def test_function_tool_call_sync_and_async(tiny_search):
    from theorem_rag.tools import theorem_search_tool

    tool = theorem_search_tool(tiny_search)
    out = tool.call(query=CANTOR, k=2)
    first = out.content.splitlines()[0]
    assert first.startswith("1. [planetmath:CantorsTheorem] Theorem") and "https://planetmath.org/cantorstheorem" in first
    assert "statement: For every set $X$ there is no surjection" in out.content and "\n2. [" in out.content
    async_out = asyncio.run(tool.acall(query=CANTOR, k=2))
    assert async_out.content == out.content

    only_paper = tool.call(query="rank", k=5, paper="finkelstein-group-rank", kinds=["lemma"])
    ids = [line.split("]")[0].split("[")[1] for line in only_paper.content.splitlines() if line[:1].isdigit()]
    assert ids and all(i.startswith("finkelstein-group-rank:") for i in ids)
    assert tool.call(query="ring", sources=["no-such-source"]).content == "No results."


def test_function_tool_bad_input_raises_value_error(tiny_search):
    from theorem_rag.tools import theorem_search_tool

    tool = theorem_search_tool(tiny_search)
    with pytest.raises(ValueError, match="empty query"):
        tool.call(query="  ")
    with pytest.raises(ValueError, match="k must be an integer"):
        asyncio.run(tool.acall(query="ring", k=0))


def test_asearch_matches_search(tiny_search):
    from theorem_rag.tools import asearch

    async def both():
        return await asyncio.gather(asearch(tiny_search, CANTOR, k=3), asearch(tiny_search, "bijection", k=3))

    cantor, bijection = asyncio.run(both())
    assert [h.theorem_id for h in cantor] == [h.theorem_id for h in tiny_search.search(CANTOR, k=3)]
    assert bijection[0].theorem_id == "planetmath:Bijection"


def test_query_engine_tool_retrieves_the_theorems(tiny_search):
    from llama_index.core.llms import MockLLM

    from theorem_rag.tools import theorem_query_engine_tool

    tool = theorem_query_engine_tool(tiny_search, llm=MockLLM(), k=3)
    out = tool.call(input=CANTOR)
    ids = [n.node.node_id for n in out.raw_output.source_nodes]
    assert ids[0] == "planetmath:CantorsTheorem" and len(ids) == 3
    assert out.raw_output.source_nodes[0].node.metadata["url"] == "https://planetmath.org/cantorstheorem"
    async_out = asyncio.run(tool.acall(input=CANTOR))
    assert [n.node.node_id for n in async_out.raw_output.source_nodes] == ids


def test_function_agent_calls_the_tool_and_sees_citable_results(tiny_search):
    """A LlamaIndex FunctionAgent with LlamaIndex's scripted function-calling LLM: it asks for the tool once,
    then answers with what the tool returned (a real LLM would write its answer from the same text)."""
    from llama_index.core.agent.workflow import FunctionAgent
    from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock
    from llama_index.core.llms.mock import MockFunctionCallingLLM

    from theorem_rag.tools import theorem_search_tool

    def script(messages, **kwargs):
        results = [m for m in messages if m.role == MessageRole.TOOL]
        if results:
            return ChatMessage(role=MessageRole.ASSISTANT, content=f"Found: {results[-1].content}")
        call = ToolCallBlock(tool_call_id="call-1", tool_name="search_theorems", tool_kwargs={"query": CANTOR, "k": 2})
        return ChatMessage(role=MessageRole.ASSISTANT, blocks=[call])

    agent = FunctionAgent(tools=[theorem_search_tool(tiny_search)], llm=MockFunctionCallingLLM(response_generator=script))

    async def ask():
        return await agent.run("Which theorem says a set is smaller than its power set? Cite it.")

    answer = str(asyncio.run(ask()))
    assert answer.startswith("Found: 1. [planetmath:CantorsTheorem]")


def test_premises_tool_sync_and_async(tiny_search):
    from theorem_rag.tools import format_hits, theorem_premises_tool

    tool = theorem_premises_tool(tiny_search)
    assert tool.metadata.name == "find_premises"
    assert json.loads(tool.metadata.fn_schema_str)["required"] == ["statement"]
    out = tool.call(statement="stacks:00AC", k=3)
    assert out.content == format_hits(tiny_search.premises("stacks:00AC", 3))
    assert "[stacks:00AC]" not in out.content and out.content.startswith("1. [")
    assert asyncio.run(tool.acall(statement="stacks:00AC", k=3)).content == out.content
    with pytest.raises(ValueError, match="no statement with id 'stacks:ZZZZ'"):
        tool.call(statement="stacks:ZZZZ")


def test_a_lean_declaration_is_given_with_its_name_module_docstring_and_statement(pg_dsn):
    import re

    from lean_fixture_index import lean_fixture_search
    from theorem_rag.tools import theorem_search_tool

    out = theorem_search_tool(lean_fixture_search(pg_dsn)).call(query="every prime is at least two", k=50).content
    block = next(b for b in re.split(r"\n(?=\d+\. \[)", out) if "[mathlib:Fix.Prime.two_le]" in b)
    assert ("   Lean 4 theorem Fix.Prime.two_le, module Mathlib.Fixture.Prime (docs: https://leanprover-community."
            "github.io/mathlib4_docs/Mathlib/Fixture/Prime.html#Fix.Prime.two_le)") in block
    assert "   docstring: Every prime is at least $2$." in block
    assert block.endswith("   statement: theorem Fix.Prime.two_le {p : ℕ} (hp : Prime p) : 2 ≤ p")
