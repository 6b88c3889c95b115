"""Maintained text table, counts and lexicon (theorem_rag.db.counters): exact after every kind of write and after each
migration that moves them (what no write, poll or search may read instead: tests/db/test_bounded_work.py)."""

from dataclasses import replace

import numpy as np
import psycopg
import pytest

from theorem_rag.db.schema import migrate
from theorem_rag.db.store import TheoremStore
from theorem_rag.records import Document, Theorem

from db_helpers import (REFERENCE_LONG_QUERY, THEOREMS, check_counters, load, long_statements, maintained_counts, plan_rows,
                        recomputed_counts, text_rows_kept_and_fresh, theorem_vectors)  # fmt: skip

pytestmark = pytest.mark.db






def test_lexicon_and_counts_follow_every_write(store):
    load(store)
    check_counters(store)
    assert store.stats("toy") == {"theorems": 6, "documents": 3, "sources": {"arxiv": 2, "napkin": 2, "stacks": 2},
                                  "spaces": ["toy"], "space": "toy", "vectors": 6, "missing_vectors": 0,
                                  "index_built": True}  # fmt: skip
    # An update that changes the text (and the source), one that changes nothing, a new statement.
    changed = replace(THEOREMS[2], body_latex="Every group of prime order is abelian.", source="moved")
    new = Theorem(id="x:1", source="x", kind="lemma", doc_id="x:doc", body_latex="Zorn's lemma holds.")
    store.upsert_theorems([changed, THEOREMS[0], new], slogans={"x:1": "Chains have upper bounds."})
    check_counters(store)
    assert store.count() == 7 and store.count("moved") == 1 and store.count("x") == 1 and store.count("nope") == 0
    assert store.stats("toy")["missing_vectors"] == 1
    store.set_slogans({"stacks:00DV": "Nakayama: a finite module killed by one plus the ideal."})
    store.upsert_documents([Document(id="x:doc", source="x", title="X")])
    check_counters(store)
    store.write_vectors("toy", ["x:1"], theorem_vectors()[:1])
    store.write_vectors("toy", ["x:1"], theorem_vectors()[1:2])  # an upsert of a vector counts once
    check_counters(store)
    # The new slogan of stacks:00DV dropped its slogan vector: 7 statements, 6 vectors.
    assert store.count_vectors("toy") == 6 and store.stats("toy")["missing_vectors"] == 1
    store.delete_theorems(["stacks:00DV"])
    assert "nakayama" not in maintained_counts(store)[0]  # a lexeme whose last statement went is gone
    check_counters(store)
    store.delete_document("napkin:ch1")
    store.delete_source("x")
    check_counters(store)
    assert store.stats("toy")["sources"] == {"moved": 1, "stacks": 1, "arxiv": 1}
    assert store.count_vectors("toy") == 3
    with store.connection() as conn:  # a TRUNCATE (by hand) empties them too
        conn.execute(f"TRUNCATE {store.names.theorems} CASCADE")
    check_counters(store)
    assert maintained_counts(store) == ({}, {"documents": 2}) and text_rows_kept_and_fresh(store) == ([], [])


def test_the_text_table_follows_each_change_of_what_it_covers(store):
    """Name, slogan, synonyms and statement are in the full-text vector; a change to a column it does not cover
    leaves the text row as it was (no rewrite, no lexicon work)."""
    load(store)
    n = store.names
    pm = Theorem(id="pm:1", source="planetmath", kind="definition", doc_id="pm:doc", name="Quasigroup",
                 body_latex="A set with a binary operation.", meta={"synonyms": ["Latin square operation"]})
    store.upsert_theorems([pm])
    check_counters(store)
    assert [h.theorem_id for h in store.search_text("latin square operation", k=3)][:1] == ["pm:1"]
    with store.connection() as conn:
        before = conn.execute(f"SELECT xmin::text FROM {n.text} WHERE id = 'pm:1'").fetchone()[0]
        conn.execute(f"UPDATE {n.theorems} SET proof = 'Trivial.', url = 'u' WHERE id = 'pm:1'")
        assert conn.execute(f"SELECT xmin::text FROM {n.text} WHERE id = 'pm:1'").fetchone()[0] == before
    store.upsert_theorems([replace(pm, meta={"synonyms": ["loop without identity"]}, name="Quasi-group")])
    check_counters(store)
    assert store.search_text("latin square operation", k=3) == []
    assert [h.theorem_id for h in store.search_text("Quasi-group", k=1)] == ["pm:1"]


def test_the_wide_table_has_no_full_text_vector_and_search_reads_the_narrow_one(store):
    """Migration 14: the vector is computed once, into the text table; the statements table no longer stores it."""
    load(store)
    n = store.names
    with store.connection() as conn:
        columns = {r[0] for r in conn.execute("SELECT column_name FROM information_schema.columns WHERE table_name = %s",
                                              [n.theorems])}  # fmt: skip
    assert "tsv" not in columns and "body_latex" in columns
    read = plan_rows(store, *_long_text_query(store, "finite module over a local ring Nakayama"), n.theorems)
    assert read == 0


