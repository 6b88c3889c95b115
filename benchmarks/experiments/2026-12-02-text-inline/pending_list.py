"""Long full-text queries with a GIN pending list left by 3,000 updated rows: PostgreSQL's default limit (4 MB)
against gin_pending_list_limit = 256 kB on the text index, and a clean index; states in turn, twice."""
import sys, time, statistics
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench_search_profile import EVAL, load_queries
from theorem_rag.config import Settings
from theorem_rag.db.server import resolve_dsn
from theorem_rag.db.store import TheoremStore
from theorem_rag.filters import Filters
from theorem_rag.query import is_short_query
import psycopg
dsn = resolve_dsn(Settings())
store = TheoremStore(dsn, table="theorems", pool_size=1)
qs = [q for s, q in load_queries(EVAL)]
times = {}
admin = psycopg.connect(dsn, autocommit=True)
admin.execute("create extension if not exists pgstattuple")
for rep in range(2):
    for state in ("default 4 MB", "256 kB", "clean"):
        admin.execute("vacuum theorems_text")
        if state == "256 kB":
            admin.execute("alter index theorems_text_tsv set (gin_pending_list_limit = 256)")
        else:
            admin.execute("alter index theorems_text_tsv reset (gin_pending_list_limit)")
        if state != "clean":
            admin.execute("update theorems_text set tsv = tsv || ''::tsvector where id in (select id from theorems_text order by md5(id || %s) limit 3000)", [str(rep)])
        pages = admin.execute("select pending_pages from pgstatginindex('theorems_text_tsv')").fetchone()[0]
        with store.connection() as conn:
            for q in qs:
                kind = "keyword" if is_short_query(q) else "long"
                t0 = time.perf_counter()
                query, params = store._text_query(conn, q.strip(), Filters(), 50)
                conn.execute(query, params).fetchall()
                times.setdefault((state, kind), []).append((time.perf_counter() - t0) * 1000)
        print(rep, state, "pending pages", pages, flush=True)
admin.execute("alter index theorems_text_tsv reset (gin_pending_list_limit)")
admin.execute("vacuum theorems_text")
admin.execute("drop extension pgstattuple")
for k, v in sorted(times.items()):
    v = sorted(v)
    print(k, len(v), "p50 %.1f p95 %.1f mean %.1f" % (statistics.median(v), v[int(0.95 * len(v))], statistics.fmean(v)))
store.close()
