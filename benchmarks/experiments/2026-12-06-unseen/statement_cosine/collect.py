"""The default search's first 30 candidates for dev sets, with their statements' text (issue 53's rerank signal).

    python benchmarks/experiments/2026-12-06-unseen/statement_cosine/collect.py \
        unseen_dev,research_dev,stacks_slogans_dev,dev_probes,planetmath_synonyms,stacks_proof_refs 200 cands.json
"""
import json, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "2026-12-06-research-panel"))
from variants import SETS, index_aliases
from theorem_rag.config import Settings
from theorem_rag.eval.index_configs import EvalIndex
from theorem_rag.eval.queries import load_queries, resolve_ids
from theorem_rag.eval.set_corpora import parsed_records, set_corpus
from theorem_rag.record_files import read_records
from theorem_rag.search import TheoremSearch
K = 30
settings = Settings()
base = TheoremSearch.from_settings(settings)
aliases = index_aliases(base.store)
names = sys.argv[1].split(",")
limit = int(sys.argv[2])
sets = {n: resolve_ids(load_queries(SETS[n][0])[:limit], aliases) for n in names}
extras = [t for n in sets if (f := set_corpus(SETS[n][0])) is not None
          for t in read_records(parsed_records(f, settings.data_dir / "eval-corpora")).theorems]
index = EvalIndex(settings); index.add_records(extras)
out = {}
try:
    for n, qs in sets.items():
        rows = []
        for q in qs:
            hits = base.search(q.query, k=K)
            rows.append({"id": q.id, "query": q.query, "relevant": list(q.relevant), "exclude": list(q.exclude),
                         "cands": [{"id": h.theorem_id, "score": h.score, "cos": h.cosine, "named": h.named,
                                    "slogan": h.slogan or "", "text": h.theorem.text if h.theorem else "",
                                    "title": (h.theorem.name if h.theorem else None)} for h in hits]})
        out[n] = rows
        print(n, len(rows), flush=True)
finally:
    index.remove_records([t.id for t in extras])
json.dump(out, open(sys.argv[3], "w"))