def _long_text_query(store, query):
    from theorem_rag.filters import Filters

    with store.connection() as conn:
        return store._text_query(conn, query, Filters(), 10)


def test_recount_repairs_counts(store):
    load(store)
    n = store.names
    with store.connection() as conn:
        conn.execute(f"DELETE FROM {n.lexicon}")
        conn.execute(f"UPDATE {n.counts} SET n = 99")
        # Statements edited with the triggers off: the text table no longer follows them.
        conn.execute(f"ALTER TABLE {n.theorems} DISABLE TRIGGER USER")
        conn.execute(f"UPDATE {n.theorems} SET name = 'Renamed' WHERE id = 'stacks:00DV'")
        conn.execute(f"ALTER TABLE {n.theorems} ENABLE TRIGGER USER")
        conn.execute(f"DELETE FROM {n.text} WHERE id = 'napkin:yoneda'")
    assert text_rows_kept_and_fresh(store)[0] != text_rows_kept_and_fresh(store)[1]
    counts = store.recount()
    assert counts["theorems"] == 6 and counts["vectors:toy"] == 6
    check_counters(store)


def test_migration_14_moves_the_full_text_vectors_of_an_index_into_the_text_table(pg_dsn, table_prefix):
    """An index written at schema 13 (the vector a generated column of the statements table) is searched the same
    way after migration 14, and every later write keeps the text table and the lexicon exact."""
    from theorem_rag.db import counters
    from theorem_rag.db.table_names import Names

    n = Names(table_prefix)
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        migrate(conn, table_prefix, target=13)
        # Schema 13's statement triggers (this theorem-rag's migration 4 writes 14's): the lexicon from the
        # generated column, the counts, no text table.
        for fn, plus, minus in [("stats_ins", True, False), ("stats_upd", True, True), ("stats_del", False, True)]:
            body = psycopg.sql.SQL(" ").join([counters._lexeme_delta(n, plus, minus), counters._key_delta(n, plus, minus)])
            conn.execute(counters._function(counters._fn(n, fn), body))
        # What a schema 13 store wrote (its triggers kept the lexicon from the generated column).
        conn.execute(f"INSERT INTO {n.theorems} (id, source, kind, doc_id, body_latex, content_hash, name, meta) VALUES "
                     "('a:1', 'a', 'lemma', 'd', 'Every cyclic group is abelian.', 'h1', 'Cyclic lemma', '{}'), "
                     """('b:1', 'b', 'definition', 'd', 'A loop.', 'h2', 'Quasigroup', '{"synonyms": ["Latin square"]}')""")  # fmt: skip
        old_lexicon = dict(conn.execute(f"SELECT lexeme, ndoc FROM {n.lexicon}").fetchall())
        old_tsv = dict(conn.execute(f"SELECT id, tsv::text FROM {n.theorems}").fetchall())
        assert old_lexicon["cyclic"] == 1 and migrate(conn, table_prefix, target=14) == [14]
        assert dict(conn.execute(f"SELECT id, tsv::text FROM {n.text}").fetchall()) == old_tsv
        assert dict(conn.execute(f"SELECT lexeme, ndoc FROM {n.lexicon}").fetchall()) == old_lexicon
    with TheoremStore(pg_dsn, table=table_prefix) as store:
        check_counters(store)
        assert [h.theorem_id for h in store.search_text("Latin square", k=2)] == ["b:1"]
        assert store.definitions_named("latin squares") == ["b:1"]  # by the alias index of migration 15
        store.upsert_theorems([Theorem(id="c:1", source="c", kind="lemma", doc_id="d", body_latex="Cyclic again.")])
        store.delete_theorems(["a:1"])
        check_counters(store)


def test_migration_seeds_counts_of_an_older_index(pg_dsn, table_prefix):
    """An index written by schema 3 (no triggers, a space table already there) is counted by migration 4."""
    from theorem_rag.db import dense_sql
    from theorem_rag.db.table_names import Names

    n = Names(table_prefix)
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        migrate(conn, table_prefix, target=3)
        conn.execute(f"INSERT INTO {n.theorems} (id, source, kind, doc_id, body_latex, content_hash) VALUES "
                     "('a:1', 'a', 'lemma', 'd', 'Cyclic groups.', 'h1'), ('b:1', 'b', 'lemma', 'd', 'Abelian groups.', 'h2')")  # fmt: skip
        conn.execute(f"INSERT INTO {n.spaces} (name, dim, half) VALUES ('old', 2, false)")
        conn.execute(dense_sql.create_space_table(n, "old", 2, False))
        conn.execute(f"INSERT INTO {n.vectors('old')} (theorem_id, content_hash, source, kind, doc_id, embedding) "
                     "VALUES ('a:1', 'h1', 'a', 'lemma', 'd', '[1,0]')")  # fmt: skip
        assert migrate(conn, table_prefix, target=4) == [4]
    with TheoremStore(pg_dsn, table=table_prefix) as store:
        check_counters(store)
        assert store.stats("old")["missing_vectors"] == 1
        store.write_vectors("old", ["b:1"], np.array([[0, 1]], dtype=np.float32))
        assert store.count_vectors("old") == 2
        check_counters(store)


