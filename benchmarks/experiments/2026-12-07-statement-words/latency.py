"""Library search time with and without the words space's reading, interleaved query by query in one process on one
index: every query of the dev panel (at most 400 a set), k=10, two warm-up passes over 20 queries first.

    THEOREM_RAG_DATA_DIR=<index> python benchmarks/experiments/2026-12-07-statement-words/latency.py OUT.json
"""
import json, statistics, sys, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "2026-12-06-research-panel"))
from variants import LATEX_SETS, SETS
from theorem_rag.eval.queries import load_queries
from theorem_rag.query_understanding.plan import understand
from theorem_rag.retrieval.statement_words import reads_statements
from theorem_rag.search import TheoremSearch

base = TheoremSearch.from_settings()
assert base.words_space, "the index has no complete words space"
variants = {"before (words=0)": base.with_options(words_weight=0), "now": base}
queries = [(name, q.query) for name in LATEX_SETS for q in load_queries(SETS[name][0])[:400]]
for _ in range(2):
    for _, q in queries[:20]:
        for s in variants.values():
            s.search(q, k=10)
times = {v: [] for v in variants}
kinds = []
for i, (name, q) in enumerate(queries):
    order = list(variants.items()) if i % 2 == 0 else list(variants.items())[::-1]
    for v, s in order:
        t0 = time.perf_counter()
        s.search(q, k=10)
        times[v].append((time.perf_counter() - t0) * 1000)
    kinds.append({"set": name, "read": reads_statements(q), "formula": bool(understand(q).formula)})


def summary(values):
    values = sorted(values)
    return {"n": len(values), "p50": round(statistics.median(values), 1),
            "p95": round(values[int(0.95 * (len(values) - 1))], 1), "mean": round(statistics.fmean(values), 1)}


out = {}
for v, ts in times.items():
    out[v] = {"all": summary(ts), "read": summary([t for t, k in zip(ts, kinds) if k["read"]]),
              "not read": summary([t for t, k in zip(ts, kinds) if not k["read"]]),
              "formula": summary([t for t, k in zip(ts, kinds) if k["formula"]])}
    out[v]["formula / median"] = round(out[v]["formula"]["p50"] / out[v]["all"]["p50"], 2)
print(json.dumps(out, indent=1))
json.dump(out, open(sys.argv[1], "w"), indent=1)
