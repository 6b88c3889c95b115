"""The candidate stage of a long full-text query in parts, on two fresh copies of the text table: PostgreSQL's
default TOAST threshold (tt_default) and rows kept whole up to 8,160 bytes (tt_inline). Make the copies first:

    CREATE TABLE tt_default (LIKE theorems_text); INSERT INTO tt_default SELECT * FROM theorems_text;
    CREATE TABLE tt_inline (LIKE theorems_text) WITH (toast_tuple_target = 8160); INSERT INTO tt_inline SELECT * FROM theorems_text;
    CREATE INDEX ON tt_default USING gin (tsv); CREATE INDEX ON tt_inline USING gin (tsv); VACUUM ANALYZE tt_default, tt_inline;

then ``THEOREM_RAG_DATA_DIR=<index> python benchmarks/experiments/2026-12-02-text-inline/share_parts.py`` (drop the copies after)."""
import sys, time, statistics
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench_search_profile import EVAL, load_queries
from theorem_rag.config import Settings
from theorem_rag.db.server import resolve_dsn
from theorem_rag.db.store import TheoremStore
from theorem_rag.query import is_short_query
from theorem_rag.db import lexical_sql as sqltext  # sqltext.py when this ran (split 2026-12-03)
settings = Settings()
store = TheoremStore(resolve_dsn(settings), table=settings.table, pool_size=1)
qs = [(s, q) for s, q in load_queries(EVAL) if not is_short_query(q)]
times = {}
with store.connection() as conn:
    termsets = []
    for s, q in qs:
        tq, tp = sqltext.query_terms(store.names, q.strip())
        terms = [sqltext.QueryTerm(*r) for r in conn.execute(tq, tp).fetchall()]
        if terms: termsets.append(terms)
    for rep in range(3):
        for terms in termsets:
            cq = sqltext.candidate_tsquery(terms, 4000)
            share_direct = " + ".join(f"CASE WHEN t.tsv @@ '{t.lexeme}'::tsquery THEN {t.idf}::float8 ELSE 0 END" for t in terms)
            share_dv = share_direct.replace("t.tsv @@", "dv.v @@")
            lat = "CROSS JOIN LATERAL (SELECT CASE WHEN pg_column_size(t.tsv) > 2000 THEN t.tsv || ''::tsvector ELSE t.tsv END AS v OFFSET 0) AS dv"
            rank = f"ts_rank_cd(t.tsv, '{' | '.join(t.lexeme for t in terms)}'::tsquery, 1)"
            for T in ("tt_default", "tt_inline"):
                variants = {
                    "fetch": f"SELECT count(*) FROM {T} t WHERE t.tsv @@ '{cq}'::tsquery",
                    "share_dv": f"SELECT sum({share_dv}) FROM {T} t {lat} WHERE t.tsv @@ '{cq}'::tsquery",
                    "share_direct": f"SELECT sum({share_direct}) FROM {T} t WHERE t.tsv @@ '{cq}'::tsquery",
                    "rank_all": f"SELECT sum({rank}) FROM {T} t WHERE t.tsv @@ '{cq}'::tsquery",
                }
                for name, text in variants.items():
                    t0 = time.perf_counter()
                    conn.execute(text).fetchall()
                    times.setdefault((T, name), []).append((time.perf_counter() - t0) * 1000)
for k, v in sorted(times.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    print(k, "p50 %.2f mean %.2f" % (statistics.median(v), statistics.fmean(v)))
store.close()
