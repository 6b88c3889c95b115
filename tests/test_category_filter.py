"""The arXiv category filter in the library, the LlamaIndex tool and the notebook widget, on a real index.

The REST and MCP surfaces have their own tests (tests/api/test_api_category.py, tests/mcp/test_mcp_category.py);
all of them search the three papers of tests/category_index.py.
"""

from __future__ import annotations

import asyncio

import pytest

from category_index import IN_AG, IN_NT, QUERY, STATEMENTS, category_search
from theorem_rag.errors import InputError
from theorem_rag.filters import Filters, check_category

pytestmark = [pytest.mark.db, pytest.mark.models]


@pytest.fixture(scope="module")
def cat_search(pg_dsn):
    return category_search(pg_dsn)


def _ids(hits) -> list[str]:
    return sorted(h.theorem_id for h in hits)


@pytest.mark.parametrize("good", ["math.AG", "cs.LO", "hep-th", "math-ph", "q-bio.BM", "cond-mat.mes-hall", "math"])
def test_arxiv_category_syntax_is_accepted(good):
    assert check_category(good) == good and Filters(category=(good,)).category == (good,)


@pytest.mark.parametrize("bad", ["math AG", "", "Math.AG", "math.", ".AG", "math.ag.x", "math.AG ", "math_AG"])
def test_malformed_category_is_an_input_error(bad):
    with pytest.raises(InputError, match="category"):
        Filters.from_mapping({"category": [bad]})


def test_library_keeps_primary_and_cross_listed_papers(cat_search):
    assert _ids(cat_search.search(QUERY, k=10)) == sorted(STATEMENTS)  # unfiltered, the math.NT paper is found
    assert _ids(cat_search.search(QUERY, k=10, categories=["math.AG"])) == IN_AG
    assert _ids(cat_search.search(QUERY, k=10, categories="math.NT")) == IN_NT
    assert _ids(cat_search.search(QUERY, k=10, categories=["math.AG", "math.NT"])) == sorted(STATEMENTS)
    assert cat_search.search(QUERY, k=10, categories=["hep-th"]) == []
    papers = cat_search.search_papers(QUERY, k=10, categories=["math.AG"])
    assert sorted(p.doc_id for p in papers) == ["arxiv:2401.00001", "arxiv:2401.00002"]
    for bad in ("", "math AG"):
        with pytest.raises(InputError, match="category"):
            cat_search.search(QUERY, k=10, categories=bad)


def test_a_paper_asked_for_by_id_is_not_put_first_against_the_filters(cat_search):
    """Routing to the paper a query names (its arXiv id) obeys the category and year filters like the ranking does:
    a paper outside them is not put first (it was, whatever the filters said)."""
    routed = cat_search.search("2401.00003", k=10)
    assert _ids(routed[:2]) == IN_NT
    assert not {h.theorem_id for h in cat_search.search("2401.00003", k=10, categories=["math.AG"])} & set(IN_NT)
    assert not {h.theorem_id for h in cat_search.search("2401.00003", k=10, year_max=2023)} & set(IN_NT)
    assert _ids(cat_search.search("2401.00003", k=10, categories=["math.NT"], year_min=2024)[:2]) == IN_NT


def test_llamaindex_tool_takes_categories(cat_search):
    import json

    from theorem_rag.tools import theorem_search_tool

    tool = theorem_search_tool(cat_search)
    schema = json.loads(tool.metadata.fn_schema_str)["properties"]["categories"]
    assert "math.AG" in json.dumps(schema)

    def ids(out) -> list[str]:
        return sorted(line.split("]")[0].split("[")[1] for line in out.content.splitlines() if line[:1].isdigit())

    assert ids(tool.call(query=QUERY, k=10, categories=["math.AG"])) == IN_AG
    assert ids(asyncio.run(tool.acall(query=QUERY, k=10, categories=["math.NT"]))) == IN_NT
    with pytest.raises(ValueError, match="arXiv categories"):
        tool.call(query=QUERY, categories=["math AG"])


