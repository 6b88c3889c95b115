"""Lean declarations in the index (issue 56, section 2): Lean notation, full and partial names, and the formal /
informal filter, against the real store.

The records of tests/formal_index.py with the offline slogans and a digest embedding that knows nothing about words,
so only query understanding, the name look-up and full-text search can bring a declaration first.
"""

from __future__ import annotations

import re

import pytest

from db_helpers import make_embedding, offline_retriever
from formal_index import LATEX_IDS, LEAN_IDS, formal_search, records
from theorem_rag.filters import Filters
from theorem_rag.retrieval.retriever import TheoremRetriever

pytestmark = pytest.mark.db


@pytest.fixture
def retriever(store):
    return offline_retriever(store, *records())


def _ids(retriever, query, **options):
    return [h.theorem_id for h in retriever.search(query, **options)]


@pytest.mark.parametrize("query", ["Nat.Prime.two_le", "nat.prime.two_le", "_root_.Nat.Prime.two_le"])
def test_a_full_lean_name_puts_its_declaration_first(retriever, query):
    """A dotted name is one host token to PostgreSQL's parser ("nat.prime.two"), so full-text search alone did not
    find the declaration named so; the name look-up does, whatever the case."""
    assert _ids(retriever, query)[0] == "mathlib:Nat.Prime.two_le"


@pytest.mark.parametrize("query, ending", [
    ("two_le", {"mathlib:Nat.Prime.two_le", "mathlib:IsPrimePow.two_le"}),
    ("Prime.two_le", {"mathlib:Nat.Prime.two_le"}),
    ("mul_comm", {"mathlib:mul_comm", "mathlib:Nat.mul_comm"}),
])  # fmt: skip
def test_the_declarations_whose_name_ends_with_a_partial_name_come_first(retriever, query, ending):
    """Declarations named with the query as the last components of their name rank before the others, those that
    merely hold it (``Nat.two_le_iff``) included; one named exactly so (``mul_comm``) first of all."""
    ids = _ids(retriever, query)
    assert set(ids[: len(ending)]) == ending
    if query == "mul_comm":
        assert ids[0] == "mathlib:mul_comm"


def test_the_words_of_a_name_find_it(retriever):
    assert _ids(retriever, "prime two le")[0] == "mathlib:Nat.Prime.two_le"
    assert _ids(retriever, "sup comm")[0] == "mathlib:sup_comm"


def test_a_term_asked_for_finds_the_declaration_mathlib_names_by_it(retriever):
    """mathlib names a notion by its words in UpperCamelCase (``Nat.Prime`` for "prime"): a bare term or "definition
    of X" puts that declaration first among the declarations, after the definitions named so; the digest embedding
    and full-text search alone leave it behind the theorems that say "prime" more often."""
    for query in ("prime", "primes", "definition of prime"):
        assert _ids(retriever, query, filters={"formal": True})[0] == "mathlib:Nat.Prime", query
        assert "mathlib:Nat.Prime" in _ids(retriever, query)[:2], query
    assert "mathlib:Nat.Prime" not in _ids(retriever, "prime", filters={"formal": False})
    assert "mathlib:Nat.Prime" not in _ids(retriever, "prime", filters={"kind": ["theorem"]})
    # without the look-up (no query understanding) another declaration comes first
    assert _ids(retriever.with_options(understand=False), "prime", filters={"formal": True})[0] != "mathlib:Nat.Prime"


@pytest.mark.parametrize("query, expected", [
    ("p.Prime → 2 ≤ p", "mathlib:Nat.Prime.two_le"),
    ("a ∣ b → a ≤ b", "mathlib:Nat.le_of_dvd"),
    ("s ⊔ t = t ⊔ s", "mathlib:sup_comm"),
])  # fmt: skip
def test_lean_notation_is_searched_in_the_words_of_the_lean_slogans(retriever, query, expected):
    """Read into the words of the Lean slogans, a Lean statement meets its declaration's slogan in full-text search
    (as typed, its notation matches no word of any statement). The final ranking here also fuses the digest
    embedding's random dense rankings; tests/test_formal_filter.py checks it with the real model."""
    plan = retriever.plan(query)
    assert plan.formula and plan.variants == (query,)
    assert [h.theorem_id for h in retriever.store.search_text(plan.text, k=3)][0] == expected


