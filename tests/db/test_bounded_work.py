"""Nothing O(N) per write, poll or query: over a few thousand synthetic statements, the rows each write, the health
statistics and each kind of search read are counted by PostgreSQL's own statistics (pg_stat_user_tables) or by the
executed plan (EXPLAIN ANALYZE), never timed; long full-text queries also rank like the unbounded formula."""

from dataclasses import replace

import numpy as np
import psycopg
import pytest

from theorem_rag.db.store import TheoremStore
from theorem_rag.records import Document, Theorem

from db_helpers import REFERENCE_LONG_QUERY, check_counters, long_statements, plan_nodes, plan_rows, rows_read

pytestmark = pytest.mark.db

N_SYNTHETIC = 3000
WORDS = [f"w{i:03d}" for i in range(400)]


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
        before = rows_read(s, tables)
        step()
        read = rows_read(s, tables) - before
        # doc1 and doc39 hold 75 statements each: a new year or a deletion reads those (and their vectors).
        assert read <= (160 if name in ("documents", "delete_document") else 20), (name, read)
    check_counters(s)


def test_stats_for_health_read_no_statement_or_vector(big_store):
    s = big_store
    tables = [s.names.theorems, s.names.vectors("v")]
    before = rows_read(s, tables)
    stats = s.stats("v")
    assert rows_read(s, tables) - before == 0
    assert (stats["theorems"], stats["vectors"], stats["missing_vectors"]) == (N_SYNTHETIC, N_SYNTHETIC, 0)
    assert stats["sources"] == {"a": 1000, "b": 1000, "c": 1000}



@pytest.mark.parametrize(("query", "tsquery", "matches"), [
    ("w001 w002", "w001 & w002", 18), ("r0007 r0008 alpha beta gamma delta epsilon", "r0007 | r0008", 6)])
def test_full_text_queries_do_not_count_the_table(big_store, query, tsquery, matches):
    from theorem_rag.filters import Filters

    s = big_store
    with s.connection() as conn:
        q, params = s._text_query(conn, query, Filters(), 20)
    read = plan_rows(s, q, params, s.names.text)
    with s.connection() as conn:
        sql_matches = conn.execute(f"SELECT count(*) FROM {s.names.text} WHERE tsv @@ to_tsquery('simple', %s)",
                                   [tsquery]).fetchone()[0]  # fmt: skip
    assert sql_matches == matches and len(s.search_text(query, k=100)) == min(100, matches)
    # Only matching statements are read; a count(*) would read all 3,000.
    assert read <= 20, read


def test_a_long_query_reads_at_most_its_candidate_budget(big_store):
    """Candidates come from the rarest terms whose frequencies fit the budget; the others only score them."""
    from theorem_rag.db import lexical_sql
    from theorem_rag.filters import Filters

    s = big_store
    query = "w010 w011 w012 w013 w014 w015"  # six common words, about 7% of the statements each
    terms = _terms(s, query)
    assert len(terms) == 6 and all(150 < t.ndoc < 300 for t in terms)
    unbounded = plan_rows(s, *lexical_sql.text_search(s.names, query, Filters(), 20, terms=terms), s.names.text)
    bounded_q = lexical_sql.text_search(s.names, query, Filters(), 20, terms=terms, budget=terms[0].ndoc)
    bounded = plan_rows(s, *bounded_q, s.names.text)
    # The candidates, then (by key) those ranked by ts_rank_cd, never more than the candidates.
    assert unbounded > 900 and terms[0].ndoc <= bounded <= 2 * terms[0].ndoc
    with s.connection() as conn:
        rows = conn.execute(*bounded_q).fetchall()
    # Every candidate holds the rarest word; the best of them hold more of the others too.
    assert len(rows) == 20 and rows[0][2] > rows[-1][2]


