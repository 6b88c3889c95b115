"""Maintained text table, counts and lexicon (theorem_rag.db.counters): exact after every kind of write, and nothing
that writes, polls or searches reads the whole table (counted by PostgreSQL's own statistics, never timed)."""

from dataclasses import replace

import numpy as np
import psycopg
import pytest

from theorem_rag.db.schema import migrate
from theorem_rag.db.store import TheoremStore
from theorem_rag.records import Document, Theorem

from db_helpers import DIM, DOCS, SLOGANS, THEOREMS, load, plan_nodes, theorem_vectors

pytestmark = pytest.mark.db

N_SYNTHETIC = 3000
WORDS = [f"w{i:03d}" for i in range(400)]


def _truth(store) -> tuple[dict, dict]:
    """The lexicon and counts recomputed from the tables (what the triggers must agree with)."""
    n = store.names
    with store.connection() as conn:
        lexicon = dict(conn.execute(f"SELECT word, ndoc FROM ts_stat('SELECT tsv FROM {n.text}')").fetchall())
        counts = {f"source:{s}": c for s, c in conn.execute(f"SELECT source, count(*) FROM {n.theorems} GROUP BY 1")}
        counts["theorems"] = conn.execute(f"SELECT count(*) FROM {n.theorems}").fetchone()[0]
        counts["documents"] = conn.execute(f"SELECT count(*) FROM {n.documents}").fetchone()[0]
        for (space,) in conn.execute(f"SELECT name FROM {n.spaces}").fetchall():
            counts[f"vectors:{space}"] = conn.execute(f"SELECT count(*) FROM {n.vectors(space)}").fetchone()[0]
    return lexicon, {k: v for k, v in counts.items() if v}


def _maintained(store) -> tuple[dict, dict]:
    n = store.names
    with store.connection() as conn:
        lexicon = dict(conn.execute(f"SELECT lexeme, ndoc FROM {n.lexicon}").fetchall())
        counts = dict(conn.execute(f"SELECT key, n FROM {n.counts}").fetchall())
    return lexicon, counts


def _text_rows(store) -> tuple[list, list]:
    """The text table's rows, and what they must be: computed afresh from the statements table."""
    from theorem_rag.db import counters

    n = store.names
    with store.connection() as conn:
        kept = conn.execute(f"SELECT * FROM {n.text} ORDER BY id").fetchall()
        fresh = conn.execute(counters.text_rows(n.theorems) + psycopg.sql.SQL(" ORDER BY id")).fetchall()
    return kept, fresh


def _check(store) -> None:
    lexicon, counts = _maintained(store)
    true_lexicon, true_counts = _truth(store)
    assert lexicon == true_lexicon
    assert counts == true_counts
    kept, fresh = _text_rows(store)
    assert kept == fresh


def test_lexicon_and_counts_follow_every_write(store):
    load(store)
    _check(store)
    assert store.stats("toy") == {"theorems": 6, "documents": 3, "sources": {"arxiv": 2, "napkin": 2, "stacks": 2},
                                  "spaces": ["toy"], "space": "toy", "vectors": 6, "missing_vectors": 0,
                                  "index_built": True}  # fmt: skip
    # An update that changes the text (and the source), one that changes nothing, a new statement.
    changed = replace(THEOREMS[2], body_latex="Every group of prime order is abelian.", source="moved")
    new = Theorem(id="x:1", source="x", kind="lemma", doc_id="x:doc", body_latex="Zorn's lemma holds.")
    store.upsert_theorems([changed, THEOREMS[0], new], slogans={"x:1": "Chains have upper bounds."})
    _check(store)
    assert store.count() == 7 and store.count("moved") == 1 and store.count("x") == 1 and store.count("nope") == 0
    assert store.stats("toy")["missing_vectors"] == 1
    store.set_slogans({"stacks:00DV": "Nakayama: a finite module killed by one plus the ideal."})
    store.upsert_documents([Document(id="x:doc", source="x", title="X")])
    _check(store)
    store.write_vectors("toy", ["x:1"], theorem_vectors()[:1])
    store.write_vectors("toy", ["x:1"], theorem_vectors()[1:2])  # an upsert of a vector counts once
    _check(store)
    # The new slogan of stacks:00DV dropped its slogan vector: 7 statements, 6 vectors.
    assert store.count_vectors("toy") == 6 and store.stats("toy")["missing_vectors"] == 1
    store.delete_theorems(["stacks:00DV"])
    assert "nakayama" not in _maintained(store)[0]  # a lexeme whose last statement went is gone
    _check(store)
    store.delete_document("napkin:ch1")
    store.delete_source("x")
    _check(store)
    assert store.stats("toy")["sources"] == {"moved": 1, "stacks": 1, "arxiv": 1}
    assert store.count_vectors("toy") == 3
    with store.connection() as conn:  # a TRUNCATE (by hand) empties them too
        conn.execute(f"TRUNCATE {store.names.theorems} CASCADE")
    _check(store)
    assert _maintained(store) == ({}, {"documents": 2}) and _text_rows(store) == ([], [])


