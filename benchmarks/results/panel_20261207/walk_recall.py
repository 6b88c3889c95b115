"""HNSW walk against the exact scan for the unseen queries, the unseen blueprints added for the run: python walk_recall.py"""
if __name__ == "__main__":
    import json
    from theorem_rag.config import Settings
    from theorem_rag.eval.index_configs import EvalIndex
    from theorem_rag.eval.set_corpora import parsed_records, set_corpus
    from theorem_rag.record_files import read_records
    from theorem_rag.search import TheoremSearch
    s = Settings()
    f = set_corpus("/work/shared/eval/unseen_dev.jsonl")
    extras = read_records(parsed_records(f, s.data_dir / "eval-corpora")).theorems
    idx = EvalIndex(s); idx.add_records(extras)
    try:
        b = TheoremSearch.from_settings(s); st = b.store
        qs = [json.loads(l) for l in open("/work/shared/eval/unseen_dev.jsonl")]
        for sp, emb in (("math_minilm_v4_slogan", b.query_embedder), ("minilm_l6_v2_slogan", b.embedder), ("minilm_l6_v2_statement", b.embedder)):
            miss = tot = ans_lost = 0
            for q in qs:
                v = emb.embed_query(q["query"])
                ex = [h.theorem_id for h in st.exact_search(sp, v, k=20)]
                hn = {h.theorem_id for h in st.search_dense(sp, v, k=20)}
                miss += len(set(ex) - hn); tot += 20
                ans_lost += any(a in ex and a not in hn for a in q["relevant"])
            print(sp, "HNSW recall@20", round(1 - miss / tot, 3), "answers in exact top 20 lost by the walk", ans_lost, flush=True)
    finally:
        idx.remove_records([t.id for t in extras])