def test_a_long_query_ranks_only_the_candidates_that_can_reach_the_top_k(big_store):
    """ts_rank_cd (it reads positions) runs on the best candidates by IDF share, then only on those whose share
    comes within 0.1 * RANK_BOUND of the k-th best score; the ranking is the full formula's all the same."""
    from theorem_rag.db import lexical_sql
    from theorem_rag.filters import Filters

    s = big_store
    query = "w010 w011 w012 w013 w014 w015"
    # Statements that hold every query word many times: the best 20, each with the full tie-breaker.
    s.upsert_theorems([Theorem(id=f"s:rep{i}", source="a", kind="lemma", doc_id="doc1", name=f"Repetitive lemma {i}",
                               body_latex=" ".join([query] * 40) + f" r{i:04d}") for i in range(25)]
                      # and statements with five of the six words once: within 0.2 of the 20th best share, not score
                      + [Theorem(id=f"s:five{i}", source="a", kind="lemma", doc_id="doc1", name=f"Five lemma {i}",
                                 body_latex=" ".join(w for j, w in enumerate(query.split()) if j != i % 6))
                         for i in range(60)])  # fmt: skip
    terms = _terms(s, query)
    q = lexical_sql.text_search(s.names, query, Filters(), 20, terms=terms)
    with s.connection() as conn:
        tsq = lexical_sql.candidate_tsquery(terms, lexical_sql.CANDIDATE_BUDGET)
        candidates, whole = conn.execute(
            f"SELECT count(*), count(*) FILTER (WHERE tsv @@ to_tsquery('simple', %s)) FROM {s.names.text} "
            f"WHERE tsv @@ to_tsquery('simple', %s)", [" & ".join(t.lexeme for t in terms), tsq]).fetchone()  # fmt: skip
        expected = [r[0] for r in conn.execute(REFERENCE_LONG_QUERY.format(t=s.names.text, lx=s.names.lexicon), {"q": query})]
    ranked = plan_rows(s, *q, s.names.text) - candidates  # rows read again (by address) to be ranked
    # The first pass ranks 2 k = 40; the 20th best score is then 1 + 0.2, so the second ranks only statements with
    # every word (a margin around the 20th best share, 1, would rank the 60 with five of the six words too).
    assert candidates > 1000 and ranked <= 40 + whole, (candidates, whole, ranked)
    assert [h.theorem_id for h in s.search_text(query, k=30)] == expected


def test_the_tie_breaker_of_a_long_query_is_capped(big_store):
    """A statement that repeats the query's words gets at most 0.1 * RANK_BOUND from ts_rank_cd, so it cannot
    outrank one with rarer words by repetition alone (and the second pass can rely on the bound); it holds them in a
    row, as a phrase, once more at most (PHRASE_SHARE)."""
    from theorem_rag.db import lexical_sql

    s = big_store
    query = "w010 w011 w012 w013 w014 w015"
    s.upsert_theorems([Theorem(id="s:repeat", source="a", kind="lemma", doc_id="doc1", name="Repetitive lemma",
                               body_latex=" ".join(["w010 w011 w012 w013 w014 w015"] * 40))])  # fmt: skip
    with s.connection() as conn:
        rank = conn.execute(f"SELECT ts_rank_cd(tsv, to_tsquery('simple', 'w010 | w011 | w012 | w013 | w014 | w015'), 1) "
                            f"FROM {s.names.text} WHERE id = 's:repeat'").fetchone()[0]  # fmt: skip
    hits = s.search_text(query, k=5)
    assert rank > lexical_sql.RANK_BOUND  # uncapped, it would add more than 0.2
    bound = 1 + lexical_sql.PHRASE_SHARE + 0.1 * lexical_sql.RANK_BOUND
    assert hits[0].theorem_id == "s:repeat" and hits[0].score <= bound + 1e-9, hits[0]


def _terms(s, query):
    from theorem_rag.db import lexical_sql

    with s.connection() as conn:
        return [lexical_sql.QueryTerm(lx, int(n), idf, int(total))
                for lx, n, idf, total in conn.execute(*lexical_sql.query_terms(s.names, query))]  # fmt: skip


