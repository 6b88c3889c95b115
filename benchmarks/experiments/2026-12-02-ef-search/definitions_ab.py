"""A/B of the definition look-up SQL (issue 13, 2026-12-02): the code before (alias by the full-text index) and now (by the alias index),
alternating per look-up on one connection; the 60 first PlanetMath synonym queries, as query understanding routes them.

    THEOREM_RAG_DATA_DIR=<index> python benchmarks/experiments/2026-12-02-ef-search/definitions_ab.py <tree of the code before> [rounds]

Opening the index with this code applies its migrations first (the alias index, migration 15).
"""
import importlib.util, json, statistics, sys, time
from theorem_rag.search import TheoremSearch
from theorem_rag.query_understanding import understand
from theorem_rag.db import lookup_sql as new_sql
from theorem_rag.filters import Filters
spec = importlib.util.spec_from_file_location("old_lookup_sql", sys.argv[1] + "/theorem_rag/db/lookup_sql.py")
old_sql = importlib.util.module_from_spec(spec); spec.loader.exec_module(old_sql)
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 2
t0 = time.perf_counter(); s = TheoremSearch.from_settings(); store = s.store
print("opened (migrations included) in %.1f s" % (time.perf_counter() - t0))
qs = [json.loads(l)["query"] for l in open("/work/shared/eval/planetmath_synonyms.jsonl")][:60]
calls = []
for q in qs:
    plan = understand(q)
    if plan.definition_of: calls.append((plan.definition_of, False))
    elif plan.bare_term: calls.append((plan.text, True))
print(len(calls), "look-ups")
res = {"before": [], "now": []}; same = 0
with store.connection() as conn:
    def before(term, exact):
        t = time.perf_counter()
        indexed = conn.execute("SELECT numnode(plainto_tsquery('english', %s)) > 0", [term]).fetchone()[0]
        q, p = old_sql.definitions_named(store.names, term, exact=exact, filters=Filters(), k=20, alias_indexed=indexed)
        rows = conn.execute(q, p).fetchall(); return 1000 * (time.perf_counter() - t), rows
    def now(term, exact):
        t = time.perf_counter()
        q, p = new_sql.definitions_named(store.names, term, exact=exact, filters=Filters(), k=20)
        rows = conn.execute(q, p).fetchall(); return 1000 * (time.perf_counter() - t), rows
    n = 0
    for rnd in range(rounds):
        for term, exact in calls:
            order = [("before", before), ("now", now)]
            out = {}
            for name, fn in (order if n % 2 == 0 else order[::-1]):
                ms, rows = fn(term, exact); res[name].append(ms); out[name] = rows
            same += out["before"] == out["now"]; n += 1
for k, v in res.items():
    v = sorted(v); print(k, "p50 %.1f p95 %.1f max %.1f mean %.1f" % (v[len(v)//2], v[int(.95*len(v))], v[-1], statistics.mean(v)))
print("same rows", same, "of", n)
