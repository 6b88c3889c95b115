"""TheoremStore against the real embedded PostgreSQL: schema, upserts, deletions, slogan cache, bad input."""

from dataclasses import replace

import numpy as np
import psycopg
import pytest

from theorem_rag.db.schema import LATEST, MIGRATIONS, migrate, schema_version
from theorem_rag.db.store import TheoremStore, UpsertCounts
from theorem_rag.records import digest
from theorem_rag.slogans.cache import SloganRow

from db_helpers import DIM, DOCS, SLOGANS, THEOREMS, load, theorem_vectors

pytestmark = pytest.mark.db


def test_migrate_is_idempotent(pg_dsn, table_prefix):
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        assert schema_version(conn, table_prefix) == 0
        assert migrate(conn, table_prefix, target=1) == [1]
        conn.execute(f"INSERT INTO {table_prefix}_feedback (query, theorem_id, vote) VALUES ('q', 'x', 1)")
        assert migrate(conn, table_prefix) == [v for v, _, _ in MIGRATIONS if v > 1]  # upgrade keeps the row
        assert migrate(conn, table_prefix) == []
        assert schema_version(conn, table_prefix) == LATEST
        assert conn.execute(f"SELECT count(*) FROM {table_prefix}_feedback").fetchone()[0] == 1


def test_a_step_numbered_below_the_newest_applied_is_still_applied(pg_dsn, table_prefix):
    # Branches reserve migration numbers and land in any order: a database already at 8 must still get 6.
    from theorem_rag.db.table_names import Names

    n = Names(table_prefix)
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        migrate(conn, table_prefix)
        conn.execute(f"DELETE FROM {n.version} WHERE version = 6")
        conn.execute(f"ALTER TABLE {n.theorems} DROP COLUMN proof")
        assert migrate(conn, table_prefix) == [6]
        assert conn.execute("SELECT count(*) FROM information_schema.columns WHERE table_name = %s AND "
                            "column_name = 'proof'", [n.theorems]).fetchone()[0] == 1


def test_upsert_is_idempotent_and_detects_changes(store):
    assert store.upsert_theorems(THEOREMS) == UpsertCounts(inserted=6, updated=0, unchanged=0)
    assert store.upsert_theorems(THEOREMS) == UpsertCounts(inserted=0, updated=0, unchanged=6)
    store.vector_space("toy", DIM)
    assert store.ids_missing_vectors("toy") == sorted(t.id for t in THEOREMS)
    # The caller knows what each vector is computed from (here the body) and hands the store its hash.
    computed_from = {t.id: digest(t.body_latex) for t in THEOREMS}
    store.write_vectors("toy", list(computed_from), theorem_vectors(), hashes=list(computed_from.values()))
    assert store.ids_missing_vectors("toy") == [] and store.ids_missing_vectors("toy", computed_from) == []

    changed = replace(THEOREMS[2], body_latex="Every group of prime order is abelian.")
    moved = replace(THEOREMS[3], source="moved")  # same content, new source: vector kept, filter column follows
    counts = store.upsert_theorems([changed, moved, THEOREMS[0]])
    assert counts == UpsertCounts(inserted=0, updated=2, unchanged=1)
    now = {t.id: digest(t.body_latex) for t in (changed, moved, THEOREMS[0])}
    assert store.ids_missing_vectors("toy", now) == ["paper:1:thm1"]
    assert store.count_vectors("toy") == 6  # nothing is dropped until the caller writes the new vector
    assert store.get_theorems(["paper:1:thm1"])["paper:1:thm1"].body_latex.endswith("abelian.")
    hits = store.exact_search("toy", theorem_vectors()[3], k=6, filters={"source": "moved"})
    assert [h.theorem_id for h in hits] == ["paper:1:lem2"]


def test_duplicate_ids_and_unknown_vectors_write_nothing(store):
    with pytest.raises(ValueError, match="duplicate theorem id"):
        store.upsert_theorems([THEOREMS[0], THEOREMS[0]])
    assert store.count() == 0
    store.upsert_theorems(THEOREMS[:2])
    store.vector_space("toy", DIM)
    with pytest.raises(ValueError, match="unknown theorem ids: nope"):
        store.write_vectors("toy", [THEOREMS[0].id, "nope"], theorem_vectors()[:2])
    assert store.count_vectors("toy") == 0
    with pytest.raises(ValueError, match="dimension 8"):
        store.write_vectors("toy", [THEOREMS[0].id], np.ones((1, 3)))
    with pytest.raises(ValueError, match="zero vector"):
        store.write_vectors("toy", [THEOREMS[0].id], np.zeros((1, DIM)))
    with pytest.raises(ValueError, match="exists with dim=8"):
        store.vector_space("toy", 16)
    with pytest.raises(ValueError, match="unknown vector space 'other'"):
        store.search_dense("other", np.ones(DIM))


