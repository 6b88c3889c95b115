"""Scale benchmark: N synthetic statements (100k, 300k, 1M) loaded, indexed and queried on this machine.

    python benchmarks/bench_scale.py --n 100000 --seed-data-dir /work/data/scale
    python benchmarks/bench_scale.py --summarize          # growth table over every scale_<N>.json

The corpus (``synthetic_corpus.py``) recombines the statements, names, slogans, sources and slogan vectors of a
built index (the *seed*, read from ``--seed-data-dir``, a copy of the real index: never the default data folder),
so no embedding runs at load time. It is loaded through the store's bulk path into an embedded PostgreSQL server of
its own (``--data-dir``, fresh), and the run reports:

- load throughput (rows/s) and the wall time of each step: documents, statements (``COPY``), vectors (binary
  ``COPY``), full-text GIN index, lexicon refresh, HNSW index, ``VACUUM ANALYZE``;
- size on disk of every table and index;
- peak memory: the PostgreSQL server processes (sum of RSS and of PSS, sampled every 0.5 s, per step) and this
  Python process;
- single-client latency p50/p95/p99 of dense (store ``search_dense``), full-text (store ``search_text``) and
  hybrid (``TheoremRetriever``: both, RRF, records) over 200 dev queries, query embedding excluded (reported apart);
- Recall@20 of the Hamming pool + exact re-rank against an exact scan, at pools 200/500/1000/2000 (the exact
  reference is a numpy scan over the regenerated vectors; a sample is checked against the store's exact SQL scan).

Results: ``benchmarks/results/scale_<N>.{json,md}`` with the command, date, machine, load average and commit.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402

from procs import MemorySampler  # noqa: E402
from scale_report import growth, markdown  # noqa: E402
from synthetic_corpus import Seed, SyntheticCorpus, load_corpus  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
EVAL = ROOT.parent / "shared" / "eval"
SPACE = "minilm_l6_v2_slogan"
# 200 queries: every Stacks slogan (long, natural language), PlanetMath synonyms (short keyword look-ups) and
# Stacks statements in LaTeX (long, premise selection): the three kinds of query the dev sets hold.
QUERY_MIX = (("stacks_slogans_dev.jsonl", 80), ("planetmath_synonyms.jsonl", 60), ("stacks_proof_refs.jsonl", 60))


# -- machine and code -------------------------------------------------------------------------------------------------
def machine() -> dict:
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")), "?")
    with open("/proc/meminfo") as f:
        mem = int(next(ln for ln in f if ln.startswith("MemTotal")).split()[1])
    return {"host": platform.node(), "cpu": cpu, "cores": os.cpu_count(), "mem_gib": round(mem / 2**20, 1),
            "python": platform.python_version(), "kernel": platform.release()}  # fmt: skip


def code_version() -> dict:
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True).stdout.strip()

    return {"commit": git("rev-parse", "HEAD"), "branch": git("rev-parse", "--abbrev-ref", "HEAD"),
            "dirty": bool(git("status", "--porcelain", "--untracked-files=no"))}  # fmt: skip


# -- server ---------------------------------------------------------------------------------------------------------
def start_server(data_dir: Path, settings: dict[str, str]):
    """The embedded server in ``data_dir/pg``, started with ``settings`` (EmbeddedServer writes them with ALTER
    SYSTEM and restarts it when one needs a restart)."""
    import psycopg

    from theorem_rag.db.server import EmbeddedServer, ensure_database

    server = EmbeddedServer(data_dir / "pg", settings=settings)
    dsn = server.start()
    ensure_database(dsn, "theorem_rag")
    with psycopg.connect(dsn, autocommit=True) as conn:
        got = {name: conn.execute("SELECT current_setting(%s)", [name]).fetchone()[0] for name in settings}
        version = conn.execute("SELECT version()").fetchone()[0].split(" on ")[0]
    return server, server.dsn("theorem_rag"), got, version


def read_seed(seed_dir: Path, space: str, limit: int | None) -> Seed:
    from theorem_rag.db.server import EmbeddedServer
    from theorem_rag.db.store import TheoremStore

    server = EmbeddedServer(seed_dir / "pg")
    dsn = server.dsn("theorem_rag")
    try:
        with TheoremStore(dsn, timeout=60) as store:
            return Seed.read(store, space, limit=limit)
    finally:
        server.release()


# -- queries --------------------------------------------------------------------------------------------------------
def missing_query_sets(eval_dir: Path) -> list[str]:
    """The sets of QUERY_MIX not found in ``eval_dir``: checked before a build, which takes minutes to hours."""
    return [name for name, _ in QUERY_MIX if not (eval_dir / name).is_file()]


def dev_queries(n: int, seed: int, eval_dir: Path = EVAL) -> list[tuple[str, str]]:
    """(set, query) pairs: the mix of QUERY_MIX scaled to ``n``, sampled with a fixed seed."""
    rng = np.random.default_rng(seed)
    total = sum(c for _, c in QUERY_MIX)
    out = []
    for name, count in QUERY_MIX:
        lines = [json.loads(ln) for ln in (eval_dir / name).read_text().splitlines() if ln.strip()]
        take = min(len(lines), round(count * n / total))
        out += [(name.split(".")[0], lines[i]["query"]) for i in sorted(rng.choice(len(lines), take, replace=False))]
    return out[:n]


def percentiles(ms: list[float]) -> dict[str, float]:
    a = np.asarray(ms)
    return {"p50": float(np.percentile(a, 50)), "p95": float(np.percentile(a, 95)),
            "p99": float(np.percentile(a, 99)), "mean": float(a.mean()), "n": len(ms)}  # fmt: skip


def measure_latency(store, retriever, queries, qvecs, k: int, pool: int, ef: int, warmup: int) -> dict:
    """Per query, in turn: dense, full-text, hybrid (single client); the first ``warmup`` queries run unmeasured."""
    from llama_index.core.schema import QueryBundle

    ms: dict[str, dict[str, list[float]]] = {m: {} for m in ("dense", "text", "hybrid")}
    order = [(i, False) for i in range(min(warmup, len(queries)))] + [(i, True) for i in range(len(queries))]
    for i, measured in order:
        (qset, text), vec = queries[i], qvecs[i]
        calls = {
            "dense": lambda: store.search_dense(SPACE, vec, k=k, pool=pool, ef_search=ef),
            "text": lambda: store.search_text(text, k=max(k, retriever.depth)),
            "hybrid": lambda: retriever.retrieve(QueryBundle(query_str=text, embedding=vec.tolist())),
        }
        for mode, call in calls.items():
            t0 = time.perf_counter()
            call()
            if measured:
                ms[mode].setdefault(qset, []).append(1000 * (time.perf_counter() - t0))
    out = {}
    for mode, by_set in ms.items():
        everything = [x for v in by_set.values() for x in v]
        out[mode] = {"all": percentiles(everything), **{s: percentiles(v) for s, v in by_set.items()}}
    return out


def exact_reference(corpus: SyntheticCorpus, qvecs: np.ndarray, k: int) -> list[list[str]]:
    """Top-k ids by exact cosine over every generated vector (numpy, streamed batch by batch)."""
    q = qvecs / np.linalg.norm(qvecs, axis=1, keepdims=True)
    best_s = np.full((len(q), 0), -np.inf, dtype=np.float32)
    best_i: list[list[str]] = [[] for _ in q]
    for ids, vecs in corpus.vector_batches():
        sims = q @ vecs.T
        cand_s = np.concatenate([best_s, sims], axis=1)
        top = np.argsort(-cand_s, axis=1, kind="stable")[:, :k]
        new_ids = []
        for row, cols in enumerate(top):
            old = best_i[row]
            new_ids.append([old[c] if c < len(old) else ids[c - len(old)] for c in cols])
        best_s, best_i = np.take_along_axis(cand_s, top, axis=1), new_ids
    return best_i


def measure_recall(store, corpus, qvecs, k: int, pools: list[int], ef: int, check: int) -> dict:
    t0 = time.perf_counter()
    exact = exact_reference(corpus, qvecs, k)
    out: dict = {"exact_numpy_seconds": time.perf_counter() - t0, "pools": {}}
    sql_ms, agree = [], []
    for q, ref in zip(qvecs[:check], exact[:check]):
        t = time.perf_counter()
        hits = store.exact_search(SPACE, q, k=k)
        sql_ms.append(1000 * (time.perf_counter() - t))
        agree.append(len({h.theorem_id for h in hits} & set(ref)) / k)
    out["exact_sql"] = {"queries": len(sql_ms), "agreement_with_numpy": float(np.mean(agree)) if agree else None,
                        **percentiles(sql_ms)} if sql_ms else {}  # fmt: skip
    for pool in pools:
        found, ms = 0, []
        for q, ref in zip(qvecs, exact):
            t = time.perf_counter()
            hits = store.search_dense(SPACE, q, k=k, pool=pool, ef_search=ef)
            ms.append(1000 * (time.perf_counter() - t))
            found += len(set(ref) & {h.theorem_id for h in hits})
        out["pools"][str(pool)] = {"recall": found / (k * len(qvecs)), **percentiles(ms)}
    return out


def build(store, corpus, args, settings, result: dict, step) -> None:
    """Load and index the corpus; record the load report and the sizes in ``result``."""
    report = load_corpus(store, corpus, SPACE, model=settings.embed_model, maintenance_work_mem=args.maintenance_work_mem,
                         parallel_workers=args.parallel_workers, on_step=step, dense_index=args.dense_index, writers=args.writers,
                         hnsw_options={"m": args.hnsw_m, "ef_construction": args.ef_construction})  # fmt: skip
    result["load"] = {"rows": report.rows, "documents": report.documents, "seconds": report.seconds,
                      "load_seconds": report.load_seconds, "rows_per_second": report.rows_per_second}  # fmt: skip
    print(f"loaded {report.rows:,} rows at {report.rows_per_second:,.0f} rows/s; steps (s): "
          + ", ".join(f"{k} {v:.1f}" for k, v in report.seconds.items()))  # fmt: skip
    with store.connection() as conn:
        db_bytes = conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]
    result["sizes"] = {"database_bytes": db_bytes, "relations": [vars(s) for s in store.relation_sizes()]}


# -- main -----------------------------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, help="number of statements")
    p.add_argument("--summarize", action="store_true", help="write scale_growth.md from every scale_<N>.json")
    p.add_argument("--seed-data-dir", type=Path, default=os.environ.get("THEOREM_RAG_DATA_DIR"),
                   help="data folder of a built index to read the seed from (a copy; default THEOREM_RAG_DATA_DIR)")
    p.add_argument("--seed-space", default=SPACE, help="vector space of the seed index")
    p.add_argument("--seed-limit", type=int, help="use only the first this many seed statements")
    p.add_argument("--data-dir", type=Path, help="fresh folder for the benchmark's own server "
                   "(default: <seed-data-dir>_bench_<N>)")
    p.add_argument("--fresh", action="store_true", help="delete --data-dir first if it exists")
    p.add_argument("--keep", action="store_true", help="keep the benchmark's data folder afterwards")
    p.add_argument("--batch-size", type=int, default=20_000)
    p.add_argument("--writers", type=int, default=2, help="statement COPYs at once (connections), each a part of a "
                   "batch (2: since the records carry their formula keys the Python side keeps two server processes busy)")
    p.add_argument("--mix", type=float, default=0.5)
    p.add_argument("--noise", type=float, default=0.1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--k", type=int, default=20)
    p.add_argument("--pools", default="200,500,1000,2000")
    p.add_argument("--exact-sql-check", type=int, default=10, help="queries also run through the exact SQL scan")
    p.add_argument("--shared-buffers", default="1GB")
    p.add_argument("--work-mem", default="16MB")
    p.add_argument("--maintenance-work-mem", default="1GB")
    p.add_argument("--parallel-workers", type=int, default=1, help="max_parallel_maintenance_workers")
    p.add_argument("--dense-index", choices=("bit", "halfvec"),
                   help="kind of HNSW index of the vector space (VectorSpace.index; default: a new space's)")
    p.add_argument("--hnsw-m", type=int, help="HNSW m (neighbours per node; default: the kind's, HNSW_PARAMS)")
    p.add_argument("--ef-construction", type=int, help="HNSW ef_construction (default: the kind's)")
    p.add_argument("--out", type=Path, default=RESULTS)
    p.add_argument("--eval-dir", type=Path, default=EVAL, help="the dev query sets (default: ../shared/eval beside the "
                   "repository)")
    p.add_argument("--tag", default="", help="suffix of the result files (scale_<N><tag>.json)")
    p.add_argument("--phase", choices=("all", "build", "query"), default="all",
                   help="build: load and index, keep the folder, write scale_<N>.build.json; query: measure latency "
                   "and recall on a folder a build phase left (with the code checked out now), write the results")
    args = p.parse_args(argv)
    if args.summarize:
        files = [f for f in sorted(args.out.glob("scale_*.json")) if f.stem.removeprefix("scale_").isdigit()]
        found = [json.loads(f.read_text()) for f in files]
        (args.out / "scale_growth.md").write_text(growth(found))
        print(growth(found))
        return 0
    if not args.n or args.n < 1 or not args.seed_data_dir:
        p.error("--n and --seed-data-dir (or THEOREM_RAG_DATA_DIR) are required")
    missing = missing_query_sets(args.eval_dir) if args.phase != "build" else []
    if missing:  # found now, not after the build
        p.error(f"the dev query sets {', '.join(missing)} are not in {args.eval_dir}: pass --eval-dir")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a plain kill still stops the server (finally below)
    from theorem_rag.config import Settings
    from theorem_rag.db.store import TheoremStore
    from theorem_rag.embed import Embedder, SentenceTransformerEmbedding
    from theorem_rag.retrieval.retriever import TheoremRetriever

    settings = Settings()
    seed_dir = args.seed_data_dir.expanduser().resolve()
    data_dir = (args.data_dir or seed_dir.parent / f"{seed_dir.name}_bench_{args.n}").expanduser().resolve()
    if data_dir == seed_dir:
        p.error("--data-dir must not be the seed's folder")
    args.out.mkdir(parents=True, exist_ok=True)
    stem = args.out / f"scale_{args.n}{args.tag}"
    built = stem.with_suffix(".build.json")
    if args.phase == "query":
        if not data_dir.exists() or not built.exists():
            p.error(f"--phase query needs {data_dir} and {built} from a --phase build run")
    elif data_dir.exists():
        if not args.fresh:
            p.error(f"{data_dir} exists: pass --fresh to delete it, or another --data-dir")
        shutil.rmtree(data_dir)
    pools = [int(x) for x in args.pools.split(",")]
    from theorem_rag.db.vectors import DEFAULT_INDEX_KIND, HNSW_PARAMS

    args.dense_index = args.dense_index or DEFAULT_INDEX_KIND
    args.hnsw_m = args.hnsw_m or HNSW_PARAMS[args.dense_index][0]
    args.ef_construction = args.ef_construction or HNSW_PARAMS[args.dense_index][1]
    result: dict = {"n": args.n, "tag": args.tag, "dense_index": args.dense_index, "hnsw_m": args.hnsw_m,
                    "ef_construction": args.ef_construction, "command": "python " + " ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]]),
                    "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "machine": machine(),
                    "loadavg_start": [round(x, 2) for x in os.getloadavg()], "code": code_version()}  # fmt: skip

    t0 = time.perf_counter()
    seed = read_seed(seed_dir, args.seed_space, args.seed_limit)
    corpus = SyntheticCorpus(seed, args.n, batch_size=args.batch_size, mix=args.mix, noise=args.noise, seed_value=args.seed)
    result["seed"] = {"data_dir": str(seed_dir), "space": args.seed_space, "statements": len(seed.theorems),
                      "documents": len(seed.documents), "read_seconds": time.perf_counter() - t0}  # fmt: skip
    result["corpus"] = {"rounds": args.n / len(seed.theorems), "mix": args.mix, "noise": args.noise,
                        "batch_size": args.batch_size, "seed": args.seed, "writers": args.writers}  # fmt: skip
    print(f"seed: {len(seed.theorems):,} statements from {seed_dir} in {result['seed']['read_seconds']:.0f} s")

    pg_settings = {"shared_buffers": args.shared_buffers, "work_mem": args.work_mem,
                   "maintenance_work_mem": args.maintenance_work_mem,
                   "max_parallel_maintenance_workers": str(args.parallel_workers)}  # fmt: skip
    if args.phase == "query":
        before = json.loads(built.read_text())
        result.update({k: before[k] for k in ("load", "sizes", "settings", "postgres")})
        result["build"] = {k: before[k] for k in ("command", "date", "code", "loadavg_start", "loadavg_end", "timeline")}
        server, dsn, _, result["postgres_now"] = start_server(data_dir, {})
    else:
        server, dsn, result["settings"], result["postgres"] = start_server(data_dir, pg_settings)
    sampler = MemorySampler(server.status()["pid"])
    if args.phase == "query":
        sampler.peaks.update(before["memory"]["steps"])
    sampler.start()
    store = TheoremStore(dsn, timeout=120, pool_size=max(2, args.writers + 1))
    if args.phase == "query":  # a newer schema (migrations of the code checked out now) is applied first, timed
        import psycopg

        from theorem_rag.db.schema import schema_version

        with psycopg.connect(dsn) as conn:
            version = schema_version(conn, store.names.prefix)
        t = time.perf_counter()
        store.migrate()
        result["migrate_seconds"] = time.perf_counter() - t
        with psycopg.connect(dsn) as conn:
            result["migrations_applied"] = f"{version} -> {schema_version(conn, store.names.prefix)}"
    partial = stem.with_suffix(".partial.json")
    result["timeline"] = []

    def step(name: str) -> None:
        """Mark a step for the memory sampler and checkpoint what is known so far (a run cut off still tells)."""
        sampler.step = name
        result["timeline"].append((name, round(time.perf_counter() - t0, 1), [round(x, 2) for x in os.getloadavg()]))
        result["memory_so_far"] = dict(sampler.peaks)
        partial.write_text(json.dumps(result, indent=1, default=str) + "\n")

    try:
        if args.phase != "query":
            build(store, corpus, args, settings, result, step)
        if args.phase == "build":
            return 0
        step("embed queries")
        queries = dev_queries(args.queries, args.seed, args.eval_dir)
        embedder = Embedder(settings.embed_model, query_instruction=settings.query_instruction)
        embedder.embed_queries([queries[0][1]])  # load the model outside the timing
        emb_ms, vecs = [], []
        for _, text in queries:
            t = time.perf_counter()
            vecs.append(embedder.embed_queries([text])[0])
            emb_ms.append(1000 * (time.perf_counter() - t))
        qvecs = np.stack(vecs)
        result["query_embedding_ms"] = percentiles(emb_ms)

        step("queries")
        retriever = TheoremRetriever(store, SentenceTransformerEmbedding(embedder), SPACE, k=args.k,
                                     pool=settings.candidate_pool, ef_search=settings.ef_search,
                                     iterative_scan=settings.iterative_scan, hybrid=True, rrf_k=settings.rrf_k)  # fmt: skip
        pool = retriever.pool_for(SPACE)  # the setting, or the default of the space's index kind and size
        # the setting, or the walk the index kind and the space's size get (dense.EF_SEARCH_STEPS)
        result.update(k=args.k, pool=pool, ef_search=store.dense_ef_search(SPACE, pool, settings.ef_search),
                      text_k=max(args.k, retriever.depth), warmup=args.warmup)  # fmt: skip
        result["latency"] = measure_latency(store, retriever, queries, qvecs, args.k, pool,
                                            settings.ef_search, args.warmup)  # fmt: skip
        print("latency p50/p95/p99 ms: " + "; ".join(
            f"{m} {v['all']['p50']:.1f}/{v['all']['p95']:.1f}/{v['all']['p99']:.1f}" for m, v in result["latency"].items()))

        step("recall")
        result["recall"] = measure_recall(store, corpus, qvecs, args.k, pools, settings.ef_search, args.exact_sql_check)
        print("recall@%d: " % args.k + ", ".join(f"pool {p} {v['recall']:.4f}" for p, v in result["recall"]["pools"].items()))
    finally:
        sampler.stop()
        store.close()
        server.stop()
        server.release()
        if not args.keep and args.phase != "build":
            shutil.rmtree(data_dir, ignore_errors=True)
        result["memory"] = {"steps": sampler.peaks, "peak": sampler.overall(),
                            "python_maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}  # fmt: skip
        result["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
        result["wall_seconds"] = time.perf_counter() - t0
        result.pop("memory_so_far", None)
        if args.phase == "build" and "sizes" in result:
            built.write_text(json.dumps(result, indent=1, default=str) + "\n")
            partial.unlink(missing_ok=True)
            print(f"wrote {built}; the data folder {data_dir} stays for --phase query")
    if args.phase == "build":
        return 0
    partial.unlink(missing_ok=True)
    stem.with_suffix(".json").write_text(json.dumps(result, indent=1) + "\n")
    stem.with_suffix(".md").write_text(markdown(result))
    print(markdown(result))
    print(f"wrote {stem}.json and .md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