def test_the_text_table_follows_each_change_of_what_it_covers(store):
    """Name, slogan, synonyms and statement are in the full-text vector; a change to a column it does not cover
    leaves the text row as it was (no rewrite, no lexicon work)."""
    load(store)
    n = store.names
    pm = Theorem(id="pm:1", source="planetmath", kind="definition", doc_id="pm:doc", name="Quasigroup",
                 body_latex="A set with a binary operation.", meta={"synonyms": ["Latin square operation"]})
    store.upsert_theorems([pm])
    _check(store)
    assert [h.theorem_id for h in store.search_text("latin square operation", k=3)][:1] == ["pm:1"]
    with store.connection() as conn:
        before = conn.execute(f"SELECT xmin::text FROM {n.text} WHERE id = 'pm:1'").fetchone()[0]
        conn.execute(f"UPDATE {n.theorems} SET proof = 'Trivial.', url = 'u' WHERE id = 'pm:1'")
        assert conn.execute(f"SELECT xmin::text FROM {n.text} WHERE id = 'pm:1'").fetchone()[0] == before
    store.upsert_theorems([replace(pm, meta={"synonyms": ["loop without identity"]}, name="Quasi-group")])
    _check(store)
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
    read = _plan_rows(store, *_long_text_query(store, "finite module over a local ring Nakayama"), n.theorems)
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
    assert _text_rows(store)[0] != _text_rows(store)[1]
    counts = store.recount()
    assert counts["theorems"] == 6 and counts["vectors:toy"] == 6
    _check(store)


def test_migration_14_moves_the_full_text_vectors_of_an_index_into_the_text_table(pg_dsn, table_prefix):
    """An index written at schema 13 (the vector a generated column of the statements table) is searched the same
    way after migration 14, and every later write keeps the text table and the lexicon exact."""
    from theorem_rag.db import counters
    from theorem_rag.db.names import Names

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
        _check(store)
        assert [h.theorem_id for h in store.search_text("Latin square", k=2)] == ["b:1"]
        assert store.definitions_named("latin squares") == ["b:1"]  # by the alias index of migration 15
        store.upsert_theorems([Theorem(id="c:1", source="c", kind="lemma", doc_id="d", body_latex="Cyclic again.")])
        store.delete_theorems(["a:1"])
        _check(store)


def test_migration_seeds_counts_of_an_older_index(pg_dsn, table_prefix):
    """An index written by schema 3 (no triggers, a space table already there) is counted by migration 4."""
    from theorem_rag.db import sqltext
    from theorem_rag.db.names import Names

    n = Names(table_prefix)
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        migrate(conn, table_prefix, target=3)
        conn.execute(f"INSERT INTO {n.theorems} (id, source, kind, doc_id, body_latex, content_hash) VALUES "
                     "('a:1', 'a', 'lemma', 'd', 'Cyclic groups.', 'h1'), ('b:1', 'b', 'lemma', 'd', 'Abelian groups.', 'h2')")  # fmt: skip
        conn.execute(f"INSERT INTO {n.spaces} (name, dim, half) VALUES ('old', 2, false)")
        conn.execute(sqltext.create_space_table(n, "old", 2, False))
        conn.execute(f"INSERT INTO {n.vectors('old')} (theorem_id, content_hash, source, kind, doc_id, embedding) "
                     "VALUES ('a:1', 'h1', 'a', 'lemma', 'd', '[1,0]')")  # fmt: skip
        assert migrate(conn, table_prefix, target=4) == [4]
    with TheoremStore(pg_dsn, table=table_prefix) as store:
        _check(store)
        assert store.stats("old")["missing_vectors"] == 1
        store.write_vectors("old", ["b:1"], np.array([[0, 1]], dtype=np.float32))
        assert store.count_vectors("old") == 2
        _check(store)


