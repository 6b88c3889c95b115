"""Embedding throughput, torch vs onnx-int8, side by side in one run, on the texts an index build embeds.

    python benchmarks/bench_embed.py --records data/records --n 2000 --rounds 3 --out benchmarks/results/embed

A seeded sample of statements gets its offline slogan (what the default build embeds: ``embed_text_for`` with
field ``slogan``); each round embeds the whole sample with each backend, alternating which goes first, and
records wall time, CPU time of this process (all threads) and the load average around each pass. The machine is
shared: compare the two backends within a round, not with runs at other times. Also reported: the cosine between
the two backends' vectors of each statement, and single-query latency (queries from the Stacks dev set).
Writes ``<out>.json`` and ``<out>.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

BACKENDS = ("torch", "onnx-int8")


def load_texts(records: Path, n: int, seed: int) -> list[str]:
    from theorem_rag.embed import embed_text_for
    from theorem_rag.record_files import read_records
    from theorem_rag.slogans.offline import offline_slogan

    theorems = read_records(records).theorems
    sample = random.Random(seed).sample(theorems, min(n, len(theorems)))
    return [embed_text_for(t, offline_slogan(t), "slogan") for t in sample]


def loadavg() -> float:
    return os.getloadavg()[0]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=Path, default=Path("data/records"))
    ap.add_argument("--n", type=int, default=2000, help="statements in the sample")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--queries", type=Path, default=Path("../shared/eval/stacks_slogans_dev.jsonl"))
    ap.add_argument("--cache-dir", type=Path, default=None, help="ONNX cache (default: a temporary folder)")
    ap.add_argument("--out", type=Path, default=Path("benchmarks/results/embed"))
    args = ap.parse_args(argv)
    from theorem_rag.embed import Embedder

    texts = load_texts(args.records, args.n, args.seed)
    cache = args.cache_dir or Path(tempfile.mkdtemp(prefix="bench-embed-onnx-"))
    embedders, setup = {}, {}
    for backend in BACKENDS:
        t0 = time.perf_counter()
        e = Embedder(backend=backend, cache_dir=cache, batch_size=args.batch_size, query_cache_size=0)
        e.embed_documents(texts[:64])  # load (and for onnx-int8 build the int8 model when not cached), warm up
        setup[backend] = round(time.perf_counter() - t0, 2)
        embedders[backend] = e
    rounds, vectors = [], {}
    for r in range(args.rounds):
        order = BACKENDS if r % 2 == 0 else BACKENDS[::-1]
        row = {}
        for backend in order:
            before, cpu0, t0 = loadavg(), time.process_time(), time.perf_counter()
            vectors[backend] = embedders[backend].embed_documents(texts)
            wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
            row[backend] = {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "per_s": round(len(texts) / wall, 1),
                            "per_cpu_s": round(len(texts) / cpu, 1), "load_before": before, "load_after": loadavg()}
            print(f"round {r + 1} {backend:>9}: {len(texts) / wall:7.1f} statements/s wall, "
                  f"{len(texts) / cpu:7.1f} per CPU second (load {before:.1f} -> {loadavg():.1f})", flush=True)
        rounds.append(row)
    cos = (vectors["torch"] * vectors["onnx-int8"]).sum(axis=1)
    queries = [json.loads(line)["query"] for line in args.queries.open()][:100] if args.queries.exists() else []
    latency = {}
    for backend in BACKENDS:
        times = []
        for q in queries:
            t0 = time.perf_counter()
            embedders[backend].embed_query(q)
            times.append((time.perf_counter() - t0) * 1000)
        if times:
            latency[backend] = {"p50_ms": round(statistics.median(times), 1),
                                "p95_ms": round(float(np.percentile(times, 95)), 1)}  # fmt: skip
    tokens = [len(embedders["onnx-int8"].model.tokenizer(t)["input_ids"]) for t in texts]
    result = {
        "command": "python " + " ".join([sys.argv[0], *(argv if argv is not None else sys.argv[1:])]),
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": f"{platform.node()} {os.cpu_count()} cores, {platform.processor() or platform.machine()}",
        "statements": len(texts),
        "tokens_median": statistics.median(tokens), "tokens_max": max(tokens),
        "batch_size": args.batch_size,
        "setup_s": setup,
        "rounds": rounds,
        "median_per_s": {b: statistics.median(r[b]["per_s"] for r in rounds) for b in BACKENDS},
        "median_per_cpu_s": {b: statistics.median(r[b]["per_cpu_s"] for r in rounds) for b in BACKENDS},
        "cosine_torch_vs_onnx_int8": {"min": round(float(cos.min()), 4), "p1": round(float(np.percentile(cos, 1)), 4),
                                      "mean": round(float(cos.mean()), 4)},
        "query_latency": latency,
    }  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n")
    args.out.with_suffix(".md").write_text(markdown(result))
    print(markdown(result))
    return 0


def markdown(r: dict) -> str:
    lines = [
        f"# Embedding throughput: torch vs onnx-int8 ({r['date']})",
        "",
        f"`{r['command']}`",
        "",
        f"Machine: {r['machine']}, shared with other jobs (load average in the table). {r['statements']} statements "
        f"(their offline slogans, {r['tokens_median']} tokens median, {r['tokens_max']} max), batch size "
        f"{r['batch_size']}; each round runs both backends on the same texts, alternating which goes first.",
        "",
        "| round | backend | statements/s | per CPU second | wall s | CPU s | load before -> after |",
        "|---:|---|---:|---:|---:|---:|---|",
    ]
    for i, row in enumerate(r["rounds"], 1):
        for b, m in row.items():
            lines.append(f"| {i} | {b} | {m['per_s']} | {m['per_cpu_s']} | {m['wall_s']} | {m['cpu_s']} | "
                         f"{m['load_before']:.1f} -> {m['load_after']:.1f} |")  # fmt: skip
    med, cpu = r["median_per_s"], r["median_per_cpu_s"]
    c = r["cosine_torch_vs_onnx_int8"]
    lines += [
        "",
        f"Median statements/s: torch {med['torch']}, onnx-int8 {med['onnx-int8']} "
        f"({med['onnx-int8'] / med['torch']:.2f}x); per CPU second: torch {cpu['torch']}, onnx-int8 "
        f"{cpu['onnx-int8']} ({cpu['onnx-int8'] / cpu['torch']:.2f}x).",
        f"Cosine between the two backends' vectors of a statement: min {c['min']}, 1st percentile {c['p1']}, "
        f"mean {c['mean']}.",
        f"Model load (+ int8 build when not cached) and warm-up, seconds: {r['setup_s']}.",
    ]
    if r["query_latency"]:
        lat = ", ".join(f"{b} p50 {v['p50_ms']} ms / p95 {v['p95_ms']} ms" for b, v in r["query_latency"].items())
        lines.append(f"One query (Stacks dev slogans, 100): {lat}.")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
