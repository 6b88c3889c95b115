"""Offline, on the candidates of ../2026-12-06-unseen/statement_cosine/collect.py (CANDS) and feat_q.py's cosines:
the shipped reading (raw query, six words outside formulas) against the query's TeX read into words and other
gates. The two variants whose query form depends on the query did not run (the guard below needs a fixed name)."""
import json, pickle, os, sys
import numpy as np
from theorem_rag.eval.metrics import score_ranking
from theorem_rag.retrieval.statement_words import prose_words
from theorem_rag.slogans.latex_text import latex_to_text
data = json.load(open(os.environ.get("CANDS", "cands.json")))
feats = pickle.load(open("feats_q.pkl", "rb"))
PRIMARY = {"unseen_dev": "mrr@20", "research_dev": "mrr@20", "stacks_slogans_dev": "hit@20", "dev_probes": "hit@1",
           "stacks_proof_refs": "recall@20"}
def run(model, gate, w=0.3, n=30):
    res = {}
    for s, prim in PRIMARY.items():
        if (model, s, 0, 0) not in feats: continue
        tot = 0
        for i, r in enumerate(data[s]):
            cands = r["cands"]; ids = [c["id"] for c in cands]
            m = model(r["query"]) if callable(model) else model
            if w and gate(r["query"]) and (m, s, i, min(n, len(cands)) - 1) in feats:
                head = cands[:n]
                start = 0
                while start < len(head) and head[start]["named"]: start += 1
                if start < len(head) - 1:
                    sc = np.array([c["score"] for c in head], float)
                    lo, hi = sc[start:].min(), sc[start:].max()
                    prior = (sc - lo) / ((hi - lo) or 1)
                    f = np.array([feats[(m, s, i, j)] for j in range(len(head))])
                    f = (f - f[start:].min()) / ((f[start:].max() - f[start:].min()) or 1)
                    t = prior + w * f
                    order = list(range(start)) + sorted(range(start, len(head)), key=lambda j: (not head[j]["named"], -t[j]))
                    ids = [head[j]["id"] for j in order] + ids[n:]
            tot += score_ranking(ids, set(r["relevant"]), ks=(1, 5, 10, 20), exclude=set(r["exclude"]))[prim]
        res[s] = tot / len(data[s])
    return res
base = run("raw", lambda q: False)
print("base", " ".join(f"{k[:8]} {v:.3f}" for k, v in base.items()))
tex = lambda q: "$" in q or "\\" in q
V = {
 "raw prose6": ("raw", lambda q: prose_words(q) >= 6),
 "read prose6": ("read", lambda q: prose_words(q) >= 6),
 "read-if-tex prose6": (lambda q: "read" if tex(q) else "raw", lambda q: prose_words(q) >= 6),
 "read-if-tex prose6-of-read": (lambda q: "read" if tex(q) else "raw", lambda q: prose_words(latex_to_text(q)) >= 6),
 "raw prose4": ("raw", lambda q: prose_words(q) >= 4),
 "raw prose8": ("raw", lambda q: prose_words(q) >= 8),
}
for name, (m, g) in V.items():
    r = run(m, g)
    print(f"{name:28s}", " ".join(f"{k[:8]} {v:.3f}({v-base[k]:+.3f})" for k, v in r.items()), flush=True)