# -- nothing O(N) per write, poll or query ----------------------------------------------------------------------


def _synthetic(n: int) -> list[Theorem]:
    rng = np.random.default_rng(3)
    return [
        Theorem(id=f"s:{i:05d}", source=("a", "b", "c")[i % 3], kind="lemma", doc_id=f"doc{i % 40}",
                name=f"Lemma {i}", body_latex=" ".join(rng.choice(WORDS, size=30)) + f" r{i % 1000:04d}")
        for i in range(n)
    ]  # fmt: skip


@pytest.fixture
def big_store(pg_dsn, table_prefix):
    """A store over a few thousand synthetic statements with vectors; one pooled connection, so the statistics
    it leaves are those of one backend, flushed on demand."""
    s = TheoremStore(pg_dsn, table=table_prefix, pool_size=1)
    theorems = _synthetic(N_SYNTHETIC)
    s.upsert_documents([Document(id=f"doc{j}", source="a") for j in range(40)])
    s.upsert_theorems(theorems)
    # MiniLM's width: the vector table has the size (pages per row) that makes the planner's choices realistic.
    s.vector_space("v", 384)
    rng = np.random.default_rng(4)
    s.write_vectors("v", [t.id for t in theorems], rng.normal(size=(N_SYNTHETIC, 384)).astype(np.float32))
    with s.connection() as conn:
        conn.execute(f"ANALYZE {s.names.theorems}")
        conn.execute(f"ANALYZE {s.names.vectors('v')}")
    yield s
    s.close()


def _rows_read(store, tables: list[str]) -> int:
    """Rows PostgreSQL read from ``tables`` (sequential scans plus index fetches) up to now."""
    with store.connection() as conn:
        conn.execute("SELECT pg_stat_force_next_flush()")  # this backend's counters are flushed when it idles
    with psycopg.connect(store.dsn, autocommit=True) as conn:
        conn.execute("SELECT pg_stat_clear_snapshot()")
        row = conn.execute(
            "SELECT coalesce(sum(coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0)), 0) "
            "FROM pg_stat_user_tables WHERE relname = ANY(%s)",
            [tables],
        ).fetchone()
    return int(row[0])


def test_writes_read_only_the_rows_they_write(big_store):
    s = big_store
    tables = [s.names.theorems, s.names.vectors("v")]
    extra = [Theorem(id=f"e:{i}", source="e", kind="lemma", doc_id="doc1", body_latex=f"w001 w002 extra{i}") for i in range(5)]
    steps = {
        "insert": lambda: s.upsert_theorems(extra),
        "update": lambda: s.upsert_theorems([replace(t, body_latex="w003 changed") for t in extra]),
        "slogans": lambda: s.set_slogans({t.id: "A new slogan." for t in extra}),
        "delete": lambda: s.delete_theorems([t.id for t in extra[:2]]),
        "documents": lambda: s.upsert_documents([Document(id="doc1", source="a", year=2001)]),
        "delete_document": lambda: s.delete_document("doc39"),
        "count": lambda: s.count(),
        "count_vectors": lambda: s.count_vectors("v"),
    }
    for name, step in steps.items():
        before = _rows_read(s, tables)
        step()
        read = _rows_read(s, tables) - before
        # doc1 and doc39 hold 75 statements each: a new year or a deletion reads those (and their vectors).
        assert read <= (160 if name in ("documents", "delete_document") else 20), (name, read)
    _check(s)


def test_stats_for_health_read_no_statement_or_vector(big_store):
    s = big_store
    tables = [s.names.theorems, s.names.vectors("v")]
    before = _rows_read(s, tables)
    stats = s.stats("v")
    assert _rows_read(s, tables) - before == 0
    assert (stats["theorems"], stats["vectors"], stats["missing_vectors"]) == (N_SYNTHETIC, N_SYNTHETIC, 0)
    assert stats["sources"] == {"a": 1000, "b": 1000, "c": 1000}


