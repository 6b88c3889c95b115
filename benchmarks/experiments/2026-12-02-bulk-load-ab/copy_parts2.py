"""Backend CPU of COPYing 20k new statement rows into the 100k-row index of a bulk load, in a transaction rolled back.

    python benchmarks/experiments/2026-12-02-bulk-load-ab/copy_parts2.py DATA_DIR   (the DATA_DIR phase_cpu.py loaded)
"""
import sys, io
from pathlib import Path
REPO = Path(__file__).resolve().parents[3]
sys.path[:0] = [str(REPO / "benchmarks"), str(REPO)]
from procs import process_cpu
import psycopg
from theorem_rag.db.server import EmbeddedServer

from theorem_rag.db import table_sql
server = EmbeddedServer(Path(sys.argv[1]) / "pg")
dsn = server.dsn("theorem_rag")
collist = ", ".join([*table_sql.WRITE_COLUMNS, "slogan"])
with psycopg.connect(dsn, autocommit=True) as conn:
    buf = io.BytesIO()
    with conn.cursor().copy(f"COPY (SELECT {collist} FROM theorems ORDER BY id LIMIT 20000) TO STDOUT") as cp:
        for chunk in cp: buf.write(chunk)
    print(conn.execute("SELECT count(*), (SELECT count(*) FROM theorems_lexicon) FROM theorems").fetchone())
data = b"z" + buf.getvalue().rstrip(b"\n").replace(b"\n", b"\nz") + b"\n"
def run(label, prep, reps=3):
    res = []
    with psycopg.connect(dsn) as conn:
        pid = conn.execute("SELECT pg_backend_pid()").fetchone()[0]; conn.rollback()
        for r in range(reps):
            for q in prep: conn.execute(q)
            c0 = process_cpu(pid)
            with conn.cursor().copy(f"COPY theorems ({collist}) FROM STDIN") as cp:
                cp.write(data)
            res.append(process_cpu(pid) - c0)
            conn.rollback()
    print(f"{label}: {min(res)/20000*1e6:.0f} us/row (runs {', '.join(f'{x/20000*1e6:.0f}' for x in res)})")
run("triggers on", [])
run("text table triggers off (lexicon)", ["ALTER TABLE theorems_text DISABLE TRIGGER USER"])
run("statement triggers off", ["ALTER TABLE theorems DISABLE TRIGGER USER"])
run("triggers on", [])
server.stop()