def test_slogans_invalidate_slogan_vectors_only(store):
    load(store)
    store.vector_space("toy_latex", DIM, field="latex")
    store.write_vectors("toy_latex", [t.id for t in THEOREMS], theorem_vectors())
    assert store.set_slogans({"stacks:00FN": SLOGANS["stacks:00FN"]}) == 0  # unchanged
    assert store.set_slogans({"stacks:00FN": "Rings whose ideals are finitely generated."}) == 1
    assert store.ids_missing_vectors("toy") == ["stacks:00FN"]
    assert store.ids_missing_vectors("toy_latex") == []
    with pytest.raises(ValueError, match="unknown theorem ids: ghost"):
        store.set_slogans({"stacks:00DV": "changed", "ghost": "x"})
    assert store.hydrate(store.search_text("Nakayama", k=1))[0].slogan == SLOGANS["stacks:00DV"]  # nothing half-way


def test_documents_and_delete_by_source(store):
    load(store)
    assert store.upsert_documents(DOCS) == UpsertCounts(0, 0, 3)
    assert store.upsert_documents([replace(DOCS[1], year=2013)]) == UpsertCounts(0, 1, 0)
    assert [h.theorem_id for h in store.exact_search("toy", theorem_vectors()[2], k=6, filters={"year": 2013})] == [
        "paper:1:thm1",
        "paper:1:lem2",
    ]
    assert store.get_document("paper:1").authors == ("A. Author",)
    assert store.delete_source("stacks") == 2
    assert store.count() == 4 and store.count_vectors("toy") == 4
    assert store.get_document("stacks:algebra") is None
    assert store.delete_source("stacks") == 0


def test_slogan_cache_resume_after_interruption(store):
    """Batches committed before a crash stay; a rerun pays only for what is missing."""
    statements = [f"hash{i}" for i in range(10)]
    paid: list[str] = []

    def run(fail_at=None):
        keys = {h: SloganRow(h, "litellm", "v1", "m", "x").key for h in statements}
        cached = store.cached_slogans(list(keys.values()))
        todo = [h for h in statements if keys[h] not in cached]
        for start in range(0, len(todo), 3):
            batch = []
            for h in todo[start : start + 3]:
                if h == fail_at:
                    raise KeyboardInterrupt
                paid.append(h)
                batch.append(SloganRow(h, "litellm", "v1", "m", f"slogan of {h}", 10, 5, 0.001))
            assert store.cache_slogans(batch) == len(batch)

    with pytest.raises(KeyboardInterrupt):
        run(fail_at="hash7")
    assert len(store.cached_slogans([SloganRow(h, "litellm", "v1", "m", "x").key for h in statements])) == 6
    run()
    assert sorted(paid) == sorted(statements + ["hash6"])  # hash6 was in the interrupted batch, never committed
    again = len(paid)
    run()
    assert len(paid) == again
    other_model = SloganRow("hash0", "litellm", "v1", "other", "x").key
    assert store.cached_slogans([other_model]) == {}
    assert store.cache_slogans([SloganRow("hash0", "litellm", "v1", "m", "different")]) == 0  # first write wins


def test_feedback(store):
    fid = store.record_feedback("nakayama", 1, theorem_id="stacks:00DV", comment="good")
    assert isinstance(fid, int)
    with pytest.raises(ValueError, match="vote"):
        store.record_feedback("q", 0, theorem_id="x")
    with pytest.raises(ValueError, match="theorem_id, an answer_id or an answer"):
        store.record_feedback("q", 1)
    assert store.record_feedback(query="q", vote=-1, answer="Some answer text.", comment=None) > fid


def test_stats_theorems_of_and_delete_theorems(store):
    load(store)
    stats = store.stats("toy")
    assert stats["sources"] == {"arxiv": 2, "napkin": 2, "stacks": 2} and stats["theorems"] == 6
    assert stats["index_built"] and stats["vectors"] == 6 and stats["missing_vectors"] == 0
    assert store.stats("absent")["index_built"] is False
    assert [t.id for t in store.theorems_of("paper:1")] == ["paper:1:lem2", "paper:1:thm1"]
    assert store.delete_theorems(["paper:1:lem2", "ghost"]) == 1
    assert store.count_vectors("toy") == 5


def test_sql_metacharacters_in_values_are_harmless(store):
    load(store)
    evil = "'; DROP TABLE " + store.names.theorems + "; --"
    assert store.search_text(evil, k=5, filters={"source": [evil], "kind": evil}) == []
    assert store.search_dense("toy", theorem_vectors()[0], k=3, filters={"doc_id": evil}) == []
    weird = replace(THEOREMS[0], id="x'); DELETE FROM t; --", name="O'Brien \\ %_", meta={"k": "'\""})
    assert store.upsert_theorems([weird]).inserted == 1
    assert store.get_theorems([weird.id])[weird.id] == weird
    assert store.count() == 7


def test_pool_timeout_setting_does_not_hide_bad_dsn():
    bad = TheoremStore("host=/nonexistent/socket dbname=x", timeout=1)
    from theorem_rag.db.connection import StoreUnavailable

    with pytest.raises(StoreUnavailable, match="database unavailable .*host=/nonexistent/socket"):
        bad.count()