def _plan_rows(store, query, params, relation: str) -> int:
    """Rows the executed plan read from ``relation``: actual rows times loops of every scan node on it."""
    import json

    with store.connection() as conn:
        text = query.as_string(conn)
        plan = conn.execute(psycopg.sql.SQL("EXPLAIN (ANALYZE, FORMAT JSON) ") + psycopg.sql.SQL(text), params).fetchone()[0]
    plan = plan if isinstance(plan, list) else json.loads(plan)

    return int(sum(n["Actual Rows"] * n["Actual Loops"] for n in plan_nodes(plan) if n.get("Relation Name") == relation))


@pytest.mark.parametrize(("query", "tsquery", "matches"), [
    ("w001 w002", "w001 & w002", 18), ("r0007 r0008 alpha beta gamma delta epsilon", "r0007 | r0008", 6)])
def test_full_text_queries_do_not_count_the_table(big_store, query, tsquery, matches):
    from theorem_rag.filters import Filters

    s = big_store
    with s.connection() as conn:
        q, params = s._text_query(conn, query, Filters(), 20)
    read = _plan_rows(s, q, params, s.names.text)
    with s.connection() as conn:
        sql_matches = conn.execute(f"SELECT count(*) FROM {s.names.text} WHERE tsv @@ to_tsquery('simple', %s)",
                                   [tsquery]).fetchone()[0]  # fmt: skip
    assert sql_matches == matches and len(s.search_text(query, k=100)) == min(100, matches)
    # Only matching statements are read; a count(*) would read all 3,000.
    assert read <= 20, read


def test_a_long_query_reads_at_most_its_candidate_budget(big_store):
    """Candidates come from the rarest terms whose frequencies fit the budget; the others only score them."""
    from theorem_rag.db import text_sql
    from theorem_rag.filters import Filters

    s = big_store
    query = "w010 w011 w012 w013 w014 w015"  # six common words, about 7% of the statements each
    terms = _terms(s, query)
    assert len(terms) == 6 and all(150 < t.ndoc < 300 for t in terms)
    unbounded = _plan_rows(s, *text_sql.text_search(s.names, query, Filters(), 20, terms=terms), s.names.text)
    bounded_q = text_sql.text_search(s.names, query, Filters(), 20, terms=terms, budget=terms[0].ndoc)
    bounded = _plan_rows(s, *bounded_q, s.names.text)
    # The candidates, then (by key) those ranked by ts_rank_cd, never more than the candidates.
    assert unbounded > 900 and terms[0].ndoc <= bounded <= 2 * terms[0].ndoc
    with s.connection() as conn:
        rows = conn.execute(*bounded_q).fetchall()
    # Every candidate holds the rarest word; the best of them hold more of the others too.
    assert len(rows) == 20 and rows[0][2] > rows[-1][2]


def _terms(s, query):
    from theorem_rag.db import text_sql

    with s.connection() as conn:
        return [text_sql.QueryTerm(lx, int(n), idf, int(total))
                for lx, n, idf, total in conn.execute(*text_sql.query_terms(s.names, query))]  # fmt: skip


def test_when_the_rarest_term_passes_the_budget_candidates_need_two_terms(big_store):
    """At a million statements even a query's rarest word can be in tens of thousands: then only statements with
    two of the rarest words are read (the GIN index intersects them), not every statement with the rarest one."""
    from theorem_rag.db import text_sql
    from theorem_rag.filters import Filters

    s = big_store
    query = "w010 w011 w012 w013 w014 w015"
    terms = _terms(s, query)
    budget = terms[0].ndoc - 1  # the rarest word alone is over it
    cand = text_sql.candidate_tsquery(terms, budget)
    assert "&" in cand and "|" in cand  # pairs of the rarest words, any pair
    with s.connection() as conn:
        matching = conn.execute(f"SELECT count(*) FROM {s.names.text} WHERE tsv @@ to_tsquery('simple', %s)",
                                [cand]).fetchone()[0]  # fmt: skip
        rows = conn.execute(*text_sql.text_search(s.names, query, Filters(), 20, terms=terms, budget=budget)).fetchall()
    read = _plan_rows(s, *text_sql.text_search(s.names, query, Filters(), 20, terms=terms, budget=budget), s.names.text)
    assert 20 <= matching < terms[0].ndoc and read <= 2 * matching, (matching, read)
    # Each result holds two of the query's words at least: its IDF share is above any one word's.
    top_single = max(t.idf for t in terms) / sum(t.idf for t in terms)
    assert len(rows) == 20 and all(float(score) > float(top_single) for _, _, score in rows)


