"""Library search time as at d520b15 and now, interleaved query by query in one process on one index: every dev
query of the panel that the index can answer (at most 400 a set), k=10, two warm-up passes over 20 queries first.
The store's look-ups and rankings are timed per call as well.

"before" runs d520b15's SQL for the definition look-up (labels by trigrams) and for the formula keys' counts
(each key's statements counted through the GIN index, up to 2,000), and the formula ranking and the full-text query
of a second text after the dense side; "now": migration 24's index of the term a label defines, migration 25's
maintained counts, the formula ranking and every text's full-text query beside the dense side. Both rank the same (the script counts the queries whose first 10 differ).

    THEOREM_RAG_DATA_DIR=<index> python benchmarks/experiments/2026-12-07-definition-lookup/latency.py OUT.json [SET...]
"""
import importlib.util, json, statistics, subprocess, sys, time
from concurrent.futures import Future
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(HERE.parent / "2026-12-06-research-panel"))
from variants import LATEX_SETS, SETS
from theorem_rag.db import lexical_sql, lookup
from theorem_rag.retrieval import retriever
from theorem_rag.eval.queries import load_queries
from theorem_rag.query_understanding.plan import understand
from theorem_rag.search import TheoremSearch

BEFORE = "d520b15"


def module_before(path):
    """The module at ``path`` as it was at BEFORE."""
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{BEFORE}:{path}"], capture_output=True, text=True,
                            check=True).stdout
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(Path(path).stem + "_before", loader=None))
    sys.modules[module.__name__] = module  # what its dataclasses look their module up in
    exec(compile(source, path, "exec"), module.__dict__)
    return module


lookup_sql_before = module_before("theorem_rag/db/lookup_sql.py")
lookup_sql_now = lookup.lookup_sql
key_counts_before = module_before("theorem_rag/db/lexical_sql.py").formula_key_counts
key_counts_now = lexical_sql.formula_key_counts

search = TheoremSearch.from_settings()
store = search.store
sets = sys.argv[2:] or [*LATEX_SETS, *(("mathlib_dev", "mathlib_titles_dev") if store.count_formal() else ())]
queries = [(name, q.query) for name in sets for q in load_queries(SETS[name][0])[:400]]
stages = ("definitions_named", "names_ending", "search_dense", "search_text", "search_formula", "exact_search")
calls = {v: {s: [] for s in stages} for v in ("before", "now")}
current = ["now"]


def timed(name):
    inner = getattr(store, name)

    def wrapper(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            calls[current[0]][name].append((time.perf_counter() - t0) * 1000)

    wrapper.stage = name
    setattr(store, name, wrapper)


for name in stages:
    if hasattr(store, name):
        timed(name)


in_background = retriever.in_background


texts_started = [0]


def background_as_before(fn, *args, **kwargs):
    """d520b15 ran the formula ranking, and the full-text query of every text but the first, after the dense side:
    here, before it (the same time, in the same thread)."""
    stage = getattr(fn, "stage", None)
    if stage == "search_text":
        texts_started[0] += 1
    if current[0] == "before" and (stage == "search_formula" or (stage == "search_text" and texts_started[0] > 1)):
        done = Future()
        done.set_result(fn(*args, **kwargs))
        return done
    return in_background(fn, *args, **kwargs)


retriever.in_background = background_as_before


def run(variant, q):
    current[0] = variant
    texts_started[0] = 0
    lookup.lookup_sql = lookup_sql_before if variant == "before" else lookup_sql_now
    lexical_sql.formula_key_counts = key_counts_before if variant == "before" else key_counts_now
    t0 = time.perf_counter()
    hits = search.search(q, k=10)
    return (time.perf_counter() - t0) * 1000, [h.theorem_id for h in hits]


for _ in range(2):
    for _, q in queries[:20]:
        for v in ("before", "now"):
            run(v, q)
calls = {v: {s: [] for s in stages} for v in ("before", "now")}
times = {"before": [], "now": []}
kinds, differ = [], 0
for i, (name, q) in enumerate(queries):
    got = {}
    for v in (("before", "now") if i % 2 == 0 else ("now", "before")):
        ms, got[v] = run(v, q)
        times[v].append(ms)
    differ += got["before"] != got["now"]
    kinds.append({"set": name, "formula": bool(understand(q).formula)})


def summary(values):
    values = sorted(values)
    if not values:
        return {"n": 0}
    return {"n": len(values), "p50": round(statistics.median(values), 1),
            "p95": round(values[int(0.95 * (len(values) - 1))], 1), "mean": round(statistics.fmean(values), 2)}


out = {"index statements": store.count(), "sets": sets, "queries": len(queries),
       "queries whose first 10 differ": differ}
for v, ts in times.items():
    out[v] = {"all": summary(ts), "formula": summary([t for t, k in zip(ts, kinds) if k["formula"]]),
              "not formula": summary([t for t, k in zip(ts, kinds) if not k["formula"]]),
              "per call (ms)": {s: summary(c) for s, c in calls[v].items() if c}}
    for name in sets:
        out[v].setdefault("by set", {})[name] = summary([t for t, k in zip(ts, kinds) if k["set"] == name])
print(json.dumps(out, indent=1))
json.dump(out, open(sys.argv[1], "w"), indent=1)
