"""A/B of textual variants of the long full-text query on the real text table (issue 13, 2026-12-02).

    THEOREM_RAG_DATA_DIR=<index> python benchmarks/experiments/2026-12-02-ef-search/text_sql_ab.py

The 102 long queries of the profile set, k=50, 5 rounds, the variants' order rotated per query; "now" is the query
as it was (numeric IDF share, every vector copied once per candidate); the others rewrite its text. Compares the
returned ids with "now". The query this file measured as "float+longcopy" is the one sqltext.text_search builds
since; run against that code, "now" is it and the rewrites of the old form no longer apply.
"""
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # benchmarks/
import theorem_rag.db.lexical_sql as st  # sqltext.py when this ran (split 2026-12-03)
from bench_search_profile import EVAL, load_queries
from theorem_rag.filters import Filters
from theorem_rag.search import TheoremSearch
store = TheoremSearch.from_settings().store
T = store.names.text
def nocopy(s):
    s = s.replace(" CROSS JOIN LATERAL (SELECT t.tsv || ''::tsvector AS v OFFSET 0) AS dv", "")
    return s.replace("dv.v @@", "t.tsv @@")
def f8(s):
    return re.sub(r"THEN (\S+)::numeric ELSE 0 END", r"THEN \1::float8 ELSE 0 END", s)
def longcopy(s):
    return s.replace("(SELECT t.tsv || ''::tsvector AS v OFFSET 0)", "(SELECT CASE WHEN pg_column_size(t.tsv) > 2000 THEN t.tsv || ''::tsvector ELSE t.tsv END AS v OFFSET 0)")
VARIANTS = {"now": lambda s: s, "float": f8, "both": lambda s: f8(nocopy(s)), "float+longcopy": lambda s: f8(longcopy(s))}
queries = [q for _, q in load_queries(EVAL) if len(st.query_tokens(q)) > st.SHORT_QUERY_TOKENS]
times = {v: [] for v in VARIANTS}; same = {v: 0 for v in VARIANTS}; n = 0
with store.connection() as conn:
    for rnd in range(int(__import__("os").environ.get("ROUNDS", "5"))):
        for q in queries:
            tsql, tp = st.query_terms(store.names, q)
            terms = [st.QueryTerm(a, int(b), c, int(d)) for a, b, c, d in conn.execute(tsql, tp)]
            if not terms: continue
            qq, params = st.text_search(store.names, q, Filters(), 50, terms=terms)
            base = qq.as_string(conn)
            order = list(VARIANTS); order = order[n % 4:] + order[:n % 4]
            rows = {}
            for v in order:
                text = VARIANTS[v](base)
                if v != "now": assert text != base, v
                t0 = time.perf_counter(); rows[v] = conn.execute(text, params).fetchall(); times[v].append(1000 * (time.perf_counter() - t0))
            for v in VARIANTS:
                same[v] += [r[0] for r in rows[v]] == [r[0] for r in rows["now"]]
            n += 1
for v, x in times.items():
    x = sorted(x); print(v, f"p50 {x[len(x)//2]:.2f} p95 {x[int(.95*len(x))]:.2f} mean {statistics.mean(x):.2f} same-order {same[v]}/{n}")
