"""Walk recall and time of a dense walk of ef_search 200 against 400, the unseen papers added to the index for the run.

    python benchmarks/results/ef_added/ef_added.py OUT.json
"""
import json, os, statistics, sys, time
if __name__ == "__main__":
    from theorem_rag.config import Settings
    from theorem_rag.eval.index_configs import EvalIndex
    from theorem_rag.eval.set_corpora import parsed_records, set_corpus
    from theorem_rag.record_files import read_records
    from theorem_rag.search import TheoremSearch
    s = Settings(); b = TheoremSearch.from_settings(s); st = b.store
    E = os.environ.get("THEOREM_RAG_EVAL", "../shared/eval") + "/"
    extras = read_records(parsed_records(set_corpus(E + "unseen_dev.jsonl"), s.data_dir / "eval-corpora")).theorems
    idx = EvalIndex(s); idx.add_records(extras)
    out = {}
    try:
        sets = {n: [json.loads(l) for l in open(E + n + ".jsonl")] for n in ("unseen_dev", "research_dev", "stacks_slogans_dev")}
        for sp, emb in (("math_minilm_v4_slogan", b.query_embedder), ("minilm_l6_v2_slogan", b.embedder), ("minilm_l6_v2_statement", b.embedder)):
            for n, qs in sets.items():
                vecs = [emb.embed_query(q["query"]) for q in qs]
                exact = [[h.theorem_id for h in st.exact_search(sp, v, k=20)] for v in vecs]
                row = {}
                for ef in (200, 400):
                    st.search_dense(sp, vecs[0], k=20, ef_search=ef)
                times, found, lost = [], 0, 0
                for rep in range(2):
                    for ef in (200, 400):
                        for v, ex, q in zip(vecs, exact, qs):
                            t = time.perf_counter(); hn = {h.theorem_id for h in st.search_dense(sp, v, k=20, ef_search=ef)}
                            row.setdefault(ef, {"ms": [], "found": 0, "answers_lost": 0})
                            row[ef]["ms"].append((time.perf_counter() - t) * 1000)
                            if rep == 0:
                                row[ef]["found"] += len(set(ex) & hn)
                                row[ef]["answers_lost"] += sum(1 for a in q["relevant"] if a in ex and a not in hn)
                for ef, r in row.items():
                    ms = sorted(r["ms"])
                    out.setdefault(sp, {}).setdefault(n, {})[ef] = {"recall@20": round(r["found"] / (20 * len(qs)), 4), "answers_lost": r["answers_lost"], "p50_ms": round(statistics.median(ms), 2), "p95_ms": round(ms[int(0.95 * (len(ms) - 1))], 2)}
                print(sp, n, out[sp][n], flush=True)
    finally:
        idx.remove_records([t.id for t in extras])
    json.dump(out, open(sys.argv[1], "w"), indent=1)
