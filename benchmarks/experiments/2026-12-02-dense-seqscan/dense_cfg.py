"""Dense SQL alone on an index's space, per (pool, ef_search, sequential scans allowed): p50 ms and Recall@20
against the exact scan, 40 Stacks slogan queries, each configuration twice.

    THEOREM_RAG_DATA_DIR=<index> python benchmarks/experiments/2026-12-02-dense-seqscan/dense_cfg.py
"""

import json
import statistics
import time
from pathlib import Path

from theorem_rag.db import dense_sql as st
from theorem_rag.filters import Filters
from theorem_rag.search import TheoremSearch

EVAL = Path(__file__).resolve().parents[4] / "shared" / "eval"
s = TheoremSearch.from_settings()
store = s.store
sp = store.space(s.space)
queries = [json.loads(line)["query"] for line in open(EVAL / "stacks_slogans_dev.jsonl")][:40]
vecs = s.embedder.embed_queries(queries)
exact = []
with store.connection() as conn:
    for v in vecs:
        exact.append({r[0] for r in conn.execute(*st.exact_search(store.names, s.space, sp.dim, sp.half, v, Filters(), 20))})


def run(pool: int, ef: int, seqscan: bool) -> tuple[float, float]:
    times, recall = [], []
    for v, ex in zip(vecs, exact):
        q, p = st.dense_search(store.names, s.space, sp.dim, sp.half, v, Filters(), 20, pool, kind=sp.index)
        with store.connection() as conn, conn.transaction():
            conn.execute("SELECT set_config('hnsw.ef_search', %s, true), set_config('hnsw.iterative_scan', "
                         "'relaxed_order', true), set_config('enable_seqscan', %s, true)", [str(ef), "on" if seqscan else "off"])
            t = time.perf_counter()
            ids = {r[0] for r in conn.execute(q, p)}
            times.append(1000 * (time.perf_counter() - t))
        recall.append(len(ids & ex) / 20)
    return round(statistics.median(times), 1), round(statistics.mean(recall), 4)


print(f"space {s.space}: index {sp.index}")
for cfg in [(1000, 1000, True), (1000, 1000, False), (200, 1000, False), (200, 400, True), (200, 200, True), (100, 100, True)]:
    print("pool %d, ef_search %d, seqscan %s:" % cfg, run(*cfg), run(*cfg))
