"""Bounded load test of the REST API and of MCP over streamable HTTP on loopback: N concurrent clients, real queries.

Starts ``theorem-rag api`` (REST) and/or ``theorem-rag mcp --transport http`` as subprocesses (the database and
table come from THEOREM_RAG_* as usual; the clients run in this process, so they do not compete with the server
for the GIL), or targets ``--url``. Each client sends searches with queries from an evaluation file in turn and
waits for the answer before the next (closed loop): REST ``GET /search``, MCP a ``tools/call`` of
``search_theorems`` in its own session (JSON-RPC over HTTP, as an MCP client sends it). A refusal (REST 503/429,
MCP a "busy" tool error) is counted apart from errors, with its own latency, and the client waits its
``Retry-After`` before the next request, as a well-behaved client does (``--ignore-retry-after``: it does not).

Before and after, side by side: ``--variant before=/tmp/serve-before --variant after=.`` runs each variant's
server from that checkout (PYTHONPATH) and alternates the variants for every client count and round, so both see
the same machine load. Prints throughput, latency p50/p95/p99, refusals and errors; saves JSON and a Markdown
table as ``api_load_<date>/api_load_<date>_<time>.{json,md}`` under benchmarks/results/ (``--out``: another folder).

``--profile`` first times, in this process, where one query's time goes (embedding vs database) over the same
index, single-threaded.

    THEOREM_RAG_DATA_DIR=/tmp/trag python benchmarks/bench_api_load.py --clients 1 16 64 --seconds 20 --protocol rest mcp
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import platform
import shlex
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from procs import tree_cpu  # noqa: E402


def shared_eval_file(name: str = "stacks_slogans_dev.jsonl") -> Path:
    """A dev query set: ``$THEOREM_RAG_SHARED/eval/<name>``, else ``shared/eval/<name>`` beside the repository or
    beside one of its parents (``../shared/eval`` for a clone next to the shared data, as CI lays it out)."""
    if os.environ.get("THEOREM_RAG_SHARED"):
        return Path(os.environ["THEOREM_RAG_SHARED"]) / "eval" / name
    for parent in REPO.parents:
        if (parent / "shared" / "eval" / name).is_file():
            return parent / "shared" / "eval" / name
    return REPO.parent / "shared" / "eval" / name


# `theorem-rag api` / `theorem-rag mcp` with this interpreter
SERVE = {"rest": ["-c", "from theorem_rag.cli import main; main()", "api"],
         "mcp": ["-c", "from theorem_rag.cli import main; main()", "mcp", "--transport", "http"]}  # fmt: skip
MCP_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
MCP_PROTOCOL = "2025-06-18"


def load_queries(path: str | Path, limit: int = 500) -> list[str]:
    if not Path(path).is_file():
        raise SystemExit(f"no query file at {path}: pass --queries, or set THEOREM_RAG_SHARED to the shared data")
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line)["query"] for line in fh if line.strip()][:limit]


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, extra: list[str], protocol: str = "rest", root: Path = REPO) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(root)}
    # A file, not a pipe: a server that logs every request would fill a pipe nobody reads and stall.
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen([sys.executable, *SERVE[protocol], "--port", str(port), *extra], cwd=root, env=env,
                            stdout=subprocess.DEVNULL, stderr=log)  # fmt: skip
    deadline = time.monotonic() + 600
    while True:
        if proc.poll() is not None:
            log.seek(0)
            raise SystemExit(f"the {protocol} server exited:\n{log.read().decode()[-3000:]}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return proc
        if time.monotonic() > deadline:
            proc.kill()
            raise SystemExit("the server did not start within 600 s")
        time.sleep(0.2)


@dataclass
class Tally:
    """What the clients of one run saw: latencies of answers, of refusals, and errors by kind."""

    ok: list[float] = field(default_factory=list)
    refused: list[float] = field(default_factory=list)
    refused_kinds: dict[str, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    # The app's own time for each answer and refusal (REST's Server-Timing), where the response carries it.
    ok_server: list[float] = field(default_factory=list)
    refused_server: list[float] = field(default_factory=list)

    def add(self, kind: str | None, seconds: float, refused: bool = False, server_ms: float | None = None) -> None:
        if kind is None:
            self.ok.append(seconds)
        elif refused:
            self.refused.append(seconds)
            self.refused_kinds[kind] = self.refused_kinds.get(kind, 0) + 1
        else:
            self.errors[kind] = self.errors.get(kind, 0) + 1
        if server_ms is not None and (kind is None or refused):
            (self.ok_server if kind is None else self.refused_server).append(server_ms)


def _server_ms(headers) -> float | None:
    """The app's time from ``Server-Timing: app;dur=<ms>``, or None."""
    value = headers.get("server-timing") or ""
    try:
        return float(value.split("app;dur=", 1)[1].split(",", 1)[0]) if "app;dur=" in value else None
    except ValueError:
        return None