@pytest.mark.models
@pytest.mark.parametrize("query, expected", [
    ("p.Prime → 2 ≤ p", "mathlib:Nat.Prime.two_le"),
    ("a ∣ b → a ≤ b", "mathlib:Nat.le_of_dvd"),
    ("s ⊔ t = t ⊔ s", "mathlib:sup_comm"),
    ("Nat.Prime.two_le", "mathlib:Nat.Prime.two_le"),
    ("Prime.two_le", "mathlib:Nat.Prime.two_le"),
    ("prime two le", "mathlib:Nat.Prime.two_le"),
])  # fmt: skip
def test_with_the_real_model_lean_notation_and_names_find_their_declaration_first(pg_dsn, query, expected):
    """The whole search (the bundled MiniLM, offline slogans) over the same records."""
    assert formal_search(pg_dsn).search(query, k=3)[0].theorem_id == expected


def test_a_lean_statement_is_compared_in_the_base_models_space(store):
    """Like a statement in LaTeX, a statement in Lean notation is embedded by the base model into its space, not by
    the model adapted to questions in words (which would read ``∣`` and ``⊔`` as noise)."""
    r = TheoremRetriever(store, make_embedding(), space="base", query_space="adapted",
                         query_embed_model=make_embedding())  # fmt: skip
    assert r.dense_space("a ∣ b → a ≤ b")[0] == "base"
    assert r.dense_space("`IsAlgClosed ℂ`")[0] == "base"
    assert r.dense_space("a prime is at least two")[0] == "adapted"


@pytest.mark.parametrize("query", ["two_le", "prime number at least two", "p.Prime → 2 ≤ p", r"$p \geq 2$",
                                   "Nat.Prime.two_le"])  # fmt: skip
def test_the_formal_filter_keeps_lean_or_latex_statements_on_every_ranking(retriever, query):
    """Dense, full-text, formula rankings and the name look-up all obey it (a name asked for under the other
    filter is not put first)."""
    for hybrid in (True, False):
        r = retriever.with_options(hybrid=hybrid, k=20)
        formal, informal = _ids(r, query, filters={"formal": True}), _ids(r, query, filters={"formal": False})
        assert formal and set(formal) <= set(LEAN_IDS)
        assert informal and set(informal) <= set(LATEX_IDS)
        assert set(_ids(r, query)) == set(formal) | set(informal)


def test_the_name_lookup_reads_the_end_of_names_and_obeys_filters(retriever):
    store = retriever.store
    assert store.names_ending(["two_le"], k=5) == [("mathlib:IsPrimePow.two_le", "IsPrimePow.two_le"),
                                                   ("mathlib:Nat.Prime.two_le", "Nat.Prime.two_le")]  # fmt: skip
    assert store.names_ending(["NAT.PRIME.TWO_LE", "prime.two_le"], k=5)[0][0] == "mathlib:Nat.Prime.two_le"
    assert store.names_ending(["two_le"], k=5, filters=Filters(formal=False)) == []
    assert store.names_ending(["wo_le"], k=5) == []  # a name ends with a whole component, not with any letters
    assert store.names_ending(["two%le", "two\\_le"], k=5) == []  # LIKE's wildcards are plain characters


# The forms of "compact 5 image" (query_understanding.lean.name_suffixes): four ends of names to look up.
NAME_FORMS = ["compact.5.image", "compact.5_image", "compact_5.image", "compact_5_image"]


