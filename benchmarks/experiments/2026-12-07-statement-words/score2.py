"""The first 30 candidates reordered by fused score + w x statement cosine, by which queries are read (GATES) and
where the reordering starts (START=inversion: after the last score inversion, as the round before; front: after
the leading statements a look-up put first, as shipped): ``CANDS=cands.json FEATS=feats.pkl score2.py
[feats_stored128.pkl ...]``."""
import json, os, pickle, sys, re
import numpy as np
from theorem_rag.eval.metrics import score_ranking
from theorem_rag.retrieval.statement_words import words_outside_math as prose_words
from theorem_rag.query import query_tokens
data = json.load(open(os.environ.get("CANDS", "cands.json")))
feats = pickle.load(open(os.environ.get("FEATS", "feats.pkl"), "rb"))
for f in sys.argv[1:]:
    feats.update(pickle.load(open(f, "rb")))
PRIMARY = {"unseen_dev": "mrr@20", "research_dev": "mrr@20", "stacks_slogans_dev": "hit@20", "dev_probes": "hit@1",
           "stacks_proof_refs": "recall@20"}
GATES = {"none": lambda q: True, "tok6": lambda q: len(query_tokens(q)) >= 6, "ws6": lambda q: len(q.split()) >= 6,
         "prose6": lambda q: prose_words(q) >= 6, "prose4": lambda q: prose_words(q) >= 4}
def run(model, w, n, gate):
    res = {}
    for s, prim in PRIMARY.items():
        tot = 0
        for i, r in enumerate(data[s]):
            cands = r["cands"]
            ids = [c["id"] for c in cands]
            if w and GATES[gate](r["query"]) and (model, s, i, 0) in feats and (model, s, i, min(n, len(cands)) - 1) in feats:
                head = cands[:n]
                sc = np.array([c["score"] for c in head], float)
                start = 0
                if START == "inversion":
                    for j in range(len(head) - 1):
                        if sc[j] < sc[j + 1]:
                            start = j + 1
                else:
                    while start < len(head) and head[start]["named"]:
                        start += 1
                if start >= len(head) - 1:
                    tot += score_ranking(ids, set(r["relevant"]), ks=(1, 5, 10, 20), exclude=set(r["exclude"]))[prim]
                    continue
                lo, hi = sc[start:].min(), sc[start:].max()
                prior = (sc - lo) / ((hi - lo) or 1)
                f = np.array([feats[(model, s, i, j)] for j in range(len(head))])
                f = (f - f.min()) / ((f.max() - f.min()) or 1)
                tot_ = prior + w * f
                order = list(range(start)) + sorted(range(start, len(head)), key=lambda j: (not head[j]["named"], -tot_[j]))
                ids = [head[j]["id"] for j in order] + ids[n:]
            tot += score_ranking(ids, set(r["relevant"]), ks=(1, 5, 10, 20), exclude=set(r["exclude"]))[prim]
        res[s] = tot / len(data[s])
    return res
START = os.environ.get("START", "inversion")
base = run(None, 0, 30, "none")
print("base", " ".join(f"{k[:8]} {v:.3f}" for k, v in base.items()))
models = sorted({k[0] for k in feats})
for m in models:
    for gate in os.environ.get("GATES", "tok6,prose6").split(","):
        for w in (0.3,):
            r = run(m, w, 30, gate)
            print(f"{m[:18]:18s} {gate:6s} w{w}", " ".join(f"{k[:8]} {v:.3f}({v-base[k]:+.3f})" for k, v in r.items()), flush=True)
