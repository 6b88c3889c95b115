"""Offline slogan writer throughput and slogan lengths over a theorem JSON Lines file (prints figures).

    python benchmarks/bench_offline_slogans.py data/records/theorems.jsonl
"""

from __future__ import annotations

import json
import statistics
import sys
import time

from theorem_rag.records import Theorem
from theorem_rag.slogans.offline import offline_slogan


def main(path: str) -> None:
    with open(path, encoding="utf-8") as f:
        theorems = [Theorem.from_dict(json.loads(line)) for line in f if line.strip()]
    start = time.perf_counter()
    slogans = [offline_slogan(t) for t in theorems]
    elapsed = time.perf_counter() - start
    words = [len(s.split()) for s in slogans]
    print(f"{len(theorems)} statements in {elapsed:.2f}s: {len(theorems) / elapsed:,.0f} statements/s")
    print(f"slogan words: median {statistics.median(words):.0f}, mean {statistics.mean(words):.1f}, max {max(words)}")
    print(f"non-ASCII slogans: {sum(not s.isascii() for s in slogans)}; empty bodies: {sum(s.endswith('.') and len(s.split()) == 1 for s in slogans)}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "data/records/theorems.jsonl")
