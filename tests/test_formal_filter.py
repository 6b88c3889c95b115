"""The formal / informal filter (issue 56, section 2): Lean declarations only, or LaTeX statements only, in the
library, its SQL, the LlamaIndex retriever and tools, the CLI and the app, on a real index.

The REST and MCP surfaces have their own tests (tests/api/test_api_formal.py, tests/mcp/test_mcp_formal.py); all
of them search the records of tests/formal_index.py.
"""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import pytest

from formal_index import LATEX_IDS, LEAN_IDS, formal_search
from theorem_rag.errors import InputError
from theorem_rag.filters import Filters

QUERY = "a prime number is at least two"


def test_the_filter_is_a_boolean_or_nothing():
    assert Filters.from_keywords({"formal": True}) == Filters(formal=True)
    assert Filters.from_keywords({"formal": False}).formal is False  # not "no restriction"
    assert Filters.from_keywords({"formal": None}).is_empty and not Filters(formal=False).is_empty
    assert Filters.from_mapping({"formal": True, "source": "mathlib"}) == Filters(source=("mathlib",), formal=True)
    for bad in ("yes", 1, "true"):
        with pytest.raises(InputError, match="'formal' takes true"):
            Filters.from_mapping({"formal": bad})


def test_the_filter_is_a_bound_condition_on_the_statements_document():
    from theorem_rag.db.table_sql import filter_clause

    for formal, op in ((True, "IN"), (False, "NOT IN")):
        q, params = filter_clause(Filters(formal=formal, kind=("theorem",)), alias="v", documents="t_documents")
        assert q.as_string(None) == ('"v"."kind" = ANY(%s) AND "v"."doc_id" ' + op +
                                     " (SELECT c.id FROM \"t_documents\" AS c WHERE c.meta ->> 'language' = ANY(%s))")
        assert params == [["theorem"], ["lean"]]
    with pytest.raises(ValueError, match="documents table"):
        filter_clause(Filters(formal=True), alias="v")


@pytest.fixture(scope="module")
def lean_search(pg_dsn):
    return formal_search(pg_dsn)


def _ids(hits) -> list[str]:
    return sorted(h.theorem_id for h in hits)


@pytest.mark.db
@pytest.mark.models
def test_library_search_and_premises_keep_formal_or_informal_statements(lean_search):
    everything = _ids(lean_search.search(QUERY, k=50))
    assert set(everything) & set(LEAN_IDS) and set(everything) & set(LATEX_IDS)
    assert set(_ids(lean_search.search(QUERY, k=50, formal=True))) <= set(LEAN_IDS)
    assert set(_ids(lean_search.search(QUERY, k=50, formal=False))) <= set(LATEX_IDS)
    assert _ids(lean_search.search(QUERY, k=50, sources=["mathlib"], formal=False)) == []
    premises = lean_search.premises("p.Prime → 2 ≤ p", k=20, formal=False)
    assert premises and set(_ids(premises)) <= set(LATEX_IDS)
    papers = lean_search.search_papers(QUERY, k=10, formal=True)
    assert papers and all(p.doc_id.startswith("mathlib-module:") for p in papers)


@pytest.mark.db
@pytest.mark.models
def test_the_eval_config_hybrid_formal_is_the_default_over_lean_declarations(lean_search):
    """``theorem-rag eval --config hybrid-formal``: the default ranking with the formal filter, what a Lean search
    engine is compared on (the index's LaTeX statements left out)."""
    from theorem_rag.eval import configs

    class Index:
        def search(self, field, *, hybrid):
            return lean_search

    settings = SimpleNamespace(embed_field="slogan")
    searcher = configs.build_searcher("hybrid-formal", settings, configs.EvalContext([], index=Index()))
    (everything,), (formal,) = (s.search_batch([QUERY], 50) for s in (configs.RetrieverSearcher("hybrid", lean_search),
                                                                       searcher))  # fmt: skip
    assert set(everything) & set(LATEX_IDS) and formal and set(formal) <= set(LEAN_IDS)


@pytest.mark.db
@pytest.mark.models
def test_llamaindex_retriever_and_tools_take_the_filter(lean_search):
    from theorem_rag.tools import theorem_premises_tool, theorem_search_tool

    nodes = lean_search.as_retriever(k=20, filters={"formal": True}).retrieve(QUERY)
    assert nodes and {n.node.node_id for n in nodes} <= set(LEAN_IDS)
    tool = theorem_search_tool(lean_search)
    assert "Lean" in json.loads(tool.metadata.fn_schema_str)["properties"]["formal"]["description"]

    def ids(out) -> set[str]:
        return {line.split("]")[0].split("[")[1] for line in out.content.splitlines() if line[:1].isdigit()}

    assert ids(tool.call(query=QUERY, k=20, formal=False)) <= set(LATEX_IDS)
    assert ids(asyncio.run(tool.acall(query=QUERY, k=20, formal=True))) <= set(LEAN_IDS)
    premises = theorem_premises_tool(lean_search)
    assert ids(premises.call(statement="p.Prime → 2 ≤ p", k=20, formal=True)) <= set(LEAN_IDS)


@pytest.mark.db
@pytest.mark.models
def test_cli_search_takes_formal_and_informal(lean_search, pg_dsn):
    from click.testing import CliRunner

    from theorem_rag.cli.search import search

    env = {"THEOREM_RAG_EMBED_BACKEND": getattr(lean_search.embedder, "backend", None) or "torch"}

    def ids(*flags) -> set[str]:
        out = CliRunner(env=env).invoke(search, [QUERY, *flags, "--json", "-k", "20", "--database-url", pg_dsn,
                                                 "--table", lean_search.store.names.prefix])  # fmt: skip
        assert out.exit_code == 0, out.output
        return {r["id"] for r in json.loads(out.output[out.output.index("{"):])["results"]}

    assert ids("--formal") <= set(LEAN_IDS) and ids("--informal") <= set(LATEX_IDS)
    assert ids() & set(LEAN_IDS) and ids() & set(LATEX_IDS)


@pytest.mark.db
@pytest.mark.models
def test_app_search_tab_filters_formal_statements(lean_search):
    from loopback import free_port
    from theorem_rag.chat_backends import LiteLLMChat
    from theorem_rag.ui.app import Handlers

    h = Handlers(lean_search, LiteLLMChat("openai/gpt-4o-mini", f"http://127.0.0.1:{free_port()}/v1", timeout=5,
                                          max_retries=0))  # fmt: skip

    def shown(body: str) -> set[str]:
        return {t for t in LEAN_IDS + LATEX_IDS if f"{t}<" in body or f"{t}\"" in body}

    body, status, _ = h.run_search(QUERY, "Theorems", 20, formal="Formal (Lean)")
    assert shown(body) and shown(body) <= set(LEAN_IDS), body
    body, status, _ = h.run_search(QUERY, "Theorems", 20, None, None, None, None, "Informal (LaTeX)")
    assert shown(body) and shown(body) <= set(LATEX_IDS)
    body, _, _ = h.run_search(QUERY, "Theorems", 20, formal="All")
    assert shown(body) & set(LEAN_IDS) and shown(body) & set(LATEX_IDS)