def test_migration_16_moves_vectors_stored_out_of_line_into_the_row(pg_dsn, table_prefix):
    """An index written at schema 15 has its longer vectors out of line; migration 16 writes them into the row,
    leaves the vectors and the lexicon as they were, and the search ranks like the reference."""
    from theorem_rag.db.table_names import Names

    n = Names(table_prefix)
    where = f"SELECT id, tsv::text, pg_column_toast_chunk_id(tsv) IS NOT NULL FROM {n.text} ORDER BY id"
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        if conn.info.server_version < 170000:
            pytest.skip("pg_column_toast_chunk_id needs PostgreSQL 17")
        migrate(conn, table_prefix, target=15)
        # What a schema 15 store wrote: its statement triggers fill the text table and the lexicon.
        for t in long_statements("mid", [300, 400] * 3) + [replace(t, id=f"s:short{i}") for i, t in enumerate(THEOREMS)]:
            conn.execute(f"INSERT INTO {n.theorems} (id, source, kind, doc_id, body_latex, content_hash, name) "
                         "VALUES (%s, %s, %s, %s, %s, %s, %s)", [t.id, t.source, t.kind, t.doc_id, t.body_latex, t.id, t.name])  # fmt: skip
        before = conn.execute(where).fetchall()
        lexicon = dict(conn.execute(f"SELECT lexeme, ndoc FROM {n.lexicon}").fetchall())
        assert [out for id_, _, out in before if id_.startswith("s:mid")] == [True] * 6  # PostgreSQL's default
        assert migrate(conn, table_prefix, target=16) == [16]
        after = conn.execute(where).fetchall()
        assert [(id_, tsv) for id_, tsv, _ in after] == [(id_, tsv) for id_, tsv, _ in before]
        assert not any(out for _, _, out in after)
        options = conn.execute("SELECT reloptions FROM pg_class WHERE relname = %s", [f"{n.text}_tsv"]).fetchone()[0]
        assert options == ["gin_pending_list_limit=256"]
        assert dict(conn.execute(f"SELECT lexeme, ndoc FROM {n.lexicon}").fetchall()) == lexicon
        query = "w010 w011 w012 w013 w014 w015"
        expected = [r[0] for r in conn.execute(REFERENCE_LONG_QUERY.format(t=n.text, lx=n.lexicon), {"q": query})][:6]
    with TheoremStore(pg_dsn, table=table_prefix) as store:
        assert maintained_counts(store)[0] == recomputed_counts(store)[0]
        assert [h.theorem_id for h in store.search_text(query, k=6)] == expected


def test_the_formula_keys_counts_follow_every_write_and_migration_25_counts_an_existing_index(pg_dsn, table_prefix):
    """What the formula ranking weighs its keys by: per key, the statements that have it, kept by triggers through
    inserts, updates that change a statement's formulas or keep them, deletes and a TRUNCATE; an index written
    before migration 25 gets them counted once, and the formula ranking reads them."""
    from db_helpers import formula_counts

    from theorem_rag.db.table_names import Names

    n = Names(table_prefix)
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        migrate(conn, table_prefix, target=24)
        # What a schema 24 store wrote: statements with their formula keys, no counts of them.
        for i in range(4):
            latex = f"For all $x$ we have $x^{i} + y = y + x^{i}$."
            conn.execute(f"INSERT INTO {n.theorems} (id, source, kind, doc_id, body_latex, content_hash, formula_keys) "
                         "VALUES (%s, 'a', 'lemma', 'd', %s, %s, %s)", [f"a:{i}", latex, str(i), formula_keys_of(latex)])  # fmt: skip
        assert conn.execute("SELECT to_regclass(%s)", [n.formula_df]).fetchone()[0] is None
        assert migrate(conn, table_prefix, target=25) == [25]
    with TheoremStore(pg_dsn, table=table_prefix) as store:
        kept, fresh = formula_counts(store)
        assert kept == fresh and max(kept.values()) == 4  # the keys every statement shares, each counted once
        store.upsert_theorems([Theorem(id="a:0", source="a", kind="lemma", doc_id="d", body_latex="Now $a \\otimes b$."),
                               Theorem(id="a:1", source="a", kind="lemma", doc_id="d", name="Renamed",
                                       body_latex="For all $x$ we have $x^1 + y = y + x^1$.")])  # fmt: skip
        check_counters(store)
        store.delete_theorems(["a:2"])
        check_counters(store)
        assert [h.theorem_id for h in store.search_formula(formula_keys_of("$a \\otimes b$"), k=2)][:1] == ["a:0"]
        with store.connection() as conn:
            conn.execute(f"TRUNCATE {n.theorems} CASCADE")
        assert formula_counts(store) == ({}, {})


def formula_keys_of(latex):
    from theorem_rag.formula_keys import formula_keys

    return formula_keys(latex)
