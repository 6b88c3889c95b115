"""Time per query of the default and c730b0d's ranking (rank fusion, flat formula weight, depth 50), the Stacks
slogans and the research dev set, side by side, three passes, the median of each query's passes (section 9)."""
import sys, time, statistics
from pathlib import Path
sys.path.insert(0, 'benchmarks/experiments/2026-12-06-research-panel')
from variants import SETS, variant_setup, patched
from theorem_rag.config import Settings
from theorem_rag.search import TheoremSearch
from theorem_rag.eval.queries import load_queries
base = TheoremSearch.from_settings(Settings())
setups = {v: variant_setup(v, base) for v in ["default", "fusion=ranks+formula-flat+depth=50"]}
sets = {n: [q.query for q in load_queries(SETS[n][0])] for n in ["stacks_slogans_dev", "research_dev"]}
for v, (s, p) in setups.items():
    with patched(p):
        for qs in sets.values():
            for q in qs[:5]: s.search(q, k=20)
res = {}
for rep in range(3):
    for n, qs in sets.items():
        for v, (s, p) in setups.items():
            with patched(p):
                for i, q in enumerate(qs):
                    t0 = time.perf_counter(); s.search(q, k=20)
                    res.setdefault((v, n, i), []).append(time.perf_counter() - t0)
for v in setups:
    for n in sets:
        per = [statistics.median(res[(v, n, i)]) for i in range(len(sets[n]))]
        print(f"{v:40s} {n:20s} mean of per-query medians {1000*statistics.fmean(per):.1f} ms, median {1000*statistics.median(per):.1f} ms")
