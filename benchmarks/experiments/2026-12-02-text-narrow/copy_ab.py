"""What a ``COPY`` of statements costs per row with schema 13's triggers (the full-text vector a generated column of
the statements table) against schema 14's (the vector computed by the statement trigger into the narrow text
table), in one throwaway server, alternating; secondary indexes dropped as the bulk load drops them.

    python benchmarks/experiments/2026-12-02-text-narrow/copy_ab.py RECORDS_DIR N_RECORDS ROUNDS old,new [N_ROWS]

N_ROWS > N_RECORDS repeats the records under new ids. Schema 13's trigger functions are rebuilt from the same
pieces its migration wrote (the lexicon from the statements' transition table, then the counts).
"""

import dataclasses
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import psycopg
from psycopg import sql

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_scale  # noqa: E402

from theorem_rag.db import counters, table_sql  # noqa: E402
from theorem_rag.db.schema import migrate  # noqa: E402
from theorem_rag.db.table_names import Names  # noqa: E402
from theorem_rag.records import Theorem  # noqa: E402

records, n_records, rounds, labels = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4].split(",")
with open(records / "theorems.jsonl") as f:
    recs = [Theorem(**json.loads(line)) for line, _ in zip(f, range(n_records))]
want = int(sys.argv[5]) if len(sys.argv) > 5 else len(recs)
recs = [recs[i % len(recs)] if i < len(recs) else dataclasses.replace(recs[i % len(recs)], id=f"{recs[i % len(recs)].id}~{i // len(recs)}")
        for i in range(want)]  # fmt: skip
rows = [table_sql.theorem_row(t) for t in recs]
data = Path(tempfile.mkdtemp(prefix="copy_ab_"))
server, dsn, _, _ = bench_scale.start_server(data, {"shared_buffers": "1GB"})


def setup(prefix: str, old: bool) -> Names:
    n = Names(prefix)
    with psycopg.connect(dsn, autocommit=True) as conn:
        migrate(conn, prefix, target=13 if old else None)
        if old:
            for fn, plus, minus in [("stats_ins", True, False), ("stats_upd", True, True), ("stats_del", False, True)]:
                body = sql.SQL(" ").join([counters._lexeme_delta(n, plus, minus), counters._key_delta(n, plus, minus)])
                conn.execute(counters._function(counters._fn(n, fn), body))
        for table in (n.theorems, n.text):
            for (index,) in conn.execute(
                "SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = "
                "to_regclass(%s) AND NOT i.indisprimary AND c.relname <> %s", [table, f"{n.theorems}_doc"]).fetchall():
                conn.execute(sql.SQL("DROP INDEX {}").format(sql.Identifier(index)))
    return n


def load(n: Names, batch: int = 1000) -> float:
    cols = sql.SQL(", ").join(map(sql.Identifier, table_sql.WRITE_COLUMNS))
    copy = sql.SQL("COPY {t} ({c}) FROM STDIN").format(t=sql.Identifier(n.theorems), c=cols)
    start = time.perf_counter()
    with psycopg.connect(dsn) as conn:
        for i in range(0, len(rows), batch):
            with conn.transaction(), conn.cursor().copy(copy) as cp:
                for r in rows[i : i + batch]:
                    cp.write_row(r)
    return time.perf_counter() - start


try:
    for rnd in range(rounds):
        for label in labels:
            seconds = load(setup(f"{label}_{rnd}", label == "old"))
            print(f"{label} round {rnd}: {len(rows)} rows {seconds:.2f} s, {1e6 * seconds / len(rows):.0f} us/row", flush=True)
finally:
    server.stop()
    shutil.rmtree(data, ignore_errors=True)
