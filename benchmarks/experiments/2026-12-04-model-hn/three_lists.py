"""Experiment: a query routed to the query space (v4) also gets the base space's dense ranking as a third list."""
import json, sys
from pathlib import Path
sys.path.insert(0, "/work/main/benchmarks")
from sweep_lexical_weight import metrics
import theorem_rag.retrieval.retriever as R
from theorem_rag.search import TheoremSearch

W = {"w": 0.0}
orig = R.TheoremRetriever._gather
def gather(self, plan, embedding, space, model, depth, k, filters, understanding):
    found = orig(self, plan, embedding, space, model, depth, k, filters, understanding)
    if W["w"] > 0 and self.query_space and space == self.query_space and plan.texts:
        vec = self._embed(plan.texts[0], self.embed_model)
        ranking = self.store.search_dense(self.space, vec, k=depth, pool=max(self.pool_for(self.space), depth),
                                          filters=filters, ef_search=self.ef_search, iterative_scan=self.iterative_scan)
        found.add(ranking, W["w"])
    return found
R.TheoremRetriever._gather = gather

EVAL = Path("/work/shared/eval")
def rows(p, n=None):
    r = [json.loads(l) for l in Path(p).read_text().splitlines() if l.strip()]
    return r[:n] if n else r
sets = {"slogans": rows(EVAL / "stacks_slogans_dev.jsonl"), "probes": rows("/work/main/benchmarks/probes/dev_probes.jsonl"),
        "planetmath300": rows(EVAL / "planetmath_synonyms.jsonl", 300)}
search = TheoremSearch.from_settings()
for w in sys.argv[1:]:
    W["w"] = float(w)
    for name, rs in sets.items():
        hits = search.search_batch([r["query"] for r in rs], 20)
        print(json.dumps({"w": W["w"], "set": name, "n": len(rs), **metrics([[h.theorem_id for h in x] for x in hits], rs)}), flush=True)
