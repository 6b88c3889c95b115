"""Time of a search with the formal filter (and of a default one) on the combined index, before and after the query
space is left out where the filters admit none of its statements; the before side is the same code with
``Filters.admits`` answering as the retriever did (every space searched), interleaved query by query in one process.

    python benchmarks/results/formal_filter/formal_filter.py OUT.json
"""

import json
import os
import statistics
import sys
import time

if __name__ == "__main__":
    from theorem_rag.filters import Filters
    from theorem_rag.search import TheoremSearch

    search = TheoremSearch.from_settings()
    ev = os.environ.get("THEOREM_RAG_EVAL", "../shared/eval")
    sets = {"mathlib_dev": f"{ev}/mathlib_dev.jsonl", "mathlib_titles_dev": "benchmarks/results/mathlib_dev/mathlib_titles_dev.jsonl"}
    after = Filters.admits

    def before(self, formal_sources):  # the retriever before: the query space always, the base space unless informal
        return True, self.formal is not False

    variants = {"formal, before": (before, {"formal": True}), "formal, after": (after, {"formal": True}),
                "source mathlib, before": (before, {"sources": "mathlib"}),
                "source mathlib, after": (after, {"sources": "mathlib"}), "default": (after, {})}
    out = {"statements": search.store.count(), "formal": search.store.count_formal()}
    for name, path in sets.items():
        queries = [json.loads(line)["query"] for line in open(path)]
        ms = {v: [] for v in variants}
        same = 0
        for q in queries[:5]:  # warm the caches and the models
            search.search(q, k=10)
        for q in queries:
            tops = {}
            for v, (admits, filters) in variants.items():
                Filters.admits = admits
                t = time.perf_counter()
                tops[v] = [h.theorem_id for h in search.search(q, k=10, **filters)]
                ms[v].append((time.perf_counter() - t) * 1000)
            Filters.admits = after
            same += tops["formal, before"] == tops["formal, after"] and tops["source mathlib, before"] == tops[
                "source mathlib, after"]
        out[name] = {"queries": len(queries), "same_first_10": same, **{
            v: {"p50_ms": round(statistics.median(x), 1), "p95_ms": round(sorted(x)[int(0.95 * (len(x) - 1))], 1)}
            for v, x in ms.items()}}
        print(name, json.dumps(out[name]), flush=True)
    json.dump(out, open(sys.argv[1], "w"), indent=1)
