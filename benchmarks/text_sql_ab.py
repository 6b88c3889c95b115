"""Two versions of the long full-text SQL side by side: the library's own and one rewritten from it, run one after
the other per query (which goes first alternates), on the long queries of the profile set; times and whether
their rows are identical. A helper of the studies under ``benchmarks/results/text_*/``, whose ``ab.py`` calls
``compare(store, rewrite, labels)`` with its rewrite of the SQL text; it prints both timings and how many runs
returned identical rows, and writes nothing.

>>> summary([3.0, 1.0, 2.0])
'p50 2.00 ms, p95 3.00 ms, mean 2.00 ms (3 runs)'
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from bench_search_profile import EVAL, load_queries

import theorem_rag.db.lexical_sql as st
from theorem_rag.filters import Filters


def summary(times: list[float]) -> str:
    x = sorted(times)
    return (f"p50 {x[len(x) // 2]:.2f} ms, p95 {x[int(0.95 * len(x))]:.2f} ms, mean {statistics.mean(x):.2f} ms "
            f"({len(x)} runs)")  # fmt: skip


def compare(store, rewrite: Callable[[str], str], labels: tuple[str, str], rounds: int = 3, k: int = 50) -> None:
    """Run the library's SQL (``labels[0]``) and ``rewrite`` of it (``labels[1]``) for every long dev query, alternating
    which goes first, ``rounds`` times; print both timings and how many runs returned identical rows."""
    queries = [q for _, q in load_queries(EVAL) if len(st.query_tokens(q)) > st.SHORT_QUERY_TOKENS]
    times: dict[str, list[float]] = {label: [] for label in labels}
    same = n = 0
    with store.connection() as conn:
        for rnd in range(rounds):
            for q in queries:
                tsql, tp = st.query_terms(store.names, q)
                terms = [st.QueryTerm(a, int(b), c, int(d)) for a, b, c, d in conn.execute(tsql, tp)]
                if not terms:
                    continue
                qq, params = st.text_search(store.names, q, Filters(), k, terms=terms)
                own = qq.as_string(conn)
                order = [(labels[0], own), (labels[1], rewrite(own))]
                rows = {}
                for label, text in order if (rnd + n) % 2 == 0 else order[::-1]:
                    t0 = time.perf_counter()
                    rows[label] = conn.execute(text, params).fetchall()
                    times[label].append(1000 * (time.perf_counter() - t0))
                same += rows[labels[0]] == rows[labels[1]]
                n += 1
    for label, x in times.items():
        print(f"{label}: {summary(x)}")
    print(f"identical rows: {same} of {n}")
