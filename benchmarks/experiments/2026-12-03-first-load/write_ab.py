"""A build's statement write into an empty index, both ways in turn: ``upsert_theorems`` (what ``index build``
used) and ``write_theorems`` (the bulk path on an empty index: indexes dropped, one COPY, indexes built again).

    python write_ab.py RECORDS_DIR SCRATCH_DATA_DIR [ROUNDS [BATCH]]
    python write_ab.py synthetic:N:SEED_DATA_DIR SCRATCH_DATA_DIR [ROUNDS]   # N statements made by the scale
                                                                             # benchmark from a built index

Each run writes every statement of RECORDS_DIR into fresh tables (a new table prefix) of an embedded server in
SCRATCH_DATA_DIR (deleted first); prints the seconds of each and checks the two give the same rows. With BATCH,
both ways write batches of that many statements, as the Ray build's writers do: ``upsert_theorems`` per batch (what
they did) against ``begin_first_load``, ``write_first_load`` per batch and ``restore_indexes`` (what they do now).
"""

import shutil
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench_scale import start_server  # noqa: E402

from theorem_rag.db.store import TheoremStore  # noqa: E402
from theorem_rag.record_files import read_records  # noqa: E402

source, data = sys.argv[1], Path(sys.argv[2])
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 2
batch = int(sys.argv[4]) if len(sys.argv) > 4 else 0
if source.startswith("synthetic:"):
    import bench_scale
    from synthetic_corpus import SyntheticCorpus

    _, n, seed_dir = source.split(":", 2)
    seed = bench_scale.read_seed(Path(seed_dir), bench_scale.SPACE, None)
    theorems = [t for batch in SyntheticCorpus(seed, int(n)).batches() for t in batch.theorems]
else:
    theorems = read_records(Path(source)).theorems
shutil.rmtree(data, ignore_errors=True)
data.mkdir(parents=True)
server, dsn, _, _ = start_server(data, {"shared_buffers": "1GB", "maintenance_work_mem": "1GB"})
stores = {}
try:
    for r in range(rounds):
        for way in ("upsert_theorems", "write_theorems")[:: 1 if r % 2 == 0 else -1]:
            store = TheoremStore(dsn, table=f"t_{uuid.uuid4().hex[:8]}", timeout=600)
            store.migrate()
            t = time.perf_counter()
            if not batch:
                counts = getattr(store, way)(theorems)
            elif way == "upsert_theorems":
                counts = [store.upsert_theorems(theorems[i : i + batch]) for i in range(0, len(theorems), batch)][-1]
            else:
                assert store.begin_first_load([t.id for t in theorems])
                counts = [store.write_first_load(theorems[i : i + batch]) for i in range(0, len(theorems), batch)][-1]
                store.restore_indexes()
            label = way if not batch else f"{'upsert_theorems' if way == 'upsert_theorems' else 'first load'} per {batch}"
            print(f"round {r + 1} {label}: {time.perf_counter() - t:.1f} s, {counts}", flush=True)
            stores[way] = store
    sample = [t.id for t in theorems[:: max(1, len(theorems) // 500)]]
    a, b = stores["upsert_theorems"], stores["write_theorems"]
    print("same rows (sample of", len(sample), "):", a.get_theorems(sample) == b.get_theorems(sample),
          "| same counts:", a.count() == b.count() == len(theorems))
finally:
    for s in stores.values():
        s.close()
    server.stop()
