"""Bounded load test of the REST API on loopback: N concurrent clients for T seconds, real queries.

Starts ``theorem-rag api`` as a subprocess (the database and table come from THEOREM_RAG_* as usual; the client
runs in this process, so it does not compete with the server for the GIL), or targets ``--url``. Each client
sends ``GET /search`` with queries from an evaluation file in turn and waits for the answer before the next
(closed loop). Prints throughput, latency p50/p95/p99 and the error count; saves JSON to benchmarks/results/.

``--profile`` first times, in this process, where one query's time goes (embedding vs database) over the same
index, single-threaded.

    THEOREM_RAG_DATA_DIR=/tmp/trag python benchmarks/bench_api_load.py --clients 16 --seconds 20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

# The dev sets beside the checkout (../shared/eval), or THEOREM_RAG_EVAL, as scripts/evaluate.sh finds them.
EVAL_DIR = Path(os.environ.get("THEOREM_RAG_EVAL", Path(__file__).resolve().parents[1].parent / "shared" / "eval"))
DEFAULT_QUERIES = str(EVAL_DIR / "stacks_slogans_dev.jsonl")
SERVE = ["-c", "from theorem_rag.cli import main; main()", "api"]  # `theorem-rag api` with this interpreter


def load_queries(path: str, limit: int = 500) -> list[str]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line)["query"] for line in fh if line.strip()][:limit]


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, extra: list[str]) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, *SERVE, "--port", str(port), "--log-level", "warning", *extra],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    deadline = time.monotonic() + 600
    while True:
        if proc.poll() is not None:
            raise SystemExit(f"the API server exited:\n{proc.stderr.read().decode()[-3000:]}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return proc
        if time.monotonic() > deadline:
            proc.kill()
            raise SystemExit("the API server did not start within 600 s")
        time.sleep(0.2)


async def run_load(url: str, queries: list[str], clients: int, seconds: float, k: int, api_key: str | None) -> dict:
    import httpx

    latencies: list[float] = []
    errors: dict[str, int] = {}
    headers = {"X-API-Key": api_key} if api_key else {}
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits, headers=headers) as http:
        await http.get("/search", params={"q": queries[0], "k": k})  # connection and model warm
        stop = time.perf_counter() + seconds

        async def client(i: int) -> None:
            n = i
            while time.perf_counter() < stop:
                q = queries[n % len(queries)]
                n += clients
                t0 = time.perf_counter()
                try:
                    r = await http.get("/search", params={"q": q, "k": k})
                    ok = r.status_code == 200 and len(r.json()["results"]) > 0
                    key = None if ok else f"HTTP {r.status_code}"
                except httpx.HTTPError as err:
                    key = type(err).__name__
                if key is None:
                    latencies.append(time.perf_counter() - t0)
                else:
                    errors[key] = errors.get(key, 0) + 1

        t0 = time.perf_counter()
        await asyncio.gather(*(client(i) for i in range(clients)))
        wall = time.perf_counter() - t0
    ms = [x * 1000 for x in latencies]
    return {
        "clients": clients, "seconds": round(wall, 2), "requests": len(ms), "errors": sum(errors.values()),
        "error_kinds": errors, "throughput_rps": round(len(ms) / wall, 2),
        "p50_ms": round(percentile(ms, 50), 1) if ms else None, "p95_ms": round(percentile(ms, 95), 1) if ms else None,
        "p99_ms": round(percentile(ms, 99), 1) if ms else None, "mean_ms": round(statistics.fmean(ms), 1) if ms else None,
    }  # fmt: skip


def profile(queries: list[str], k: int, n: int = 40) -> dict:
    """Single-threaded split of one search into embedding and the rest (database: dense, full-text, hydrate)."""
    import torch

    from theorem_rag.search import TheoremSearch

    torch.set_num_threads(1)
    search = TheoremSearch.from_settings()
    try:
        search.search(queries[0], k=k)
        embed, total = [], []
        for q in queries[:n]:
            t0 = time.perf_counter()
            search.embedder.embed_queries([q])
            t1 = time.perf_counter()
            search.search(q, k=k)
            t2 = time.perf_counter()
            embed.append((t1 - t0) * 1000)
            total.append((t2 - t1) * 1000)
        batch = [queries[i % len(queries)] for i in range(16)]
        t0 = time.perf_counter()
        search.embedder.embed_queries(batch)
        batch_ms = (time.perf_counter() - t0) * 1000
    finally:
        search.close()
    med_e, med_t = statistics.median(embed), statistics.median(total)
    return {"queries": len(embed), "embed_ms_p50": round(med_e, 1), "search_ms_p50": round(med_t, 1),
            "database_ms_p50": round(med_t - med_e, 1), "embed_batch16_ms": round(batch_ms, 1)}  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--url", help="Target a running API instead of starting one.")
    p.add_argument("--clients", type=int, nargs="+", default=[16], help="Concurrent clients (several: one run each).")
    p.add_argument("--seconds", type=float, default=20.0, help="Duration of each run (at most 120).")
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--queries", default=DEFAULT_QUERIES, help="JSON Lines with a 'query' field.")
    p.add_argument("--server-args", default="", help="Extra flags for `theorem-rag api`, e.g. '--search-threads 2'.")
    p.add_argument("--profile", action="store_true", help="Time embedding vs database for single queries first.")
    p.add_argument("--label", default="", help="A note saved with the results (which index, which machine).")
    p.add_argument("--out", default=str(Path(__file__).parent / "results"))
    args = p.parse_args()
    if not 1 <= args.seconds <= 120 or not all(1 <= c <= 256 for c in args.clients):
        raise SystemExit("bounded runs only: 1-120 seconds, 1-256 clients")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    queries = load_queries(args.queries)
    result: dict = {"label": args.label, "k": args.k, "queries_file": args.queries, "server_args": args.server_args,
                    "cpus": os.cpu_count(), "load_avg_before": os.getloadavg(), "python": platform.python_version()}  # fmt: skip
    if args.profile:
        result["profile"] = profile(queries, args.k)
        print("profile (single thread):", json.dumps(result["profile"]))
    proc = None
    url = args.url
    if url is None:
        port = free_port()
        proc = start_server(port, args.server_args.split())
        url = f"http://127.0.0.1:{port}"
    try:
        result["runs"] = []
        for clients in args.clients:
            cpu0, own0 = (process_cpu_seconds(proc.pid) if proc else 0.0), time.process_time()
            run = asyncio.run(run_load(url, queries, clients, args.seconds, args.k, os.environ.get("THEOREM_RAG_API_KEY")))
            # CPU per request in the API process (Python, model) and in this load generator; the rest of a
            # request's CPU is PostgreSQL's. With several tenants on the machine, these say more than wall times.
            if proc and run["requests"]:
                run["server_cpu_ms_per_request"] = round((process_cpu_seconds(proc.pid) - cpu0) * 1000 / run["requests"], 2)
            run["client_cpu_ms_per_request"] = round((time.process_time() - own0) * 1000 / max(run["requests"], 1), 2)
            result["runs"].append(run)
            print(f"{clients:3d} clients x {run['seconds']:.0f}s: {run['requests']} ok, {run['errors']} errors "
                  f"{run['error_kinds'] or ''}; {run['throughput_rps']} req/s; p50 {run['p50_ms']} ms, "
                  f"p95 {run['p95_ms']} ms, p99 {run['p99_ms']} ms; CPU per request: server "
                  f"{run.get('server_cpu_ms_per_request')} ms, client {run['client_cpu_ms_per_request']} ms")  # fmt: skip
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(30)
    result["load_avg_after"] = os.getloadavg()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"api_load_{time.strftime('%Y%m%d_%H%M%S')}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"saved {path}")


if __name__ == "__main__":
    main()
