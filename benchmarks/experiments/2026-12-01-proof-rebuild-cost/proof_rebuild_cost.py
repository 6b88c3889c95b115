"""What re-indexing costs when records gain their proofs: build the index from OLD records, then from NEW ones.

Both builds run on an embedded PostgreSQL of their own in a temporary folder, with the offline slogan writer and
the bundled MiniLM. The second build's report says how many statements were rewritten, how many slogans were
written again and how many vectors embedded again: slogans and vectors are keyed on exactly what they read, which
a proof does not change, so both should be 0.

    python benchmarks/experiments/2026-12-01-proof-rebuild-cost/proof_rebuild_cost.py OLD_RECORDS NEW_RECORDS [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--json", dest="json_out")
    args = parser.parse_args()

    from theorem_rag.db.server import EmbeddedServer
    from theorem_rag.db.store import TheoremStore
    from theorem_rag.db.table_names import space_name
    from theorem_rag.embed import Embedder
    from theorem_rag.indexing.ingest import build_index
    from theorem_rag.record_files import read_records
    from theorem_rag.slogans.offline import OfflineSloganWriter

    folder = Path(tempfile.mkdtemp(prefix="trag-proof-cost-"))
    server = EmbeddedServer(folder / "pg")
    server.start()
    out: dict = {"old": args.old, "new": args.new, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                 "load_average": os.getloadavg()}  # fmt: skip
    try:
        store = TheoremStore(server.dsn("postgres"), table="proofcost")
        embedder = Embedder()
        space = space_name(embedder.model_name, "slogan")
        for step in ("old", "new"):
            records = read_records(getattr(args, step))
            with_proof = sum(1 for t in records.theorems if t.proof)
            start = time.perf_counter()
            report = build_index(store, embedder, records.theorems, records.documents, writer=OfflineSloganWriter(),
                                 space=space, progress=False)  # fmt: skip
            seconds = time.perf_counter() - start
            out[step] = {"statements": len(records.theorems), "with_proof": with_proof, "seconds": round(seconds, 1),
                         **{k: v for k, v in asdict(report).items() if isinstance(v, int | str)}}  # fmt: skip
            print(step, json.dumps(out[step]))
        store.close()
    finally:
        server.stop()
        server.release()
        shutil.rmtree(folder, ignore_errors=True)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
