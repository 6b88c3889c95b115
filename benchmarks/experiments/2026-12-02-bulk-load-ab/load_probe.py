"""``load_ab.py`` with what it leaves out: storage changes and server settings for one load, and what the load
wrote to temporary files and to the WAL, and the database's size after it (issue 10, 2026-12-05).

    ALTERS="ALTER TABLE T. ALTER COLUMN formula_keys SET STORAGE EXTERNAL" \\
        python benchmarks/experiments/2026-12-02-bulk-load-ab/load_probe.py TREE N WRITERS DATA_DIR SEED_DATA_DIR [k=v,k=v]

``ALTERS``: statements (``;``-separated) run after the migrations, ``T.`` standing for the statements table; the
last argument: server settings (``work_mem=256MB``). DATA_DIR is deleted first.
"""

import os
import resource
import shutil
import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[2])]  # benchmarks/, for procs
from procs import postgres_cpu  # noqa: E402

tree, n, writers, data = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4])
seed_dir = Path(sys.argv[5])
extra = dict(kv.split("=", 1) for kv in sys.argv[6].split(",")) if len(sys.argv) > 6 and sys.argv[6] else {}
sys.path[:0] = [str(tree / "benchmarks"), str(tree)]

import bench_scale  # noqa: E402
import psycopg  # noqa: E402
from synthetic_corpus import SyntheticCorpus, load_corpus  # noqa: E402

from theorem_rag.db.store import TheoremStore  # noqa: E402

shutil.rmtree(data, ignore_errors=True)
data.mkdir(parents=True)
seed = bench_scale.read_seed(seed_dir, bench_scale.SPACE, None)
server, dsn, got, _ = bench_scale.start_server(data, {"shared_buffers": "1GB", "maintenance_work_mem": "2GB", **extra})
print("settings", got)
store = TheoremStore(dsn, timeout=120, pool_size=4)
store.migrate()
alters = [a for a in os.environ.get("ALTERS", "").split(";") if a.strip()]
with psycopg.connect(dsn, autocommit=True) as c:
    for a in alters:
        c.execute(a.replace("T.", store.names.theorems + " "))


def stats():
    with psycopg.connect(dsn, autocommit=True) as c:
        t = c.execute("SELECT temp_files, temp_bytes FROM pg_stat_database "
                      "WHERE datname = current_database()").fetchone()
        w = c.execute("SELECT wal_records, wal_fpi, wal_bytes FROM pg_stat_wal").fetchone()
    return t, w


def own():
    return sum(resource.getrusage(resource.RUSAGE_SELF)[:2])


s0 = stats()
pg0, py0 = postgres_cpu(), own()
report = load_corpus(store, SyntheticCorpus(seed, n), bench_scale.SPACE, model="m", build_indexes=False,
                     progress=False, writers=writers)  # fmt: skip
pg_us, py_us = ((postgres_cpu() - pg0) / n * 1e6, (own() - py0) / n * 1e6)
time.sleep(1)
s1 = stats()
print(f"RESULT tree={tree.name} extra={sys.argv[6] if len(sys.argv) > 6 else ''} "
      f"alters={os.environ.get('ALTERS', '')[:60]} rows/s={report.rows_per_second:,.0f} "
      f"load={report.load_seconds:.1f}s "
      f"python={py_us:.0f} postgres={pg_us:.0f} temp_files={s1[0][0] - s0[0][0]} "
      f"temp_MB={(s1[0][1] - s0[0][1]) / 2**20:.0f} wal_records={s1[1][0] - s0[1][0]} wal_fpi={s1[1][1] - s0[1][1]} "
      f"wal_MB={(int(s1[1][2]) - int(s0[1][2])) / 2**20:.0f}")
with psycopg.connect(dsn, autocommit=True) as c:
    print("DBSIZE_MB", c.execute("SELECT pg_database_size(current_database()) / 1048576").fetchone()[0], "theorems_MB",
          c.execute("SELECT pg_table_size(%s) / 1048576", [store.names.theorems]).fetchone()[0])
print("SECS", {k: round(v, 1) for k, v in report.seconds.items()})
store.close()
server.stop()
