"""The long full-text query alone under several RANK_BOUNDs, on one connection, query by query in alternation.

    THEOREM_RAG_DATA_DIR=<index> python text_sql_rank_bound.py 2.0 1.0 0.5

The module constant is set before each query is built; the first bound given is the reference for "same" rankings.
Queries: the long ones (more than SHORT_QUERY_TOKENS words) of the three dev sets in ../shared/eval; depth 50 (what
a default hybrid search asks of the full-text side).
"""

import json
import statistics
import sys
import time
from pathlib import Path

from theorem_rag.db import lexical_sql
from theorem_rag.filters import Filters
from theorem_rag.query import SHORT_QUERY_TOKENS, query_tokens
from theorem_rag.search import TheoremSearch

EVAL = Path(__file__).resolve().parents[4] / "shared" / "eval"

search = TheoremSearch.from_settings()
store = search.retriever.store
queries = []
for name in ["stacks_slogans_dev", "stacks_proof_refs", "planetmath_synonyms"]:
    queries += [json.loads(line)["query"] for line in (EVAL / f"{name}.jsonl").read_text().splitlines() if line]
queries = [q for q in queries if len(query_tokens(q)) > SHORT_QUERY_TOKENS]
bounds = [float(x) for x in sys.argv[1:]]
ms: dict[float, list[float]] = {}
ids: dict[tuple[float, str], list[str]] = {}
with store.connection() as conn:
    for _ in range(2):
        for q in queries:
            for b in bounds:
                lexical_sql.RANK_BOUND = b
                sql_text, params = store._text_query(conn, q, Filters(), 50)
                t0 = time.perf_counter()
                rows = conn.execute(sql_text, params).fetchall()
                ms.setdefault(b, []).append((time.perf_counter() - t0) * 1000)
                ids[(b, q)] = [r[0] for r in rows]
for b in bounds:
    v = sorted(ms[b])
    top10 = sum(ids[(b, q)][:10] == ids[(bounds[0], q)][:10] for q in queries)
    top50 = sum(ids[(b, q)] == ids[(bounds[0], q)] for q in queries)
    print(f"bound {b}: p50 {statistics.median(v):.2f} mean {statistics.mean(v):.2f} p95 {v[int(.95 * len(v))]:.2f} ms; "
          f"top 10 the same {top10}/{len(queries)}, top 50 the same {top50}/{len(queries)}")