def test_widget_filters_by_category(cat_search):
    from theorem_rag.widgets import SearchWidget

    w = SearchWidget(cat_search, k=10)
    assert _ids(w.run(QUERY)) == sorted(STATEMENTS)
    w.categories.value = "math.AG"
    assert _ids(w.run(QUERY)) == IN_AG
    w.categories.value = "math.NT, hep-th"
    assert _ids(w.run(QUERY)) == IN_NT
    w.categories.value = "math AG"
    w.query.value = QUERY
    w._on_search()
    assert "arXiv categories" in w.results.value


def test_app_search_tab_filters_by_category(cat_search):
    from loopback import free_port
    from theorem_rag.chat_backends import LiteLLMChat
    from theorem_rag.ui.app import Handlers

    h = Handlers(cat_search, LiteLLMChat("openai/gpt-4o-mini", f"http://127.0.0.1:{free_port()}/v1", timeout=5,
                                         max_retries=0))  # fmt: skip

    def shown(body: str) -> list[str]:
        return sorted(t for t in STATEMENTS if t in body)

    body, status, _ = h.run_search(QUERY, "Theorems", 10, categories="math.AG")
    assert shown(body) == IN_AG and status.startswith(f"{len(IN_AG)} statements")
    body, status, _ = h.run_search(QUERY, "Theorems", 10, None, None, None, "math.NT")
    assert shown(body) == IN_NT and status.startswith(f"{len(IN_NT)} statements")
    body, status, _ = h.run_search(QUERY, "Papers", 10, categories="math.AG")
    assert status.startswith("2 papers") and "arxiv:2401.00003" not in body
    body, status, _ = h.run_search(QUERY, "Theorems", 10, categories="math_AG")
    assert "arXiv categories such as" in body and status == ""


def test_the_category_filter_reads_the_categories_index(store):
    """A category filter finds its documents through the GIN index on ``meta->'categories'`` (migration 17), inside
    the search's own statement: shown with EXPLAIN on 4,000 papers with a statement each, 1 % of them in math.AG,
    for the dense and the full-text query as the store builds them (tables analyzed, as autovacuum would). Without
    the index the plans scan every document; before it, the filter was a separate query per sub-query that sent
    the ids of every matching document to the client and back."""
    import numpy as np

    from theorem_rag.db import dense_sql, table_sql
    from theorem_rag.records import Document, Theorem

    docs = [Document(id=f"arxiv:2401.{i:05d}", source="arxiv", title=f"Paper {i}",
                     meta={"categories": ["math.AG" if i % 100 == 0 else "math.NT", "math.CO"]})
            for i in range(4000)]  # fmt: skip
    store.upsert_documents(docs)
    theorems = [Theorem(id=f"{d.id}#thm", source="arxiv", kind="theorem", doc_id=d.id,
                        body_latex=f"Every smooth curve number {i} has a rational point.") for i, d in enumerate(docs)]  # fmt: skip
    store.upsert_theorems(theorems)
    space = store.vector_space("tiny", 4, model="m")
    store.write_vectors("tiny", [t.id for t in theorems],
                        np.random.default_rng(0).normal(size=(len(theorems), 4)).astype("float32"))  # fmt: skip
    store.build_index("tiny")
    index = table_sql.category_index_name(store.names)
    f = Filters(category=("math.AG",))
    with store.connection() as conn:
        for table in (store.names.documents, store.names.text, store.names.vectors("tiny")):
            conn.execute(f'ANALYZE "{table}"')
        dense = dense_sql.dense_search(store.names, "tiny", 4, space.half, [0.1, 0.2, 0.3, 0.4], f, 5, 50,
                                     kind=space.index)  # fmt: skip
        queries = {"dense": dense, "text": store._text_query(conn, "point", f, 5)}
        plans = {name: "\n".join(r[0] for r in conn.execute(b"EXPLAIN " + q.as_bytes(conn), params))
                 for name, (q, params) in queries.items()}  # fmt: skip
    for name, plan in plans.items():
        assert f"Bitmap Index Scan on {index}" in plan, f"{name} query plan:\n{plan}"
    # The same SQL finds the statements of the math.AG papers only.
    in_ag = [f"arxiv:2401.{i:05d}#thm" for i in range(0, 4000, 100)]
    assert sorted(h.theorem_id for h in store.search_text("point", k=50, filters=f)) == in_ag
    assert sorted(h.theorem_id for h in store.exact_search("tiny", [0.1, 0.2, 0.3, 0.4], k=50, filters=f)) == in_ag
