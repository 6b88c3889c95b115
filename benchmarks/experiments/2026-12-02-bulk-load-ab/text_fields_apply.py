"""Rewrite the text table's tsv of a copied index with a variant expression (experiment for issue 10)."""
import sys, time, psycopg
from theorem_rag.db.server import EmbeddedServer
data, variant = sys.argv[1], sys.argv[2]
NAME = "setweight(to_tsvector('english', coalesce(s.name, '')), 'A')"
SLOG = "setweight(to_tsvector('english', coalesce(s.slogan, '')), 'B')"
SYN = "setweight(to_tsvector('english', coalesce(s.meta ->> 'synonyms', '')), 'B')"
BODY = "setweight(to_tsvector('english', left(coalesce(nullif(s.body_expanded, ''), s.body_latex), 100000)), 'C')"
V = {
 "A": f"{NAME} || {SLOG} || {SYN} || CASE WHEN coalesce(s.slogan, '') = '' THEN {BODY} ELSE ''::tsvector END",
 "B": f"{NAME} || {SYN} || {BODY}",
 "orig": f"{NAME} || {SLOG} || {SYN} || {BODY}",
}
srv = EmbeddedServer(data + "/pg")
srv.start(); dsn = srv.dsn("theorem_rag")
with psycopg.connect(dsn, autocommit=True) as c:
    print(c.execute("select count(*), sum(pg_column_size(tsv)), sum(length(tsv)) from theorems_text").fetchone())
    t = time.time()
    c.execute(f"UPDATE theorems_text x SET tsv = {V[variant]} FROM theorems s WHERE s.id = x.id")
    print("update", time.time() - t)
    c.execute("VACUUM ANALYZE theorems_text")
    print(c.execute("select count(*), sum(pg_column_size(tsv)), sum(length(tsv)) from theorems_text").fetchone())
    print(c.execute("select pg_size_pretty(pg_relation_size('theorems_text_tsv'))").fetchone())
    # cost of the expression alone
    for k in ("orig", variant):
        t = time.time(); c.execute(f"SELECT sum(length({V[k]})) FROM theorems s"); print(k, "expr s", time.time() - t)