def test_when_the_rarest_term_passes_the_budget_candidates_need_two_terms(big_store):
    """At a million statements even a query's rarest word can be in tens of thousands: then only statements with
    two of the rarest words are read (the GIN index intersects them), not every statement with the rarest one."""
    from theorem_rag.db import lexical_sql
    from theorem_rag.filters import Filters

    s = big_store
    query = "w010 w011 w012 w013 w014 w015"
    terms = _terms(s, query)
    budget = terms[0].ndoc - 1  # the rarest word alone is over it
    cand = lexical_sql.candidate_tsquery(terms, budget)
    assert "&" in cand and "|" in cand  # pairs of the rarest words, any pair
    with s.connection() as conn:
        matching = conn.execute(f"SELECT count(*) FROM {s.names.text} WHERE tsv @@ to_tsquery('simple', %s)",
                                [cand]).fetchone()[0]  # fmt: skip
        rows = conn.execute(*lexical_sql.text_search(s.names, query, Filters(), 20, terms=terms, budget=budget)).fetchall()
    read = plan_rows(s, *lexical_sql.text_search(s.names, query, Filters(), 20, terms=terms, budget=budget), s.names.text)
    assert 20 <= matching < terms[0].ndoc and read <= 2 * matching, (matching, read)
    # Each result holds two of the query's words at least: its IDF share is above any one word's.
    top_single = max(t.idf for t in terms) / sum(t.idf for t in terms)
    assert len(rows) == 20 and all(float(score) > float(top_single) for _, _, score in rows)


@pytest.mark.parametrize("query", ["w010 w011 w012 w013 w014 w015", "r0007 w001 w002 w003 lemma 12", "Lemma 12 w005 w006"])
def test_bounded_long_query_ranks_like_the_full_formula(big_store, query):
    """Scoring every match by IDF share + 0.1 ts_rank_cd (the old query, written out here) gives the same top 30."""
    s = big_store
    with s.connection() as conn:
        expected = [r[0] for r in conn.execute(REFERENCE_LONG_QUERY.format(t=s.names.text, lx=s.names.lexicon), {"q": query})]
    assert len(expected) == 30
    assert [h.theorem_id for h in s.search_text(query, k=30)] == expected


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
    from theorem_rag.db import lexical_sql

    s = big_store
    s.upsert_theorems(long_statements("mid", [300, 400] * 6) + long_statements("big", [900] * 6, seed=10))
    placed = _out_of_line(s, "s:%")
    mid = [(size, out) for id_, size, out in placed if id_.startswith("s:mid")]
    big = [(size, out) for id_, size, out in placed if id_.startswith("s:big")]
    # Without migration 16 the first would be out of line too (PostgreSQL moves values once a row passes ~2 kB).
    assert all(2000 < size <= lexical_sql.INLINE_TSV_BYTES and not out for size, out in mid), mid
    assert all(size > 8160 and out for size, out in big), big
    query = "w010 w011 w012 w013 w014 w015"
    with s.connection() as conn:
        expected = [r[0] for r in conn.execute(REFERENCE_LONG_QUERY.format(t=s.names.text, lx=s.names.lexicon), {"q": query})]
    assert len({x for x in expected if x.startswith("s:mid")}) >= 3 and len({x for x in expected if x.startswith("s:big")}) >= 2
    assert [h.theorem_id for h in s.search_text(query, k=30)] == expected