REFERENCE_LONG_QUERY = """
WITH terms AS (
    SELECT l.lexeme, ln(1 + ((SELECT count(*) FROM {t}) - l.ndoc + 0.5) / (l.ndoc + 0.5)) AS idf, to_tsquery('simple', l.lexeme) AS q
    FROM (SELECT DISTINCT unnest(tsvector_to_array(to_tsvector('english', %(q)s))) AS lexeme) AS u JOIN {lx} AS l USING (lexeme)
    WHERE l.lexeme ~ '^[a-z0-9]+$' AND l.ndoc <= 0.2 * (SELECT count(*) FROM {t}) ORDER BY l.ndoc, l.lexeme LIMIT 8),
anyq AS (SELECT to_tsquery('simple', string_agg(lexeme, ' | ')) AS q FROM terms)
SELECT t.id FROM {t} AS t, anyq WHERE t.tsv @@ anyq.q
ORDER BY (SELECT coalesce(sum(idf), 0) FROM terms WHERE t.tsv @@ terms.q) / (SELECT sum(idf) FROM terms)
         + 0.1 * ts_rank_cd(t.tsv, anyq.q, 1) + CASE WHEN lower(t.name) = lower(%(q)s) THEN 10 ELSE 0 END DESC, t.id
LIMIT 30"""


@pytest.mark.parametrize("query", ["w010 w011 w012 w013 w014 w015", "r0007 w001 w002 w003 lemma 12", "Lemma 12 w005 w006"])
def test_bounded_long_query_ranks_like_the_full_formula(big_store, query):
    """Scoring every match by IDF share + 0.1 ts_rank_cd (the old query, written out here) gives the same top 30."""
    s = big_store
    with s.connection() as conn:
        expected = [r[0] for r in conn.execute(REFERENCE_LONG_QUERY.format(t=s.names.text, lx=s.names.lexicon), {"q": query})]
    assert len(expected) == 30
    assert [h.theorem_id for h in s.search_text(query, k=30)] == expected


def _long_statements(prefix: str, sizes: list[int], seed: int = 9) -> list[Theorem]:
    """Statements of ``sizes`` distinct rare words each (about 12 bytes of full-text vector per word), with three to
    five of the query words w010...w015 among them."""
    rng = np.random.default_rng(seed)
    return [
        Theorem(id=f"s:{prefix}{i}", source="a", kind="lemma", doc_id="doc1", name=f"Long lemma {prefix} {i}",
                body_latex=" ".join(f"x{j:05d}" for j in rng.choice(90_000, size=size, replace=False))
                + " " + " ".join(rng.choice(["w010", "w011", "w012", "w013", "w014", "w015"], size=3 + i % 3)))
        for i, size in enumerate(sizes)
    ]  # fmt: skip


def _out_of_line(store, pattern: str) -> list[tuple[str, int, bool]]:
    """(id, vector size, stored out of line) of the text rows whose id is like ``pattern`` (PostgreSQL 17's
    pg_column_toast_chunk_id says where a value is)."""
    with store.connection() as conn:
        if conn.info.server_version < 170000:
            pytest.skip("pg_column_toast_chunk_id needs PostgreSQL 17")
        return conn.execute(f"SELECT id, pg_column_size(tsv), pg_column_toast_chunk_id(tsv) IS NOT NULL FROM "
                            f"{store.names.text} WHERE id LIKE %s ORDER BY id", [pattern]).fetchall()  # fmt: skip


def test_long_statements_rank_like_the_full_formula_in_the_row_or_out_of_it(big_store):
    """A vector of up to about 8 kB stays in the text row (migration 16) and is matched where it lies; a longer one
    is stored out of line (TOAST) and matched from one copy per row: the ranking is the reference's either way."""
    from theorem_rag.db import text_sql

    s = big_store
    s.upsert_theorems(_long_statements("mid", [300, 400] * 6) + _long_statements("big", [900] * 6, seed=10))
    placed = _out_of_line(s, "s:%")
    mid = [(size, out) for id_, size, out in placed if id_.startswith("s:mid")]
    big = [(size, out) for id_, size, out in placed if id_.startswith("s:big")]
    # Without migration 16 the first would be out of line too (PostgreSQL moves values once a row passes ~2 kB).
    assert all(2000 < size <= text_sql.INLINE_TSV_BYTES and not out for size, out in mid), mid
    assert all(size > 8160 and out for size, out in big), big
    query = "w010 w011 w012 w013 w014 w015"
    with s.connection() as conn:
        expected = [r[0] for r in conn.execute(REFERENCE_LONG_QUERY.format(t=s.names.text, lx=s.names.lexicon), {"q": query})]
    assert len({x for x in expected if x.startswith("s:mid")}) >= 3 and len({x for x in expected if x.startswith("s:big")}) >= 2
    assert [h.theorem_id for h in s.search_text(query, k=30)] == expected