def test_the_name_lookup_and_the_formal_filter_read_their_indexes(store):
    """Shown with EXPLAIN on 3,000 statements of 600 documents, a third of them Lean modules (tables vacuumed and
    analyzed, as autovacuum would): each end of a name is one range of the index of reversed names (four of them
    too: joined to the list of ends, the planner scanned the statements), and the formal
    filter never scans the documents: it reads the Lean modules' ids from their partial index alone (informal) or
    looks each candidate's document up (formal), in the dense and the full-text query as the store builds them.
    Without the indexes (migration 23) the plans scan the statements and the documents."""
    import numpy as np

    from theorem_rag.db import dense_sql, lookup_sql, table_sql
    from theorem_rag.records import Document, Theorem

    docs = [Document(id=f"doc{i}", source="mathlib" if i % 3 == 0 else "arxiv", title=f"Module {i}",
                     abstract="A module of the library. " * 40, meta={"language": "lean"} if i % 3 == 0 else {})
            for i in range(600)]  # fmt: skip
    store.upsert_documents(docs)
    theorems = [Theorem(id=f"t{i}", source=docs[i % 600].source, kind="theorem", doc_id=docs[i % 600].id,
                        name=f"Space{i}.compact_{i % 97}_image", body_latex=f"Every compact set number {i} is closed.")
                for i in range(3000)]  # fmt: skip
    store.upsert_theorems(theorems)
    space = store.vector_space("tiny", 4, model="m")
    store.write_vectors("tiny", [t.id for t in theorems],
                        np.random.default_rng(0).normal(size=(len(theorems), 4)).astype("float32"))  # fmt: skip
    store.build_index("tiny")
    n = store.names
    with store.connection() as conn:
        conn.autocommit = True
        for table in (n.documents, n.theorems, n.text, n.vectors("tiny")):
            conn.execute(f'VACUUM ANALYZE "{table}"')
        plans = {}
        for formal in (True, False):
            f = Filters(formal=formal)
            queries = {"dense": dense_sql.dense_search(n, "tiny", 4, space.half, [0.1, 0.2, 0.3, 0.4], f, 5, 50,
                                                       kind=space.index),
                       "text": store._text_query(conn, "compact", f, 5),
                       "name": lookup_sql.names_ending(n, NAME_FORMS, filters=f, k=5)}  # fmt: skip
            for name, (q, params) in queries.items():
                plans[name, formal] = "\n".join(r[0] for r in conn.execute(b"EXPLAIN " + q.as_bytes(conn), params))
    for (name, formal), plan in plans.items():
        assert f"Seq Scan on {n.documents}" not in plan, f"{name}, formal={formal}:\n{plan}"
        if not formal:
            assert f"Index Only Scan using {table_sql.formal_index_name(n)}" in plan, f"{name}, informal:\n{plan}"
    for formal in (True, False):
        plan = plans["name", formal]
        assert len(re.findall(rf"Index Scan (?:on|using) {table_sql.reversed_name_index_name(n)}\b", plan)) == 4, plan
        assert f"Seq Scan on {n.theorems} " not in plan, plan
    assert [tid for tid, _ in store.names_ending(["compact_5_image"], k=50)] == sorted(
        (f"t{i}" for i in range(3000) if i % 97 == 5), key=lambda t: (len(t), t))


def test_the_name_lookup_is_part_of_what_retrieval_reads_from_the_store(retriever):
    """A store that answers only the ``Store`` protocol (and the optional methods) serves a name query."""
    import inspect

    from theorem_rag.retrieval.store_protocol import Store

    declared = {name for name, value in vars(Store).items() if inspect.isfunction(value)}

    class ProtocolOnly:
        def __getattr__(self, name: str) -> object:
            if name not in declared | {"dense_walk", "premise_head", "is_pinned"}:
                raise AttributeError(f"{name} is not in the Store protocol")
            return getattr(retriever.store, name)

    only = TheoremRetriever(ProtocolOnly(), make_embedding(), space="toy", k=5, pool=20)
    assert [h.theorem_id for h in only.search("two_le")] == _ids(retriever, "two_le")
