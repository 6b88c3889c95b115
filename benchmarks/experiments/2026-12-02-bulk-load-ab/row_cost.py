"""Python time per statement of what the bulk load sends (``sqltext.theorem_row``, its content hash, psycopg's COPY
text), for the code of TREE, over one 20k batch of the synthetic corpus made from the index in SEED_DATA_DIR.

    python benchmarks/experiments/2026-12-02-bulk-load-ab/row_cost.py TREE SEED_DATA_DIR
"""
import sys
import time
from pathlib import Path

tree, seed_dir = Path(sys.argv[1]), Path(sys.argv[2])
sys.path[:0] = [str(tree / "benchmarks"), str(tree)]

import bench_scale  # noqa: E402
from psycopg._copy_base import TextFormatter  # noqa: E402
from psycopg.adapt import Transformer  # noqa: E402
from synthetic_corpus import SyntheticCorpus  # noqa: E402

from theorem_rag.db import table_sql as sqltext  # noqa: E402  (sqltext.py when this ran)

seed = bench_scale.read_seed(seed_dir, bench_scale.SPACE, None)
batch = next(SyntheticCorpus(seed, 20000).batches())
rows = batch.theorems
best = {"theorem_row": 1e9, "content_hash": 1e9, "COPY text": 1e9}
for _ in range(3):
    t = time.perf_counter()
    made = [[*sqltext.theorem_row(x), batch.slogans.get(x.id)] for x in rows]
    best["theorem_row"] = min(best["theorem_row"], time.perf_counter() - t)
    t = time.perf_counter()
    for x in rows:
        x.content_hash
    best["content_hash"] = min(best["content_hash"], time.perf_counter() - t)
    formatter = TextFormatter(Transformer())
    t = time.perf_counter()
    for r in made:
        formatter.write_row(r)
    best["COPY text"] = min(best["COPY text"], time.perf_counter() - t)
print(f"{tree.name}: " + ", ".join(f"{k} {v / len(rows) * 1e6:.1f} us/row" for k, v in best.items())
      + " (theorem_row includes the content hash)")