def _retry_after(value: str | None) -> float:
    try:
        return max(0.0, float(value or 1))
    except ValueError:
        return 1.0


async def _rest_client(http, queries, i, clients, stop, k, tally: Tally, honor_retry: bool) -> None:
    import httpx

    n = i
    while time.perf_counter() < stop:
        q = queries[n % len(queries)]
        n += clients
        t0 = time.perf_counter()
        wait = 0.0
        try:
            r = await http.get("/search", params={"q": q, "k": k})
            if r.status_code == 200 and len(r.json()["results"]) > 0:
                tally.add(None, time.perf_counter() - t0, server_ms=_server_ms(r.headers))
            elif r.status_code in (429, 503) and "retry-after" in r.headers:
                tally.add(f"HTTP {r.status_code} {r.json().get('error')}", time.perf_counter() - t0, refused=True,
                          server_ms=_server_ms(r.headers))  # fmt: skip
                wait = _retry_after(r.headers["retry-after"]) if honor_retry else 0.0
            else:
                tally.add(f"HTTP {r.status_code}", time.perf_counter() - t0)
        except httpx.HTTPError as err:
            tally.add(type(err).__name__, time.perf_counter() - t0)
        if wait:
            await asyncio.sleep(min(wait, max(0.0, stop - time.perf_counter())))


def _mcp_message(r) -> dict:
    """The JSON-RPC message of a streamable HTTP answer: plain JSON, or the last ``data:`` event of an SSE body."""
    if r.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in r.text.splitlines() if line.startswith("data:")]
        return json.loads(data[-1])
    return r.json()