def test_migration_16_moves_vectors_stored_out_of_line_into_the_row(pg_dsn, table_prefix):
    """An index written at schema 15 has its longer vectors out of line; migration 16 writes them into the row,
    leaves the vectors and the lexicon as they were, and the search ranks like the reference."""
    from theorem_rag.db.names import Names

    n = Names(table_prefix)
    where = f"SELECT id, tsv::text, pg_column_toast_chunk_id(tsv) IS NOT NULL FROM {n.text} ORDER BY id"
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        if conn.info.server_version < 170000:
            pytest.skip("pg_column_toast_chunk_id needs PostgreSQL 17")
        migrate(conn, table_prefix, target=15)
        # What a schema 15 store wrote: its statement triggers fill the text table and the lexicon.
        for t in _long_statements("mid", [300, 400] * 3) + [replace(t, id=f"s:short{i}") for i, t in enumerate(THEOREMS)]:
            conn.execute(f"INSERT INTO {n.theorems} (id, source, kind, doc_id, body_latex, content_hash, name) "
                         "VALUES (%s, %s, %s, %s, %s, %s, %s)", [t.id, t.source, t.kind, t.doc_id, t.body_latex, t.id, t.name])  # fmt: skip
        before = conn.execute(where).fetchall()
        lexicon = dict(conn.execute(f"SELECT lexeme, ndoc FROM {n.lexicon}").fetchall())
        assert [out for id_, _, out in before if id_.startswith("s:mid")] == [True] * 6  # PostgreSQL's default
        assert migrate(conn, table_prefix) == [16]
        after = conn.execute(where).fetchall()
        assert [(id_, tsv) for id_, tsv, _ in after] == [(id_, tsv) for id_, tsv, _ in before]
        assert not any(out for _, _, out in after)
        options = conn.execute("SELECT reloptions FROM pg_class WHERE relname = %s", [f"{n.text}_tsv"]).fetchone()[0]
        assert options == ["gin_pending_list_limit=256"]
        assert dict(conn.execute(f"SELECT lexeme, ndoc FROM {n.lexicon}").fetchall()) == lexicon
        query = "w010 w011 w012 w013 w014 w015"
        expected = [r[0] for r in conn.execute(REFERENCE_LONG_QUERY.format(t=n.text, lx=n.lexicon), {"q": query})][:6]
    with TheoremStore(pg_dsn, table=table_prefix) as store:
        assert _maintained(store)[0] == _truth(store)[0]
        assert [h.theorem_id for h in store.search_text(query, k=6)] == expected


def test_a_common_keyword_ranks_a_capped_set_and_every_exact_name(big_store):
    from theorem_rag.db import text_sql
    from theorem_rag.filters import Filters

    s = big_store
    s.set_slogans({"s:00017": "A new slogan."})  # its new row version sits at the end of the table, past the cap
    q, params = text_sql._keyword_search(s.names, "Lemma 17", Filters(), 10, cap=20)
    read = _plan_rows(s, q, params, s.names.text)
    with s.connection() as conn:
        ids = [r[0] for r in conn.execute(q, params)]
        matches = conn.execute(f"SELECT count(*) FROM {s.names.text} WHERE tsv @@ to_tsquery('english', 'lemma:* & 17:*')").fetchone()[0]
    assert matches > 20 and read <= 21  # 20 ranked matches plus the exact-name look-up
    assert ids[0] == "s:00017" and len(ids) == 10


