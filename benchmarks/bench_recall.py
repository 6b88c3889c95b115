"""Recall@20 of the Hamming-pool + cosine re-rank path against an exact cosine scan of the same vectors.

Prints, for each pool size and hnsw.ef_search, the mean Recall@20 over sampled queries and the latency, then the
smallest pool that reaches the target recall. Three ways to run it:

    # a synthetic clustered space (384-d, like MiniLM) on a throwaway embedded server
    python benchmarks/bench_recall.py --synthetic 20000
    # real embeddings of real statements (regex-extracted theorem environments) on a throwaway server
    python benchmarks/bench_recall.py --latex ../shared/corpora/stacks --limit 20000 \\
        --queries ../shared/eval/stacks_slogans_dev.jsonl
    # the real index, by space name (DSN from THEOREM_RAG_DATABASE_URL or the embedded server in the data dir)
    python benchmarks/bench_recall.py --space minilm_slogan --queries stored
    python benchmarks/bench_recall.py --space minilm_slogan --queries ../shared/eval/stacks_slogans_dev.jsonl

Queries: ``stored`` samples stored vectors and adds Gaussian noise (``--noise``, relative to the vector norm), so a
query is near but not on its answers; a JSON Lines file embeds its ``query`` fields with the configured model.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from theorem_rag.config import Settings
from theorem_rag.db.store import TheoremStore
from theorem_rag.records import Document, Theorem


def synthetic_space(store: TheoremStore, n: int, dim: int, seed: int, space: str) -> None:
    """Clustered unit vectors (topics of a corpus), loaded with COPY and indexed."""
    rng = np.random.default_rng(seed)
    centers = rng.normal(size=(max(10, n // 100), dim))
    labels = rng.integers(0, len(centers), size=n)
    vecs = centers[labels] + rng.normal(scale=0.8, size=(n, dim))
    vecs = (vecs / np.linalg.norm(vecs, axis=1, keepdims=True)).astype(np.float32)
    store.upsert_documents([Document(id="synthetic", source="synthetic")])
    ids = [f"syn:{i:07d}" for i in range(n)]
    for start in range(0, n, 10_000):
        store.upsert_theorems(
            Theorem(id=i, source="synthetic", kind="lemma", body_latex=f"Statement {i}.", doc_id="synthetic")
            for i in ids[start : start + 10_000]
        )
    store.vector_space(space, dim)
    t0 = time.perf_counter()
    store.write_vectors(space, ids, vecs)
    t1 = time.perf_counter()
    store.build_index(space)
    print(f"loaded {n} vectors by COPY in {t1 - t0:.1f} s; HNSW index built in {time.perf_counter() - t1:.1f} s")


_ENV = re.compile(r"\\begin\{(lemma|theorem|proposition|definition|corollary|remark|example)\}(.*?)\\end\{\1\}", re.S)


def latex_space(store: TheoremStore, folder: Path, limit: int, space: str, settings: Settings) -> None:
    """Real embeddings without the corpus pipeline: theorem-like environments found by a regex in ``folder``'s
    .tex files, embedded with the configured model (what is measured is the index, not the parser)."""
    from theorem_rag.embed import Embedder

    bodies = []
    for tex in sorted(folder.rglob("*.tex")):
        bodies += [m.group(2).strip() for m in _ENV.finditer(tex.read_text(errors="replace")) if m.group(2).strip()]
    bodies = list(dict.fromkeys(bodies))[:limit]
    embedder = Embedder(settings.embed_model, doc_instruction=settings.doc_instruction)
    t0 = time.perf_counter()
    vecs = embedder.embed_documents(bodies)
    print(f"embedded {len(bodies)} statements from {folder} in {time.perf_counter() - t0:.0f} s")
    ids = [f"tex:{i:07d}" for i in range(len(bodies))]
    store.upsert_documents([Document(id="latex", source="latex")])
    store.upsert_theorems(Theorem(id=i, source="latex", kind="lemma", body_latex=b, doc_id="latex") for i, b in zip(ids, bodies))
    store.vector_space(space, vecs.shape[1], field="latex", model=settings.embed_model)
    store.write_vectors(space, ids, vecs)
    store.build_index(space)


def sample_queries(store: TheoremStore, space: str, how: str, n: int, noise: float, seed: int, settings: Settings):
    rng = np.random.default_rng(seed)
    if how == "stored":
        ids = store.vector_ids(space)
        pick = sorted(rng.choice(len(ids), size=min(n, len(ids)), replace=False))
        vecs = np.stack([v for _, v in store.iter_vectors(space, [ids[i] for i in pick])])
        scale = noise * np.linalg.norm(vecs, axis=1, keepdims=True) / np.sqrt(vecs.shape[1])
        return vecs + rng.normal(size=vecs.shape) * scale
    from theorem_rag.embed import Embedder

    lines = [json.loads(line) for line in Path(how).read_text().splitlines() if line.strip()]
    texts = [lines[i]["query"] for i in sorted(rng.choice(len(lines), size=min(n, len(lines)), replace=False))]
    embedder = Embedder(settings.embed_model, query_instruction=settings.query_instruction)
    return embedder.embed_queries(texts)


def explain(store: TheoremStore, space: str, q: np.ndarray, k: int, pool: int) -> None:
    """Print the plan of one dense query, to see that the HNSW index serves the candidate pool."""
    from theorem_rag.db import dense_sql
    from theorem_rag.filters import Filters

    sp = store.space(space)
    query, params = dense_sql.dense_search(store.names, space, sp.dim, sp.half, q.astype(np.float32), Filters(), k, pool)
    with store.connection() as conn, conn.transaction():
        conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", [str(min(max(pool, 40), 1000))])
        plan = conn.execute(b"EXPLAIN " + query.as_bytes(conn), params).fetchall()
    print("plan:", " | ".join(r[0].strip() for r in plan if "Scan" in r[0] or "Limit" in r[0]))


def measure(store, space, queries, k, pools, efs, iterative_scan, target) -> None:
    exact, exact_ms = [], []
    for q in queries:
        t = time.perf_counter()
        exact.append({h.theorem_id for h in store.exact_search(space, q, k=k)})
        exact_ms.append(1000 * (time.perf_counter() - t))
    print(f"exact cosine scan: mean {np.mean(exact_ms):.1f} ms, p95 {np.percentile(exact_ms, 95):.1f} ms")
    print(f"{'pool':>6} {'ef_search':>9} {'recall@' + str(k):>10} {'mean ms':>8} {'p95 ms':>7}")
    best = None
    for pool in pools:
        # The store raises ef_search to the pool size (the index returns at most ef_search candidates).
        for ef in sorted({max(e, min(pool, 1000)) for e in efs}):
            found, ms = 0, []
            for q, ref in zip(queries, exact):
                t = time.perf_counter()
                hits = store.search_dense(space, q, k=k, pool=pool, ef_search=ef, iterative_scan=iterative_scan)
                ms.append(1000 * (time.perf_counter() - t))
                found += len(ref & {h.theorem_id for h in hits})
            recall = found / sum(len(r) for r in exact)
            print(f"{pool:>6} {ef:>9} {recall:>10.4f} {np.mean(ms):>8.1f} {np.percentile(ms, 95):>7.1f}")
            if recall >= target and best is None:
                best = (pool, ef, recall)
    if best:
        print(f"smallest pool reaching recall@{k} >= {target}: pool={best[0]} ef_search={best[1]} (recall {best[2]:.4f})")
    else:
        print(f"no setting reached recall@{k} >= {target}")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--space", help="name of a built vector space in the configured database")
    p.add_argument("--synthetic", type=int, metavar="N", help="build N synthetic vectors on a throwaway server")
    p.add_argument("--latex", type=Path, metavar="DIR", help="embed theorem environments of DIR's .tex files")
    p.add_argument("--limit", type=int, default=20000, help="at most this many statements with --latex")
    p.add_argument("--dim", type=int, default=384)
    p.add_argument("--queries", default="stored", help="'stored' or a JSON Lines eval file")
    p.add_argument("--n-queries", type=int, default=200)
    p.add_argument("--noise", type=float, default=0.5)
    p.add_argument("--k", type=int, default=20)
    p.add_argument("--pools", default="20,50,100,200,400,700,1000")
    p.add_argument("--ef", default="40,100,200,400,1000")
    p.add_argument("--iterative-scan", default="relaxed_order")
    p.add_argument("--target", type=float, default=0.98)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if sum(map(bool, (args.space, args.synthetic, args.latex))) != 1:
        p.error("give exactly one of --space, --synthetic, --latex")
    # A plain `kill` should still stop the throwaway server (the finally below), as Ctrl-C does.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    settings = Settings()
    pools, efs = [int(x) for x in args.pools.split(",")], [int(x) for x in args.ef.split(",")]
    server = folder = None
    if args.synthetic or args.latex:
        from theorem_rag.db.server import EmbeddedServer

        folder = Path(tempfile.mkdtemp(prefix="bench-recall-"))
        server = EmbeddedServer(folder / "pg")
        dsn, space, table = server.start(), "synthetic" if args.synthetic else "latex", "bench"
    else:
        from theorem_rag.db.server import resolve_dsn

        dsn, space, table = resolve_dsn(settings), args.space, settings.table
    try:
        with TheoremStore(dsn, table=table, timeout=30) as store:
            if args.synthetic:
                synthetic_space(store, args.synthetic, args.dim, args.seed, space)
            elif args.latex:
                latex_space(store, args.latex, args.limit, space, settings)
            sp = store.space(space)
            print(f"space {space}: {store.count_vectors(space)} vectors, dim {sp.dim}, "
                  f"{'halfvec' if sp.half else 'vector'}, index built: {store.has_index(space)}")  # fmt: skip
            queries = sample_queries(store, space, args.queries, args.n_queries, args.noise, args.seed + 1, settings)
            print(f"{len(queries)} queries ({args.queries}, noise {args.noise if args.queries == 'stored' else '-'}), "
                  f"iterative_scan={args.iterative_scan}")  # fmt: skip
            explain(store, space, queries[0], args.k, pools[-1])
            measure(store, space, queries, args.k, pools, efs, args.iterative_scan, args.target)
    finally:
        if server is not None:
            server.stop()
            server.release()
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
