"""The cosine of each query with each candidate's statement text alone (LaTeX read into words, blueprint
metadata out), for the named models: ``features.py MODELS cands.json feats.pkl``."""
import json, sys, math, re
import numpy as np
from sentence_transformers import SentenceTransformer
from theorem_rag.slogans.latex_text import latex_to_text
from theorem_rag.eval.metrics import score_ranking
from theorem_rag.embed import resolve_model_path
data = json.load(open(sys.argv[2]))
PRIMARY = {"unseen_dev": "mrr@20", "research_dev": "mrr@20", "stacks_slogans_dev": "hit@20", "dev_probes": "hit@1",
           "planetmath_synonyms": "hit@1", "stacks_proof_refs": "recall@20"}
def strip_uses(t):
    return re.sub(r"\\(uses|lean|leanok|label|notready)\s*\{[^}]*\}", " ", t)
models = {}
for name in sys.argv[1].split(","):
    models[name] = SentenceTransformer(resolve_model_path(name), device="cpu")
feats = {}
for m, model in models.items():
    for s, rows in data.items():
        qs = [r["query"] for r in rows]
        qv = model.encode(qs, normalize_embeddings=True, batch_size=64)
        texts, idx = [], []
        for i, r in enumerate(rows):
            for j, c in enumerate(r["cands"][:30]):
                texts.append(latex_to_text(strip_uses(c["text"]))[:1000]); idx.append((i, j))
        tv = model.encode(texts, normalize_embeddings=True, batch_size=64)
        for (i, j), v in zip(idx, tv):
            feats[(m, s, i, j)] = float(qv[i] @ v)
        print(m, s, "done", flush=True)
import pickle; pickle.dump(feats, open(sys.argv[3], "wb"))
