"""python benchmarks/experiments/2026-12-02-bulk-load-ab/tsv_micro.py DATA_DIR   (the DATA_DIR phase_cpu.py loaded)"""
import sys, time
from pathlib import Path
REPO = Path(__file__).resolve().parents[3]
sys.path[:0] = [str(REPO / "benchmarks"), str(REPO)]
import psycopg
from theorem_rag.db.server import EmbeddedServer
server = EmbeddedServer(Path(sys.argv[1]) / "pg")
dsn = server.dsn("theorem_rag")
with psycopg.connect(dsn, autocommit=True) as conn:
    def t(label, q, n=20000):
        best = 1e9
        for _ in range(3):
            w = time.perf_counter(); conn.execute(q); best = min(best, time.perf_counter() - w)
        print(f"{label}: {best/n*1e6:.2f} us/row")
    t("empty to_tsvector", "SELECT count(to_tsvector('english', left(g::text, 0))) FROM generate_series(1,20000) g")
    t("baseline", "SELECT count(left(g::text, 0)) FROM generate_series(1,20000) g")
    print(conn.execute("SELECT avg((name IS NULL OR name = '')::int), avg(((meta->>'synonyms') IS NULL)::int), avg(length(slogan)), avg(length(coalesce(nullif(body_expanded, ''), body_latex))) FROM theorems").fetchone())
    base = "(SELECT * FROM theorems LIMIT 20000)"
    t("name+syn parts", f"SELECT count(setweight(to_tsvector('english', coalesce(name, '')), 'A') || setweight(to_tsvector('english', coalesce(meta ->> 'synonyms', '')), 'B')) FROM {base} s")
    t("slogan part", f"SELECT count(setweight(to_tsvector('english', coalesce(slogan, '')), 'B')) FROM {base} s")
    t("body part", f"SELECT count(setweight(to_tsvector('english', left(coalesce(nullif(body_expanded, ''), body_latex), 100000)), 'C')) FROM {base} s")
    t("body to_tsvector only", f"SELECT count(to_tsvector('english', left(coalesce(nullif(body_expanded, ''), body_latex), 100000))) FROM {base} s")
    t("body ts_parse only", f"SELECT count(*) FROM {base} s, ts_parse('default', left(coalesce(nullif(body_expanded, ''), body_latex), 100000))", n=20000)
server.stop()
