"""Backend CPU per row of each write of a bulk load, one connection, batches of 20k (after 2 warm-up batches).

    python benchmarks/experiments/2026-12-02-bulk-load-ab/phase_cpu.py SEED_DATA_DIR DATA_DIR   (DATA_DIR is deleted first)
"""
import shutil, sys, time
from pathlib import Path
REPO = Path(__file__).resolve().parents[3]
sys.path[:0] = [str(REPO / "benchmarks"), str(REPO)]
from procs import process_cpu
import bench_scale
from synthetic_corpus import SyntheticCorpus
from theorem_rag.db.store import TheoremStore

from theorem_rag.embed import embed_hash
data = Path(sys.argv[2]); shutil.rmtree(data, ignore_errors=True); data.mkdir(parents=True)
seed = bench_scale.read_seed(Path(sys.argv[1]), bench_scale.SPACE, None)
server, dsn, _, _ = bench_scale.start_server(data, {"shared_buffers": "1GB", "maintenance_work_mem": "2GB"})
store = TheoremStore(dsn, timeout=120, pool_size=1)
store.migrate()
corpus = SyntheticCorpus(seed, 100000)
space = bench_scale.SPACE
store.vector_space(space, corpus.dim, field="slogan", model="m", index=None)
store.defer_indexes()
with store.connection() as conn:
    pid = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
cpu = lambda: process_cpu(pid)
acc = {}
years = {}
for i, b in enumerate(corpus.batches()):
    steps = [("documents", lambda: store.upsert_documents(b.documents)),
             ("theorems", lambda: store.copy_theorems(b.theorems, {x.id: b.slogans[x.id] for x in b.theorems if x.id in b.slogans})),
             ("vectors", lambda: store.copy_vectors(space, b.theorems, b.vectors, [embed_hash(b.slogans[j]) for j in b.ids], {x.doc_id: years[x.doc_id] for x in b.theorems}))]
    years.update((d.id, d.year) for d in b.documents)
    for name, fn in steps:
        c0, w0 = cpu(), time.perf_counter()
        fn()
        if i >= 2:
            a = acc.setdefault(name, [0.0, 0.0, 0]); a[0] += cpu() - c0; a[1] += time.perf_counter() - w0; a[2] += len(b.theorems)
for name, (c, w, n) in acc.items():
    print(f"{name}: backend cpu {c/n*1e6:.0f} us/row, wall {w/n*1e6:.0f} us/row")
store.close(); server.stop()
