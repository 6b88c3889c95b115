"""What a narrow table would save the long full-text query: the same SQL over the statements table (about 3.3 kB a
row: LaTeX, proof, metadata, vector) and over a copy holding only what the query reads (id, doc_id, source, kind,
name, synonyms, tsv; about 0.7 kB a row), alternating per query; the long dev queries, k=50, 3 rounds.

    THEOREM_RAG_DATA_DIR=<a built index> python benchmarks/results/text_narrow/ab.py

Creates the copy (`zz_text_narrow`, with the same GIN and name indexes) in that index's database and drops it at
the end. A measurement of the idea only: nothing in the library reads such a table.
"""
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import theorem_rag.db.sqltext as st  # noqa: E402
from bench_search_profile import EVAL, load_queries  # noqa: E402
from theorem_rag.filters import Filters  # noqa: E402
from theorem_rag.search import TheoremSearch  # noqa: E402

store = TheoremSearch.from_settings().store
table = store.names.theorems
queries = [q for _, q in load_queries(EVAL) if len(st.query_tokens(q)) > st.SHORT_QUERY_TOKENS]
times: dict[str, list[float]] = {"wide": [], "narrow": []}
same = n = 0
with store.connection() as conn:
    conn.execute("DROP TABLE IF EXISTS zz_text_narrow")
    conn.execute(f"""CREATE TABLE zz_text_narrow AS SELECT id, doc_id, source, kind, name,
        CASE WHEN jsonb_typeof(meta -> 'synonyms') = 'array' THEN jsonb_build_object('synonyms', meta -> 'synonyms')
             ELSE '{{}}'::jsonb END AS meta, tsv FROM "{table}" ORDER BY id""")
    conn.execute("ALTER TABLE zz_text_narrow ADD PRIMARY KEY (id)")
    conn.execute("CREATE INDEX ON zz_text_narrow USING gin (tsv)")
    conn.execute("CREATE INDEX ON zz_text_narrow (lower(name))")
    conn.execute("VACUUM ANALYZE zz_text_narrow")
    sizes = conn.execute(f"SELECT pg_relation_size('\"{table}\"'), pg_relation_size('zz_text_narrow')").fetchone()
    try:
        for rnd in range(3):
            for q in queries:
                tsql, tp = st.query_terms(store.names, q)
                terms = [st.QueryTerm(a, int(b), c, int(d)) for a, b, c, d in conn.execute(tsql, tp)]
                if not terms:
                    continue
                qq, params = st.text_search(store.names, q, Filters(), 50, terms=terms)
                wide = qq.as_string(conn)
                narrow = wide.replace(f'FROM "{table}" AS t', 'FROM "zz_text_narrow" AS t')
                assert narrow.count("zz_text_narrow") == 2, narrow
                rows = {}
                order = [("wide", wide), ("narrow", narrow)]
                for label, text in order if (rnd + n) % 2 == 0 else order[::-1]:
                    t0 = time.perf_counter()
                    rows[label] = conn.execute(text, params).fetchall()
                    times[label].append(1000 * (time.perf_counter() - t0))
                same += rows["wide"] == rows["narrow"]
                n += 1
    finally:
        conn.execute("DROP TABLE IF EXISTS zz_text_narrow")

print(f"heap: statements {sizes[0] / 2**20:.0f} MB, narrow copy {sizes[1] / 2**20:.0f} MB")
for label, x in times.items():
    x = sorted(x)
    print(f"{label}: p50 {x[len(x) // 2]:.2f} ms, p95 {x[int(0.95 * len(x))]:.2f} ms, mean {statistics.mean(x):.2f} ms "
          f"({len(x)} runs)")
print(f"identical rows: {same} of {n}")
