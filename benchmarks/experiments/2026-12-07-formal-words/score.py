import json, sys, collections
from theorem_rag.eval.metrics import ndcg_at_k
from theorem_rag.records import Hit
from theorem_rag.retrieval import statement_words as sw
rows = json.load(open(sys.argv[1]))
def run(rows, mode, weight, gate):
    per = collections.defaultdict(list)
    for r in rows:
        if r["mode"] != mode: continue
        ids = r["ids"]
        if weight and (r["prose"] or not gate) and ids:
            hits = [Hit(i, sc, rank=n + 1) for n, (i, sc) in enumerate(zip(ids, r["scores"]))]
            ids = [h.theorem_id for h in sw.reorder(hits, r["cos"], front=set(), weight=weight)]
        v = ndcg_at_k(ids, r["rel"], 10)
        per[r["style"]].append(v); per["ALL"].append(v)
    return {k: sum(v) / len(v) for k, v in per.items()}
for mode in ("formal", "default"):
    for gate in (True, False):
        for w in (0, 0.1, 0.2, 0.3, 0.5, 1.0):
            res = run(rows, mode, w, gate)
            print(mode, "gate" if gate else "all ", w, " ".join(f"{k}={v:.3f}" for k, v in sorted(res.items())))