async def mcp_session(http) -> dict[str, str]:
    """Open an MCP session (initialize + initialized); the headers its requests carry."""
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": MCP_PROTOCOL, "capabilities": {},
                       "clientInfo": {"name": "bench_api_load", "version": "0"}}}  # fmt: skip
    r = await http.post("/mcp", json=init, headers=MCP_HEADERS)
    r.raise_for_status()
    _mcp_message(r)
    headers = {**MCP_HEADERS, "mcp-protocol-version": MCP_PROTOCOL}
    if "mcp-session-id" in r.headers:
        headers["mcp-session-id"] = r.headers["mcp-session-id"]
    r = await http.post("/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
    r.raise_for_status()
    return headers


async def _mcp_client(http, queries, i, clients, stop, k, tally: Tally, honor_retry: bool) -> None:
    import httpx

    headers = await mcp_session(http)
    n = i
    while time.perf_counter() < stop:
        q = queries[n % len(queries)]
        n += clients
        call = {"jsonrpc": "2.0", "id": n, "method": "tools/call",
                "params": {"name": "search_theorems", "arguments": {"query": q, "k": k}}}  # fmt: skip
        t0 = time.perf_counter()
        wait = 0.0
        try:
            r = await http.post("/mcp", json=call, headers=headers)
            if r.status_code != 200:
                tally.add(f"HTTP {r.status_code}", time.perf_counter() - t0, refused=r.status_code == 429)
                wait = _retry_after(r.headers.get("retry-after")) if honor_retry and r.status_code == 429 else 0.0
            else:
                msg = _mcp_message(r)
                result = msg.get("result") or {}
                text = " ".join(c.get("text", "") for c in result.get("content", []))
                if "error" in msg:
                    tally.add(f"JSON-RPC {msg['error'].get('code')}", time.perf_counter() - t0)
                elif result.get("isError"):
                    busy = "server is busy" in text
                    tally.add("tool error: busy" if busy else f"tool error: {text[:60]}", time.perf_counter() - t0,
                              refused=busy)  # fmt: skip
                    wait = 1.0 if busy and honor_retry else 0.0
                elif (result.get("structuredContent") or {}).get("results"):
                    tally.add(None, time.perf_counter() - t0)
                else:
                    tally.add("empty result", time.perf_counter() - t0)
        except httpx.HTTPError as err:
            tally.add(type(err).__name__, time.perf_counter() - t0)
        if wait:
            await asyncio.sleep(min(wait, max(0.0, stop - time.perf_counter())))


async def run_load(url: str, queries: list[str], clients: int, seconds: float, k: int, api_key: str | None,
                   protocol: str = "rest", honor_retry: bool = True) -> dict:  # fmt: skip
    import httpx

    tally = Tally()
    headers = {"X-API-Key": api_key} if api_key else {}
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    client = _rest_client if protocol == "rest" else _mcp_client
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits, headers=headers) as http:
        # connection and model warm
        warm = Tally()
        await client(http, queries, 0, 1, time.perf_counter() + 0.5, k, warm, False)
        stop = time.perf_counter() + seconds
        t0 = time.perf_counter()
        await asyncio.gather(*(client(http, queries, i, clients, stop, k, tally, honor_retry) for i in range(clients)))
        wall = time.perf_counter() - t0
    ms = [x * 1000 for x in tally.ok]
    refused_ms = [x * 1000 for x in tally.refused]
    return {
        "protocol": protocol, "clients": clients, "seconds": round(wall, 2), "requests": len(ms),
        "errors": sum(tally.errors.values()), "error_kinds": tally.errors,
        "refused": len(refused_ms), "refused_kinds": tally.refused_kinds,
        "refused_p95_ms": round(percentile(refused_ms, 95), 1) if refused_ms else None,
        # The same as the app measured them (REST only): the rest of a client's time was spent outside the app.
        "server_p95_ms": round(percentile(tally.ok_server, 95), 1) if tally.ok_server else None,
        "refused_server_p95_ms": round(percentile(tally.refused_server, 95), 1) if tally.refused_server else None,
        "throughput_rps": round(len(ms) / wall, 2),
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


def _variants(specs: list[str]) -> list[tuple[str, Path]]:
    out = []
    for spec in specs or [f"this={REPO}"]:
        name, _, root = spec.partition("=")
        if not root or not (Path(root) / "theorem_rag").is_dir():
            raise SystemExit(f"--variant NAME=CHECKOUT: {spec!r} names no checkout with theorem_rag/")
        out.append((name, Path(root).resolve()))
    return out


def _git_head(root: Path) -> str:
    try:
        return subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip() + (" (+ uncommitted changes)" if subprocess.run(
                                  ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                                  capture_output=True, text=True).stdout.strip() else "")  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        return "?"


def markdown(result: dict) -> str:
    """The runs as a Markdown table, with the command, date, machine and load."""
    lines = [f"# API load: {result['label'] or 'run'}", "",
             f"- command: `{result['command']}`", f"- date: {result['date']} (UTC)",
             f"- machine: {result['cpus']} CPUs, Python {result['python']}; load average before "
             f"{', '.join(f'{x:.2f}' for x in result['load_avg_before'])}, after "
             f"{', '.join(f'{x:.2f}' for x in result['load_avg_after'])}",
             f"- queries: `{result['queries_file']}`, k={result['k']}, {result['seconds']} s per run, closed loop; "
             f"refused = 503/429 with Retry-After (MCP: a 'server is busy' tool error), "
             f"{'waited out' if result['honor_retry_after'] else 'not waited out'} by the client",
             *[f"- variant `{v['name']}`: {v['root']} at {v['commit']}; server args `{v['server_args']}`"
               for v in result["variants"]],
             "- variants alternated run by run (same client count, same round): before/after measured side by "
             "side in one run" if len(result["variants"]) > 1 else "",
             "- in app p95 = the same p95 by the app's own clock (`Server-Timing`, REST only): what a client saw "
             "beyond it was spent outside the app",
             "", "| variant | protocol | clients | round | req/s | p50 ms | p95 ms | p99 ms | in app p95 ms | refused "
             "| refused p95 ms | refused in app p95 ms | errors | server CPU ms/req | client CPU ms/req | client nice |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for r in result["runs"]:
        lines.append(f"| {r['variant']} | {r['protocol']} | {r['clients']} | {r['round']} | {r['throughput_rps']} | "
                     f"{r['p50_ms']} | {r['p95_ms']} | {r['p99_ms']} | {r.get('server_p95_ms') or '-'} | "
                     f"{r['refused']} | {r['refused_p95_ms'] or '-'} | {r.get('refused_server_p95_ms') or '-'} "
                     f"| {r['errors']}{' ' + json.dumps(r['error_kinds']) if r['errors'] else ''} | "
                     f"{r.get('server_cpu_ms_per_request', '-')} | {r.get('client_cpu_ms_per_request', '-')} | "
                     f"{r.get('client_nice', 0)} |")  # fmt: skip
    return "\n".join(line for line in lines if line is not None) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--url", help="Target a running server (REST base URL, or the MCP server's base for --protocol mcp).")
    p.add_argument("--clients", type=int, nargs="+", default=[16], help="Concurrent clients (several: one run each).")
    p.add_argument("--seconds", type=float, default=20.0, help="Duration of each run (at most 120).")
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--protocol", nargs="+", choices=["rest", "mcp"], default=["rest"],
                   help="REST GET /search, MCP tools/call search_theorems over streamable HTTP, or both.")
    p.add_argument("--variant", action="append", default=[],
                   help="NAME=CHECKOUT: run the servers from this checkout; repeat to compare side by side.")
    p.add_argument("--rounds", type=int, default=1, help="Repeat every (clients, variant) run this often.")
    p.add_argument("--queries", default=str(shared_eval_file()),
                   help="JSON Lines with a 'query' field (default: the shared Stacks slogan dev set, ../shared/eval).")
    p.add_argument("--server-args", default="", help="Extra flags for every server, e.g. '--search-threads 2'.")
    p.add_argument("--variant-args", action="append", default=[],
                   help="NAME=FLAGS: extra server flags for one variant (after --server-args).")
    p.add_argument("--ignore-retry-after", action="store_true", help="Clients retry refusals at once.")
    p.add_argument("--profile", action="store_true", help="Time embedding vs database for single queries first.")
    p.add_argument("--client-nice", type=int, nargs="+", default=[0], metavar="N",
                   help="This load generator's niceness during a run (several: each run once with each, alternating). "
                        "Negative values (root only) put the clients ahead of the server and PostgreSQL for the CPU: "
                        "what a latency loses then was the clients' own share of it.")
    p.add_argument("--label", default="", help="A note saved with the results (which index, which machine).")
    p.add_argument("--out", default=str(Path(__file__).parent / "results"))
    args = p.parse_args()
    if not 1 <= args.seconds <= 120 or not all(1 <= c <= 256 for c in args.clients) or not 1 <= args.rounds <= 10:
        raise SystemExit("bounded runs only: 1-120 seconds, 1-256 clients, 1-10 rounds")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    queries = load_queries(args.queries)
    variants = _variants(args.variant)
    variant_args = dict(v.split("=", 1) for v in args.variant_args)
    result: dict = {"label": args.label, "command": shlex.join([Path(sys.executable).name, *sys.argv]),
                    "date": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()), "k": args.k,
                    "queries_file": args.queries, "seconds": args.seconds, "honor_retry_after": not args.ignore_retry_after,
                    "server_args": args.server_args, "cpus": os.cpu_count(), "load_avg_before": os.getloadavg(),
                    "python": platform.python_version(), "variants": []}  # fmt: skip
    if args.profile:
        result["profile"] = profile(queries, args.k)
        print("profile (single thread):", json.dumps(result["profile"]))
    servers: dict[tuple[str, str], tuple[str, subprocess.Popen | None]] = {}
    try:
        for name, root in variants:
            extra = [*args.server_args.split(), *variant_args.get(name, "").split()]
            result["variants"].append({"name": name, "root": str(root), "commit": _git_head(root),
                                       "server_args": " ".join(extra)})  # fmt: skip
            for protocol in args.protocol:
                if args.url:
                    servers[name, protocol] = (args.url, None)
                    continue
                port = free_port()
                # Every client of a load test shares one address: the per-client rate limit would measure itself.
                # A --rate-limit in the server args comes later and wins.
                flags = ["--rate-limit", "0", *extra] + (["--log-level", "warning"] if protocol == "rest" else [])
                proc = start_server(port, flags, protocol, root)
                servers[name, protocol] = (f"http://127.0.0.1:{port}", proc)
        result["runs"] = []
        for rnd in range(1, args.rounds + 1):
            for clients in args.clients:
                for protocol, nice in itertools.product(args.protocol, args.client_nice):
                    for name, _ in variants:
                        url, proc = servers[name, protocol]
                        # The calling thread's niceness (Linux: per thread); the clients run on this one.
                        os.setpriority(os.PRIO_PROCESS, 0, nice)
                        cpu0 = tree_cpu(proc.pid) if proc else 0.0
                        own0 = time.process_time()
                        run = asyncio.run(run_load(url, queries, clients, args.seconds, args.k,
                                                   os.environ.get("THEOREM_RAG_API_KEY"), protocol,
                                                   not args.ignore_retry_after))  # fmt: skip
                        run = {"variant": name, "round": rnd, **run, "load_avg": os.getloadavg()[0], "client_nice": nice}
                        # CPU per answered request in the server process(es) (Python, model) and in this load
                        # generator; the rest of a request's CPU is PostgreSQL's.
                        if proc and run["requests"]:
                            run["server_cpu_ms_per_request"] = round(
                                (tree_cpu(proc.pid) - cpu0) * 1000 / run["requests"], 2)
                        run["client_cpu_ms_per_request"] = round(
                            (time.process_time() - own0) * 1000 / max(run["requests"], 1), 2)
                        result["runs"].append(run)
                        print(f"{name:>8} {protocol:4} {clients:3d} clients x {run['seconds']:.0f}s: {run['requests']} ok, "
                              f"{run['refused']} refused {run['refused_kinds'] or ''} (p95 {run['refused_p95_ms']} ms, "
                              f"in app {run['refused_server_p95_ms']} ms), "
                              f"{run['errors']} errors {run['error_kinds'] or ''}; {run['throughput_rps']} req/s; "
                              f"p50 {run['p50_ms']} ms, p95 {run['p95_ms']} ms, p99 {run['p99_ms']} ms; server CPU/req "
                              f"{run.get('server_cpu_ms_per_request')} ms; load {run['load_avg']:.2f}", flush=True)  # fmt: skip
    finally:
        for _, proc in servers.values():
            if proc is not None:
                proc.terminate()
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()
    result["load_avg_after"] = os.getloadavg()
    stamp = time.strftime("%Y%m%d_%H%M%S")
    out = Path(args.out) / f"api_load_{stamp[:8]}"  # one folder per day
    out.mkdir(parents=True, exist_ok=True)
    stem = out / f"api_load_{stamp}"
    stem.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n")
    stem.with_suffix(".md").write_text(markdown(result))
    print(f"saved {stem}.json and .md")


if __name__ == "__main__":
    main()
