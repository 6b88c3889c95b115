"""What reading the phrase costs full-text search, on the index the settings name: every dev query on the long-query
path (more than SHORT_QUERY_TOKENS words), full-text search alone (k 100), with the phrase read (PHRASE_SHARE 0.5)
and without (0), alternating per query in one process, for queries of 4 to 8 words and for longer ones.

    python benchmarks/results/phrase_share/phrase_cost.py OUT.json
"""

import json
import os
import statistics
import sys
import time

if __name__ == "__main__":
    import theorem_rag.db.lexical_sql as lexical_sql
    from theorem_rag.query import SHORT_QUERY_TOKENS, query_tokens
    from theorem_rag.search import TheoremSearch

    store = TheoremSearch.from_settings().store
    ev = os.environ.get("THEOREM_RAG_EVAL", "../shared/eval")
    files = [f"{ev}/{n}.jsonl" for n in ("stacks_slogans_dev", "planetmath_synonyms", "research_dev", "unseen_dev",
                                          "mathlib_dev", "stacks_proof_refs")]
    files += ["benchmarks/probes/dev_probes.jsonl", "benchmarks/results/mathlib_dev/mathlib_titles_dev.jsonl"]
    queries = [json.loads(line)["query"] for f in files if os.path.exists(f) for line in open(f)]
    groups = {"4 to 8 words": [q for q in queries if SHORT_QUERY_TOKENS < len(query_tokens(q)) <= 8],
              "more than 8 words": [q for q in queries if len(query_tokens(q)) > 8][:1000]}
    out = {"statements": store.count()}
    for name, qs in groups.items():
        ms = {n: [] for n in (0.5, 0.0)}
        for q in qs[:5]:
            store.search_text(q, k=100)
        for q in qs:
            for n in ms:
                lexical_sql.PHRASE_SHARE = n
                t = time.perf_counter()
                store.search_text(q, k=100)
                ms[n].append((time.perf_counter() - t) * 1000)
        out[name] = {"queries": len(qs), **{f"PHRASE_SHARE {n}": {
            "p50_ms": round(statistics.median(x), 2), "p95_ms": round(sorted(x)[int(0.95 * (len(x) - 1))], 2)}
            for n, x in ms.items()}}
        print(name, json.dumps(out[name]), flush=True)
    json.dump(out, open(sys.argv[1], "w"), indent=1)
