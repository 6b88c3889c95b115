"""How a formula query's formula ranking spends its time on an index: counting its keys' statements (what the
ranking weighs them by) and ranking, over the first 40 formula queries of mathlib_dev and the probes. Run against
d520b15 it timed the GIN counts (135 ms at the median on the combined index); now it times the maintained counts.

    THEOREM_RAG_DATA_DIR=<index> python benchmarks/experiments/2026-12-07-definition-lookup/formula_cost.py
"""
import os, statistics, time
from pathlib import Path
from theorem_rag.search import TheoremSearch
from theorem_rag.eval.queries import load_queries
from theorem_rag.query_understanding.plan import understand
from theorem_rag.formula_keys import key_weights
from theorem_rag.db import lexical_sql
from theorem_rag.filters import Filters

ROOT = Path(__file__).resolve().parents[3]
EVAL = Path(os.environ.get("THEOREM_RAG_EVAL", ROOT.parent / "shared" / "eval"))
s = TheoremSearch.from_settings(); st = s.store
qs = [q.query for q in load_queries(EVAL / "mathlib_dev.jsonl")[:400] + load_queries(ROOT / "benchmarks" / "probes" / "dev_probes.jsonl")]
plans = [understand(q) for q in qs]
plans = [p for p in plans if p.formula_keys][:40]
T = {"count": [], "search": [], "nkeys": [], "nweighted": [], "sumdf": []}
with st.connection() as conn:
    for p in plans:
        keys = p.formula_keys
        conn.execute("SET enable_seqscan = off")
        t = time.perf_counter()
        cq, cp = lexical_sql.formula_key_counts(st.names, keys)
        counts = {k: int(n) for k, n in conn.execute(cq, cp)}
        T["count"].append((time.perf_counter() - t) * 1000)
        total = st.count()
        w = key_weights(counts, total, lexical_sql.FORMULA_BUDGET)
        q, pp = lexical_sql.formula_search(st.names, [x[0] for x in w], [x[1] for x in w], Filters(), 130)
        t = time.perf_counter(); conn.execute(q, pp).fetchall(); T["search"].append((time.perf_counter() - t) * 1000)
        T["nkeys"].append(len(keys)); T["nweighted"].append(len(w)); T["sumdf"].append(sum(counts[k] for k, _ in w))
for k, v in T.items(): print(k, "median", round(statistics.median(v), 1), "max", round(max(v), 1), "mean", round(statistics.fmean(v), 1))