def test_a_common_keyword_ranks_a_capped_set_and_every_exact_name(big_store):
    from theorem_rag.db import lexical_sql
    from theorem_rag.filters import Filters

    s = big_store
    s.set_slogans({"s:00017": "A new slogan."})  # its new row version sits at the end of the table, past the cap
    q, params = lexical_sql._keyword_search(s.names, "Lemma 17", Filters(), 10, cap=20)
    read = plan_rows(s, q, params, s.names.text)
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
    before = rows_read(s, tables)
    outline = s.outline("doc3")
    after_outline = rows_read(s, tables)
    cited = s.citations_of(["s:00001", "s:00002"])
    after_citations = rows_read(s, tables)
    assert s.premise_head()["bias"] == 0.0
    assert len(outline) == 75 and after_outline - before <= 80
    assert sorted(cited) == sorted((t.id, "s:00001") for t in citing) and after_citations - after_outline <= 10
    assert rows_read(s, tables) == after_citations


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
    before = rows_read(s, [vec_table])
    hits = s.search_dense("v", q, k=20, pool=200, ef_search=1000)
    read = rows_read(s, [vec_table]) - before
    assert len(hits) == 20 and read <= 2 * 200, read  # a sequential scan reads all 3,000
    assert [h.theorem_id for h in hits] == [h.theorem_id for h in s.exact_search("v", q, k=20)]
    only_a = s.search_dense("v", q, k=5, pool=200, ef_search=1000, filters={"source": "a"})
    assert len(only_a) == 5 and all(t.source == "a" for t in s.get_theorems([h.theorem_id for h in only_a]).values())


def test_the_default_walk_follows_the_size_of_the_space(big_store, monkeypatch):
    """Without an ef_search of its own a dense search on a halfvec index walks what the first step holding the
    space's maintained count of vectors says (400 up to 400,000) and 1,000 above the last; never
    less than the pool; an explicit one is kept."""
    from theorem_rag.db import dense

    s = big_store
    s.build_index("v")
    assert s.space("v").index == "halfvec" and s.stats("v")["vectors"] == N_SYNTHETIC
    assert dense.EF_SEARCH_STEPS["halfvec"] == ((400_000, 400),)
    assert s.dense_ef_search("v") == 400
    assert s.dense_ef_search("v", pool=600) == 600
    assert s.dense_ef_search("v", ef_search=100) == 200 and s.dense_ef_search("v", ef_search=700) == 700
    n = N_SYNTHETIC
    for steps, walk in [(((n, 300),), 300), (((n - 1, 150), (n, 300)), 300), (((n, 250), (n + 1, 300)), 250),
                        (((n - 2, 250), (n - 1, 300)), 1000), (((n - 1, 300),), 1000)]:  # fmt: skip
        monkeypatch.setitem(dense.EF_SEARCH_STEPS, "halfvec", steps)
        assert s.dense_ef_search("v") == walk, steps
        assert s.dense_ef_search("v", ef_search=350) == 350
    monkeypatch.delitem(dense.EF_SEARCH_STEPS, "halfvec")
    assert s.dense_ef_search("v") == 1000
    # search_dense sets what dense_ef_search reports
    monkeypatch.setitem(dense.EF_SEARCH_STEPS, "halfvec", ((N_SYNTHETIC, 300),))
    walked = []
    walk = dense.DenseOps._walk_settings
    monkeypatch.setattr(dense.DenseOps, "_walk_settings", lambda self, *a, **kw: walked.append(walk(self, *a, **kw)) or walked[-1])
    q = np.random.default_rng(6).normal(size=384).astype(np.float32)
    hits = s.search_dense("v", q, k=20, pool=200)
    s.search_dense("v", q, k=20, pool=200, ef_search=1000)
    assert walked == [(300, 200), (1000, 200)]
    # the graph's levels are random: the smaller walk is held to the exact top 20 within one statement
    assert len({h.theorem_id for h in hits} & {h.theorem_id for h in s.exact_search("v", q, k=20)}) >= 19


