"""Long-running readers see what another process changed, through the index's change marker (migration 18).

A search object (what a server holds for its lifetime) and the app's handlers are made and used first, so that
their caches are warm; a second store on the same tables (another process: an ``index build``) then changes the
index. Without a restart, the next search uses the new index kind, routes a title query to the newly ingested paper,
and the app shows a document it had looked up before it existed.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import psycopg
import pytest
from db_helpers import DIM, DOCS, THEOREMS, text_vector

from theorem_rag.db.schema import migrate
from theorem_rag.db.store import TheoremStore
from theorem_rag.db.table_names import Names
from theorem_rag.indexing.ingest import build_index
from theorem_rag.records import Document, Theorem
from theorem_rag.search import TheoremSearch

pytestmark = pytest.mark.db

TITLE = "A Foundation for Synthetic Algebraic Geometry"
PAPER = Document(id="sag", source="papers", title=TITLE, meta={"arxiv_id": "2307.00073"})
PAPER_THEOREMS = [
    Theorem(id="sag:1", source="papers", kind="definition", doc_id="sag", number="1.1",
            body_latex="A scheme is a type with a cover by open affines."),
    Theorem(id="sag:2", source="papers", kind="lemma", doc_id="sag", number="1.2",
            body_latex="Open subschemes of affine schemes are schemes."),
]  # fmt: skip


class DigestEmbedder:
    """Deterministic vectors per text, no model."""

    batch_size, doc_instruction, query_instruction, dim = 8, "", "", DIM
    backend, model_name = "torch", "digest-model"

    def embed_documents(self, texts, *, progress=False) -> np.ndarray:
        return np.stack([text_vector(t) for t in texts])

    embed_queries = embed_documents

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_queries([text])[0]


def _build(store, theorems, documents, **kwargs):
    from theorem_rag.slogans.offline import OfflineSloganWriter

    return build_index(store, DigestEmbedder(), theorems, documents, writer=OfflineSloganWriter(), space="toy",
                       progress=False, **kwargs)  # fmt: skip


def test_the_marker_moves_with_documents_and_spaces_and_only_then(store, pg_dsn, table_prefix):
    _build(store, THEOREMS, DOCS, dense_index="bit")
    start = store.generation()
    store.upsert_documents(DOCS)  # every document unchanged
    store.vector_space("toy", DIM)  # registered already
    store.upsert_theorems(THEOREMS)  # statements alone: nothing a reader caches
    assert store.generation() == start
    store.upsert_documents([PAPER])
    assert store.generation() == start + 1
    store.set_index_kind("toy", "halfvec")
    assert store.generation() == start + 2
    with TheoremStore(pg_dsn, table=table_prefix) as other:  # another process sees the same marker
        assert other.generation() == start + 2
        other.delete_source("papers")
    assert store.generation() > start + 2


def test_a_long_lived_search_sees_a_new_index_kind_and_a_new_paper(store, pg_dsn, table_prefix):
    _build(store, THEOREMS, DOCS, dense_index="bit")
    search = TheoremSearch(store, DigestEmbedder(), space="toy", k=3, pool=10)
    retriever = search.as_retriever()  # a LlamaIndex query engine holds this for its lifetime
    assert [h.theorem_id for h in search.search(TITLE)][:1] != ["sag:1"]
    assert [n.node.node_id for n in retriever.retrieve(TITLE)][:1] != ["sag:1"]
    assert store.space("toy").index == "bit"

    with TheoremStore(pg_dsn, table=table_prefix) as other:  # another process's index build: a new paper, halfvec
        _build(other, PAPER_THEOREMS, [PAPER], dense_index="halfvec")
        assert other.space("toy").index == "halfvec" and other.has_index("toy")

    hits = search.search(TITLE)
    assert store.space("toy").index == "halfvec"  # the dense search reads the new kind's index
    assert [h.theorem_id for h in hits][:2] == ["sag:1", "sag:2"]  # and routes to the new paper by its title
    assert [n.node.node_id for n in retriever.retrieve(TITLE)][:2] == ["sag:1", "sag:2"]


def test_the_apps_document_cache_forgets_a_miss_when_documents_change(store, pg_dsn, table_prefix):
    from theorem_rag.ui.app import Handlers

    _build(store, THEOREMS, DOCS)
    store.upsert_theorems(PAPER_THEOREMS)  # the statements came first; their document later
    handlers = Handlers(TheoremSearch(store, DigestEmbedder(), space="toy", k=3, pool=10), None)
    hit = handlers.search.get_theorem("sag:1")
    assert handlers.documents_for([hit]) == {}
    with TheoremStore(pg_dsn, table=table_prefix) as other:
        other.upsert_documents([PAPER])
    assert handlers.documents_for([hit]) == {"sag": PAPER}


def _retitle_each(conn, names: Names, suffix: str) -> None:
    """One transaction that changes every document, a statement each."""
    with conn.transaction():
        for d in DOCS:
            conn.execute(f"UPDATE {names.documents} SET title = title || %s WHERE id = %s", [suffix, d.id])


def test_a_transaction_moves_the_marker_once_however_many_of_its_statements_change_rows(store):
    store.vector_space("toy", DIM)
    start = store.generation()
    store.upsert_documents(DOCS)  # one transaction, one statement per document
    assert store.generation() == start + 1
    with store.connection() as conn:
        _retitle_each(conn, store.names, "!")
        with conn.transaction():  # documents and spaces, rows changed by several statements
            conn.execute(f"DELETE FROM {store.names.documents} WHERE id = %s", [DOCS[0].id])
            conn.execute(f"UPDATE {store.names.spaces} SET model = 'other' WHERE name = 'toy'")
            conn.execute(f"UPDATE {store.names.documents} SET year = 2000")
    assert store.generation() == start + 3


def test_builds_changing_different_documents_do_not_wait_for_each_other_on_the_marker(store, pg_dsn):
    """Two builds, each inside its transaction, change different documents: the second does not wait for the
    first's commit. When the marker moved per statement, the first build's write locked the marker's row until its
    commit, so the second waited; had the first then written one of the second's documents, they deadlocked. The
    lock timeout only turns that wait into an error: without a wait no timing can fail the test."""
    store.upsert_documents(DOCS)
    retitle = f"UPDATE {store.names.documents} SET title = %s WHERE id = %s"
    start = store.generation()
    with psycopg.connect(pg_dsn) as first, psycopg.connect(pg_dsn) as second:
        first.execute(retitle, ["First", DOCS[0].id])
        second.execute("SET lock_timeout = '2s'")
        second.execute(retitle, ["Second", DOCS[1].id])
        second.commit()
        first.commit()
    assert store.generation() == start + 2


def test_an_index_of_schema_18_moves_its_marker_once_per_transaction_when_opened(pg_dsn, table_prefix):
    n = Names(table_prefix)
    marker = f"SELECT n FROM {n.generation}"
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        migrate(conn, table_prefix, target=18)
        conn.cursor().executemany(f"INSERT INTO {n.documents} (id, source, title) VALUES (%s, %s, %s)",
                                  [(d.id, d.source, d.title) for d in DOCS])  # fmt: skip
        start = conn.execute(marker).fetchone()[0]
        _retitle_each(conn, n, "!")
        assert conn.execute(marker).fetchone()[0] == start + len(DOCS)  # schema 18: once per statement
    with TheoremStore(pg_dsn, table=table_prefix) as store:  # opening it migrates
        start = store.generation()
        store.upsert_documents([replace(d, title=f"{d.title}?") for d in DOCS])
        assert store.generation() == start + 1
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        triggers = conn.execute(
            "SELECT tgrelid::regclass::text, tgname, tgdeferrable FROM pg_trigger "
            "WHERE tgname LIKE 'trag_generation%%' AND tgrelid IN (%s::regclass, %s::regclass) ORDER BY 1, 2",
            [n.documents, n.spaces]).fetchall()  # fmt: skip
    assert triggers == [(t, g, g.endswith("at_commit")) for t in (n.documents, n.spaces)
                        for g in ("trag_generation_at_commit", "trag_generation_truncate")]  # fmt: skip
