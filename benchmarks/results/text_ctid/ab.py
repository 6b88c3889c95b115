"""The long full-text query with the second read by primary key (before) or by ctid (now), alternating per query,
on the long dev queries (k=50, 3 rounds): time and whether the rows are identical.

    THEOREM_RAG_DATA_DIR=<a built index> python benchmarks/results/text_ctid/ab.py
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
queries = [q for _, q in load_queries(EVAL) if len(st.query_tokens(q)) > st.SHORT_QUERY_TOKENS]
times: dict[str, list[float]] = {"pkey": [], "ctid": []}
same = n = 0
with store.connection() as conn:
    for rnd in range(3):
        for q in queries:
            tsql, tp = st.query_terms(store.names, q)
            terms = [st.QueryTerm(a, int(b), c, int(d)) for a, b, c, d in conn.execute(tsql, tp)]
            if not terms:
                continue
            qq, params = st.text_search(store.names, q, Filters(), 50, terms=terms)
            now = qq.as_string(conn)
            before = now.replace("SELECT t.id, t.ctid AS tid, coalesce(", "SELECT t.id, coalesce(").replace(
                "SELECT id, tid, named, s FROM cand", "SELECT id, named, s FROM cand").replace(
                "WHERE t.ctid = top.tid OFFSET 0", "WHERE t.id = top.id OFFSET 0")  # fmt: skip
            assert "tid" not in before, before
            rows = {}
            order = [("pkey", before), ("ctid", now)]
            for label, text in order if (rnd + n) % 2 == 0 else order[::-1]:
                t0 = time.perf_counter()
                rows[label] = conn.execute(text, params).fetchall()
                times[label].append(1000 * (time.perf_counter() - t0))
            same += rows["pkey"] == rows["ctid"]
            n += 1


def summary(x: list[float]) -> str:
    x = sorted(x)
    return f"p50 {x[len(x) // 2]:.2f} ms, p95 {x[int(0.95 * len(x))]:.2f} ms, mean {statistics.mean(x):.2f} ms"


for label, x in times.items():
    print(f"{label}: {summary(x)} ({len(x)} runs)")
print(f"identical rows: {same} of {n}")