def test_the_default_pool_grows_with_the_space_past_the_longest_walk(big_store, monkeypatch):
    """Without a pool of its own a dense search on a halfvec index re-ranks DEFAULT_POOL candidates up to the size
    LARGE_POOL names and its larger pool above it (the walk then at its most, 1,000, and the pool past it: iterative
    scan goes on walking), never fewer than k; a pool asked for is kept; the search re-ranks the pool it reports."""
    from theorem_rag.db import dense

    s = big_store
    s.build_index("v")
    assert s.space("v").index == "halfvec" and s.stats("v")["vectors"] == N_SYNTHETIC
    assert dense.DEFAULT_POOL["halfvec"] == 200 and dense.LARGE_POOL["halfvec"][1] > dense.MAX_EF_SEARCH
    n = N_SYNTHETIC
    assert s.dense_walk("v", k=20) == (400, 200)
    assert s.dense_walk("v", k=300) == (400, 300)
    for most, walk_pool in [(n, (400, 200)), (n - 1, (1000, 1500))]:
        monkeypatch.setitem(dense.LARGE_POOL, "halfvec", (most, 1500))
        assert s.dense_walk("v", k=20) == walk_pool, most
        assert s.dense_walk("v", k=20, pool=600) == (600, 600)
        assert s.dense_walk("v", k=20, ef_search=300)[1] == walk_pool[1]
    monkeypatch.setitem(dense.LARGE_POOL, "halfvec", (n - 1, 2500))
    assert s.dense_walk("v", k=2600) == (1000, 2600)
    # the search re-ranks that many candidates: with a pool of 1,500 past a walk of 1,000 it reads them all
    q = np.random.default_rng(7).normal(size=384).astype(np.float32)
    monkeypatch.setitem(dense.LARGE_POOL, "halfvec", (n - 1, 1500))
    sp = s.space("v")
    with s.connection() as conn, conn.transaction():
        _, pool = s._walk_settings(conn, sp, 20, None, None, "relaxed_order", unfiltered=True)
        query, params = dense.dense_sql.dense_search(s.names, "v", sp.dim, sp.half, q, dense.Filters(), 20, pool,
                                                   kind=sp.index)
        plan = conn.execute(psycopg.sql.SQL("EXPLAIN (ANALYZE, FORMAT JSON) ") + query, params).fetchone()[0]
    vectors = s.names.vectors("v")
    scans = [p for p in plan_nodes(plan) if p["Node Type"] == "Index Scan" and p.get("Relation Name") == vectors]
    assert pool == 1500 and scans and scans[0]["Actual Rows"] == 1500
    assert len(s.search_dense("v", q, k=20)) == 20


def test_a_formula_query_weighs_its_keys_without_reading_statements(big_store):
    """Each key's count comes from the maintained counts (migration 25), one look-up per key: none of the 300
    statements that share the formula's keys is read (through the GIN index, each key read up to 2,000)."""
    from theorem_rag.db import lexical_sql
    from theorem_rag.formula_keys import formula_keys

    s = big_store
    s.upsert_theorems([Theorem(id=f"f:{i}", source="f", kind="lemma", doc_id="doc1",
                               body_latex=f"Here $x^2 + y^{i % 7} = z$.") for i in range(300)])  # fmt: skip
    keys = formula_keys("$x^2 + y^3 = z$")
    query, params = lexical_sql.formula_key_counts(s.names, keys)
    assert plan_rows(s, query, params, s.names.theorems) == 0
    with s.connection() as conn:
        counts = dict(conn.execute(query, params).fetchall())
        by_index = {k: conn.execute(f"SELECT count(*) FROM {s.names.theorems} WHERE formula_keys @> ARRAY[%s]", [k])
                    .fetchone()[0] for k in keys}  # fmt: skip
    assert counts == by_index and max(counts.values()) == 300 and min(counts.values()) < 300


