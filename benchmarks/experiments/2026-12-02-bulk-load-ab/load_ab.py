"""The bulk load alone (no index builds) of N synthetic statements, with the code of a given tree: for side-by-side
comparisons of two versions of the load in one sitting (``bench_scale.py`` builds and queries too).

    python benchmarks/experiments/2026-12-02-bulk-load-ab/load_ab.py TREE N WRITERS DATA_DIR [SEED_DATA_DIR]

TREE is a checkout of this repository (a worktree of another commit); WRITERS 0 calls ``load_corpus`` without the
argument (for code older than it). Prints one RESULT line, with the CPU the load took per row in this process
(making the batches included) and in the server's processes (Linux: read from /proc), then one RESTORE line: the
wall and server CPU time of what the load left for its end (``restore_indexes``: the deferred indexes and the
lexicon's count); DATA_DIR is deleted first.
"""

import os
import resource
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # benchmarks/ of this checkout: older trees lack procs
from procs import postgres_cpu  # noqa: E402

tree, n, writers, data = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4])
seed_dir = Path(sys.argv[5]) if len(sys.argv) > 5 else Path(os.environ["THEOREM_RAG_DATA_DIR"])
sys.path[:0] = [str(tree / "benchmarks"), str(tree)]

import bench_scale  # noqa: E402
from synthetic_corpus import SyntheticCorpus, load_corpus  # noqa: E402

from theorem_rag.db.store import TheoremStore  # noqa: E402

shutil.rmtree(data, ignore_errors=True)
data.mkdir(parents=True)
seed = bench_scale.read_seed(seed_dir, bench_scale.SPACE, None)
server, dsn, _, _ = bench_scale.start_server(data, {"shared_buffers": "1GB", "maintenance_work_mem": "2GB"})
store = TheoremStore(dsn, timeout=120, pool_size=4)
store.migrate()


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


start_load = os.getloadavg()[0]
pg0, py0 = postgres_cpu(), own_cpu()
report = load_corpus(store, SyntheticCorpus(seed, n), bench_scale.SPACE, model="m", build_indexes=False,
                     progress=False, **({"writers": writers} if writers else {}))  # fmt: skip
pg_us, py_us = ((postgres_cpu() - pg0) / n * 1e6, (own_cpu() - py0) / n * 1e6)
print(f"RESULT tree={tree.name} writers={writers or 'old'} rows/s={report.rows_per_second:,.0f} "
      f"theorems={report.seconds['theorems']:.1f}s load={report.load_seconds:.1f}s loadavg_start={start_load:.2f} "
      f"cpu_us/row: python={py_us:.0f} (batches made included) postgres={pg_us:.0f}")
# What the load left for its end: the deferred indexes (and, since the lexicon is deferred too, its count), built
# as a build does; the same builds for every tree, so the difference is what moved out of the load.
pg0, t0 = postgres_cpu(), time.perf_counter()
built = store.restore_indexes(maintenance_work_mem="2GB")
print(f"RESTORE tree={tree.name} seconds={time.perf_counter() - t0:.1f} postgres_cpu={postgres_cpu() - pg0:.1f}s "
      f"built={len(built)} lexicon_deferred={store.names.lexicon in built}")
store.close()
server.stop()
