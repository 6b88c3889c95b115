"""Each set's primary metric when the first N candidates are reordered by their fused score (min-max scaled,
after the hits the search puts first) plus W times the statement cosine (min-max scaled among the N):
``score.py cands.json feats.pkl out.json``."""
import json, pickle, sys, itertools
import numpy as np
from theorem_rag.eval.metrics import score_ranking
data = json.load(open(sys.argv[1]))
feats = pickle.load(open(sys.argv[2], "rb"))
rows_out = {}
PRIMARY = {"unseen_dev": "mrr@20", "research_dev": "mrr@20", "stacks_slogans_dev": "hit@20", "dev_probes": "hit@1",
           "planetmath_synonyms": "hit@1", "stacks_proof_refs": "recall@20"}
def evaluate(fn):
    res = {}
    for s, rows in data.items():
        tot = 0
        for i, r in enumerate(rows):
            ids = fn(s, i, r)
            tot += score_ranking(ids, set(r["relevant"]), ks=(1, 5, 10, 20), exclude=set(r["exclude"]))[PRIMARY[s]]
        res[s] = tot / len(rows)
    return res
def base(s, i, r):
    return [c["id"] for c in r["cands"]]
def rerank(model, w, n, norm="z"):
    def fn(s, i, r):
        cands = r["cands"]
        head = cands[:n]
        sc = np.array([c["score"] for c in head], float)
        # put-first hits (routed, named) keep their places: the rerank starts after the last score inversion
        start = 0
        for j in range(len(head) - 1):
            if sc[j] < sc[j + 1]:
                start = j + 1
        lo, hi = sc[start:].min(), sc[start:].max()
        prior = (sc - lo) / ((hi - lo) or 1)
        f = np.array([feats[(model, s, i, j)] for j in range(len(head))])
        if norm == "z":
            f = (f - f.mean()) / (f.std() or 1)
        else:
            f = (f - f.min()) / ((f.max() - f.min()) or 1)
        tot = prior + w * f
        named = [c["named"] for c in head]
        order = list(range(start)) + sorted(range(start, len(head)), key=lambda j: (not named[j], -tot[j]))
        return [head[j]["id"] for j in order] + [c["id"] for c in cands[n:]]
    return fn
b = evaluate(base)
rows_out["default"] = b
print("base", " ".join(f"{k[:8]} {v:.3f}" for k, v in b.items()))
models = sorted({k[0] for k in feats})
for m in models:
    for n in (10, 20, 30):
        for norm in ("mm",):
            for w in (0.1, 0.2, 0.3, 0.5, 1.0):
                r = evaluate(rerank(m, w, n, norm))
                rows_out[f"{m} n={n} w={w}"] = r
                print(f"{m[:12]:12s} n{n} {norm} w{w}", " ".join(f"{k[:8]} {v:.3f}({v-b[k]:+.3f})" for k, v in r.items()), flush=True)

json.dump(rows_out, open(sys.argv[3], "w"), indent=1)
