"""The base model's cosine of the best declaration and of the best informal statement (the formal filter on and
off, base space), per query of three dev sets on the combined index: the gap the formal gate reads.

    python benchmarks/experiments/2026-12-07-formal-gate/gap.py OUT.json
"""
import json, os, statistics, sys
from theorem_rag.search import TheoremSearch
ts = TheoremSearch.from_settings()
st = ts.store; emb = ts.embedder
E = os.environ.get("THEOREM_RAG_EVAL", "../shared/eval") + "/"
sets = {"stacks_slogans_dev": E + "stacks_slogans_dev.jsonl", "research_dev": E + "research_dev.jsonl",
        "mathlib_dev": E + "mathlib_dev.jsonl"}
out = {}
for name, path in sets.items():
    try:
        rows = [json.loads(l) for l in open(path)]
    except FileNotFoundError:
        print("no", path); continue
    rows = rows[:150]
    res = []
    for r in rows:
        v = emb.embed_query(r["query"])
        f = st.search_dense("minilm_l6_v2_slogan", v, k=5, filters={"formal": True})
        i = st.search_dense("minilm_l6_v2_slogan", v, k=5, filters={"formal": False})
        res.append({"q": r["query"], "f": [h.score for h in f], "i": [h.score for h in i], "rel": r.get("relevant")})
    out[name] = res
    g = [x["f"][0] - x["i"][0] for x in res]
    print(name, "gap top1 mean %.3f median %.3f share>0 %.2f" % (statistics.mean(g), statistics.median(g), sum(x > 0 for x in g) / len(g)))
json.dump(out, open(sys.argv[1], "w"))