def test_a_formula_query_reads_at_most_its_budget_of_statements(big_store, monkeypatch):
    """The formula keys searched are the rarest whose statements number at most FORMULA_BUDGET in all, counted as
    they are: a key's cap (FORMULA_DF_CAP) bounds its weight, not the statements its look-up reads. (Counted capped,
    a query of common keys read each one's statements in full: mathlib's declarations made that 195 ms.)"""
    from theorem_rag.db import lexical_sql
    from theorem_rag.formula_keys import formula_keys

    s = big_store
    common = [Theorem(id=f"c:{i}", source="f", kind="lemma", doc_id="doc1", body_latex=f"Here $x^2 + {i} = z$.")
              for i in range(300)]  # fmt: skip
    rare = [Theorem(id=f"r:{i}", source="f", kind="lemma", doc_id="doc1", body_latex=r"Then $\zeta$ is analytic.")
            for i in range(5)]  # fmt: skip
    s.upsert_theorems(common + rare)
    monkeypatch.setattr(lexical_sql, "FORMULA_DF_CAP", 50)
    monkeypatch.setattr(lexical_sql, "FORMULA_BUDGET", 100)
    hits = s.search_formula(formula_keys(r"$x^2 + \zeta$"), k=20)
    assert {h.theorem_id for h in hits} == {f"r:{i}" for i in range(5)}


def _gin_indexes(conn, names) -> dict[str, tuple[list | None, int]]:
    """Every GIN index of the statements and text tables: its options and the pages of its pending list."""
    conn.execute("CREATE EXTENSION IF NOT EXISTS pageinspect")
    rows = conn.execute("SELECT c.relname, c.reloptions FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
                        "JOIN pg_am a ON a.oid = c.relam WHERE a.amname = 'gin' "
                        "AND i.indrelid IN (to_regclass(%s), to_regclass(%s))", [names.theorems, names.text]).fetchall()  # fmt: skip
    return {name: (options, conn.execute("SELECT n_pending_pages FROM gin_metapage_info(get_raw_page(%s, 0))",
                                         [name]).fetchone()[0]) for name, options in rows}  # fmt: skip


def test_every_gin_index_of_the_statements_keeps_its_pending_list_short(pg_dsn, table_prefix):
    """Each look-up of a GIN index reads its whole pending list: migration 26 bounds and empties the list of every
    GIN index of the statements and text tables (formula keys, proof references, names, aliases, full text), and a
    bulk load's index builds keep the bound."""
    from theorem_rag.db.schema import migrate
    from theorem_rag.db.table_names import Names
    from theorem_rag.formula_keys import formula_keys

    n = Names(table_prefix)
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        migrate(conn, table_prefix, target=25)
        for i in range(400):  # what a schema 25 store wrote by upserts: entries waiting in the pending lists
            latex = f"If $a_{i} \\le b^{i % 9}$ then $f(a_{i}) \\le f(b)^{i % 5}$."
            conn.execute(f"INSERT INTO {n.theorems} (id, source, kind, doc_id, name, body_latex, content_hash, "
                         "formula_keys, proof_refs) VALUES (%s, 'a', 'lemma', 'd', %s, %s, %s, %s, %s)",
                         [f"a:{i}", f"Monotone lemma {i}", latex, str(i), formula_keys(latex), [f"ref-{i % 50}"]])  # fmt: skip
        before = _gin_indexes(conn, n)
        assert before[f"{n.theorems}_formula"][1] > 0 and before[f"{n.theorems}_refs"][1] > 0
        assert migrate(conn, table_prefix, target=26) == [26]
        after = _gin_indexes(conn, n)
    assert set(after) == set(before) and len(after) >= 5
    assert all(options == ["gin_pending_list_limit=256"] and pending == 0 for options, pending in after.values()), after
    with TheoremStore(pg_dsn, table=table_prefix) as store:
        store.defer_indexes()
        store.copy_theorems([Theorem(id="b:1", source="b", kind="lemma", doc_id="d", body_latex="Then $x \\le y$.")])
        store.restore_indexes("64MB", parallel_workers=0)
        with store.connection() as conn:
            assert _gin_indexes(conn, n) == after