def test_a_premise_query_reads_one_document_and_the_citations_asked_for(big_store):
    """What the premise head reads per query: one document's outline (75 statements here), the proofs citing its
    candidates (through the GIN index on ``proof_refs``) and its stored row; never the whole table."""
    s = big_store
    citing = [replace(t, proof_refs=("s:00001",)) for t in _synthetic(10)[2:7]]
    s.upsert_theorems(citing)
    s.save_premise_head({"features": [], "weights": [], "bias": 0.0})
    tables = [s.names.theorems, s.names.vectors("v")]
    before = _rows_read(s, tables)
    outline = s.outline("doc3")
    after_outline = _rows_read(s, tables)
    cited = s.citations_of(["s:00001", "s:00002"])
    after_citations = _rows_read(s, tables)
    assert s.premise_head()["bias"] == 0.0
    assert len(outline) == 75 and after_outline - before <= 80
    assert sorted(cited) == sorted((t.id, "s:00001") for t in citing) and after_citations - after_outline <= 10
    assert _rows_read(s, tables) == after_citations


def test_an_unfiltered_dense_query_walks_the_index_even_on_a_small_table(big_store):
    """With ef_search 1,000 the planner's estimate for a half-precision HNSW index on a few thousand rows prefers a
    sequential scan computing every distance; an unfiltered query walks the index (it reads about the pool); a
    filtered one is left to the planner and still returns only admissible rows."""
    s = big_store
    assert s.space("v").index == "halfvec"
    s.build_index("v")
    vec_table = s.names.vectors("v")
    with s.connection() as conn:
        conn.execute(f"ANALYZE {vec_table}")
    q = np.random.default_rng(5).normal(size=384).astype(np.float32)
    before = _rows_read(s, [vec_table])
    hits = s.search_dense("v", q, k=20, pool=200, ef_search=1000)
    read = _rows_read(s, [vec_table]) - before
    assert len(hits) == 20 and read <= 2 * 200, read  # a sequential scan reads all 3,000
    assert [h.theorem_id for h in hits] == [h.theorem_id for h in s.exact_search("v", q, k=20)]
    only_a = s.search_dense("v", q, k=5, pool=200, ef_search=1000, filters={"source": "a"})
    assert len(only_a) == 5 and all(t.source == "a" for t in s.get_theorems([h.theorem_id for h in only_a]).values())


def test_the_default_walk_follows_the_size_of_the_space(big_store, monkeypatch):
    """Without an ef_search of its own a dense search on a halfvec index walks what the first step holding the
    space's maintained count of vectors says (200 up to 100,000, 400 up to 300,000) and 1,000 above the last; never
    less than the pool; an explicit one is kept."""
    from theorem_rag.db import vectors

    s = big_store
    s.build_index("v")
    assert s.space("v").index == "halfvec" and s.stats("v")["vectors"] == N_SYNTHETIC
    assert vectors.EF_SEARCH_STEPS["halfvec"] == ((100_000, 200), (300_000, 400))
    assert s.dense_ef_search("v") == 200
    assert s.dense_ef_search("v", pool=600) == 600
    assert s.dense_ef_search("v", ef_search=100) == 200 and s.dense_ef_search("v", ef_search=700) == 700
    n = N_SYNTHETIC
    for steps, walk in [(((n, 300),), 300), (((n - 1, 150), (n, 300)), 300), (((n, 250), (n + 1, 300)), 250),
                        (((n - 2, 250), (n - 1, 300)), 1000), (((n - 1, 300),), 1000)]:  # fmt: skip
        monkeypatch.setitem(vectors.EF_SEARCH_STEPS, "halfvec", steps)
        assert s.dense_ef_search("v") == walk, steps
        assert s.dense_ef_search("v", ef_search=350) == 350
    monkeypatch.delitem(vectors.EF_SEARCH_STEPS, "halfvec")
    assert s.dense_ef_search("v") == 1000
    # search_dense sets what dense_ef_search reports
    monkeypatch.setitem(vectors.EF_SEARCH_STEPS, "halfvec", ((N_SYNTHETIC, 300),))
    walked = []
    walk = vectors.SpaceOps._walk_settings
    monkeypatch.setattr(vectors.SpaceOps, "_walk_settings", lambda self, *a, **kw: walked.append(walk(self, *a, **kw)) or walked[-1])
    q = np.random.default_rng(6).normal(size=384).astype(np.float32)
    hits = s.search_dense("v", q, k=20, pool=200)
    s.search_dense("v", q, k=20, pool=200, ef_search=1000)
    assert walked == [300, 1000]
    # the graph's levels are random: the smaller walk is held to the exact top 20 within one statement
    assert len({h.theorem_id for h in hits} & {h.theorem_id for h in s.exact_search("v", q, k=20)}) >= 19
