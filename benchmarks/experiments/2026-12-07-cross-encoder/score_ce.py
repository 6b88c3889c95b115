"""Cross-encoder scores over collect.py's candidates (first 30 of the default ranking), then the first N reordered by
min-max fused score + W x min-max CE score, after the leading statements a look-up put first.

    python score_ce.py cands.json MODEL_DIR feats.pkl       # scores (cached in feats.pkl)
    python score_ce.py cands.json - feats.pkl               # grid only
"""
import json
import os
import pickle
import sys

import numpy as np

from theorem_rag.eval.metrics import score_ranking
from theorem_rag.records import Theorem
from theorem_rag.retrieval.statement_words import words_outside_math
from theorem_rag.slogans.latex_text import latex_to_text
from theorem_rag.slogans.offline import offline_slogan

cands_path, model_dir, feats_path = sys.argv[1:4]
data = json.load(open(cands_path))
PRIMARY = {"unseen_dev": "mrr@20", "research_dev": "mrr@20", "stacks_slogans_dev": "hit@20", "dev_probes": "hit@1",
           "planetmath_synonyms": "hit@1", "stacks_proof_refs": "recall@20"}
feats = pickle.load(open(feats_path, "rb")) if os.path.exists(feats_path) else {}
DEPTH = 30


def words_of(c):
    t = Theorem(id=c["id"], source=c["id"].split(":")[0], kind="lemma", doc_id="d", body_latex=c["text"])
    return offline_slogan(t, context=False) or c["text"] or c["slogan"]


if model_dir != "-":
    import torch
    from transformers import AutoModel, AutoTokenizer
    torch.set_num_threads(2)
    tok = AutoTokenizer.from_pretrained(model_dir)
    encoder = AutoModel.from_pretrained(model_dir, add_pooling_layer=False).eval()
    head = torch.nn.Linear(encoder.config.hidden_size, 1)
    head.load_state_dict(torch.load(f"{model_dir}/head.pt"))

    def model(**enc):
        h = encoder(**enc).last_hidden_state
        m = enc["attention_mask"].unsqueeze(-1).to(h.dtype)
        return head((h * m).sum(1) / m.sum(1))
    name = os.path.basename(model_dir.rstrip("/"))
    for s, rows in data.items():
        for i, r in enumerate(rows):
            if (name, s, i) in feats:
                continue
            q = latex_to_text(r["query"]) or r["query"]
            q = tok.convert_tokens_to_string(tok.tokenize(q)[:40])
            docs = [words_of(c) for c in r["cands"][:DEPTH]]
            if not docs:
                feats[(name, s, i)] = []
                continue
            with torch.inference_mode():
                enc = tok([q] * len(docs), docs, truncation="only_second", max_length=128, padding=True,
                          return_tensors="pt")
                feats[(name, s, i)] = model(**enc)[:, 0].tolist()
        print(s, flush=True)
        pickle.dump(feats, open(feats_path, "wb"))


def run(name, w, n, gate):
    res = {}
    for s, prim in PRIMARY.items():
        if s not in data:
            continue
        tot = 0
        for i, r in enumerate(data[s]):
            cands = r["cands"]
            ids = [c["id"] for c in cands]
            f = feats.get((name, s, i))
            if w and f and words_outside_math(r["query"]) >= gate:
                head = cands[:n]
                start = 0
                while start < len(head) and head[start]["named"]:
                    start += 1
                if start < len(head) - 1:
                    sc = np.array([c["score"] for c in head], float)
                    lo, hi = sc[start:].min(), sc[start:].max()
                    prior = (sc - lo) / ((hi - lo) or 1)
                    fe = np.array(f[:len(head)])
                    fe = (fe - fe[start:].min()) / ((fe[start:].max() - fe[start:].min()) or 1)
                    tot_ = prior + w * fe
                    order = list(range(start)) + sorted(range(start, len(head)), key=lambda j: -tot_[j])
                    ids = [head[j]["id"] for j in order] + ids[n:]
            tot += score_ranking(ids, set(r["relevant"]), ks=(1, 5, 10, 20), exclude=set(r["exclude"]))[prim]
        res[s] = tot / len(data[s])
    return res


base = run(None, 0, 30, 0)
print("base".ljust(28), " ".join(f"{k[:8]} {v:.3f}" for k, v in base.items()))
for name in sorted({k[0] for k in feats}):
    for gate in (0, 4, 6):
        for n in (10, 20, 30):
            for w in (0.3, 0.5, 1.0, 2.0):
                r = run(name, w, n, gate)
                print(f"{name[:10]} g{gate} n{n} w{w}".ljust(28),
                      " ".join(f"{k[:8]} {v:.3f}({v - base[k]:+.3f})" for k, v in r.items()), flush=True)
