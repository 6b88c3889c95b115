"""Measurement helper: bring an index that the previous version built *from scratch* to the new slogan and vector
keys, re-embedding only the statements whose slogan changes, then print the build report.

Only for a fresh build of the previous version, on your own table prefix: there every slogan vector was embedded
from the slogan stored beside it, so its new key (the hash of that text) is known without embedding it again. An
index that lived through edits may hold stale vectors (the bug the new keys fix); rebuild that one instead.

    THEOREM_RAG_TABLE=mine python benchmarks/rekey_fresh_slogan_index.py /work/main/data/records
"""

from __future__ import annotations

import sys
import time

from psycopg import sql

from theorem_rag.config import Settings
from theorem_rag.embed import embed_hash, embed_text_for
from theorem_rag.ingest import build_index
from theorem_rag.record_files import read_records
from theorem_rag.search import TheoremSearch
from theorem_rag.slogans import OfflineSloganWriter, write_slogans
from theorem_rag.slogans.cache import StoreSloganCache


def main(records_dir: str) -> None:
    search = TheoremSearch.from_settings(Settings())
    store, space = search.store, search.space
    records = read_records(records_dir)
    by_id = {t.id: t for t in records.theorems}
    stored = sql.SQL("SELECT id, slogan FROM {t}").format(t=sql.Identifier(store.names.theorems))
    with store.connection() as conn:
        old = dict(conn.execute(stored).fetchall())
    t0 = time.perf_counter()
    run = write_slogans(records.theorems, OfflineSloganWriter(), StoreSloganCache(store),
                        documents={d.id: d for d in records.documents}, progress=False)  # fmt: skip
    changed = sum(1 for tid, slogan in run.slogans.items() if old.get(tid) != slogan)
    print(f"slogans: {run.stats.summary()}; {changed} differ from the index's", flush=True)
    store.set_slogans(run.slogans)  # drops the slogan vectors of the changed ones
    with store.connection() as conn, conn.transaction():
        rows = conn.execute(stored).fetchall()
        keys = [embed_hash(embed_text_for(by_id[tid], slogan, "slogan"), search.embedder.doc_instruction)
                for tid, slogan in rows]  # fmt: skip
        rekey = sql.SQL("UPDATE {v} AS v SET content_hash = u.h FROM unnest(%s::text[], %s::text[]) AS u(id, h) "
                        "WHERE v.theorem_id = u.id").format(v=sql.Identifier(store.names.vectors(space)))  # fmt: skip
        n = conn.execute(rekey, [[tid for tid, _ in rows], keys]).rowcount
    print(f"re-keyed {n} vectors in {space}", flush=True)
    report = build_index(store, search.embedder, records.theorems, records.documents, writer=OfflineSloganWriter(),
                         space=space, field="slogan", progress=False)  # fmt: skip
    print(report.summary(), f"; total {time.perf_counter() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
