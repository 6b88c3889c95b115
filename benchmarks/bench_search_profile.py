"""Per-stage profile of ``TheoremSearch.search``: query embedding, dense SQL, full-text SQL, fusion, hydration.

Times each stage of every query (dense only and hybrid) by wrapping the methods the retriever calls on the live
objects (nothing is replaced: each wrapper calls the real method and reads the clock around it), and reports
p50/p95/mean per stage. Queries: a fixed sample of the dev sets in ``../shared/eval`` (slogans, PlanetMath
names, Stacks LaTeX statements).

To compare two versions of the code side by side in one run, give several trees, each with its own copy of the
index (a schema migration must not touch the other copy); the rounds alternate between them:

    git archive <old-commit> | tar -x -C /tmp/before
    python benchmarks/bench_search_profile.py --tree before=/tmp/before:/work/data/before \\
        --tree after=.:/work/data/after --rounds 2

Each (tree, round) runs in its own process with ``PYTHONPATH=<tree>`` and ``THEOREM_RAG_DATA_DIR=<data>``;
results go to ``benchmarks/results/search_profile_<date>/search_profile_<date>_<time>.{json,md}`` (``--results``
names another folder in place of ``benchmarks/results``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EVAL = ROOT.parent / "shared" / "eval"
STAGES = ("embed", "dense_sql", "text_sql", "fusion", "hydrate")
SETS = {"stacks_slogans_dev": 60, "planetmath_synonyms": 40, "stacks_proof_refs": 40}


def load_queries(eval_dir: Path, seed: int = 13) -> list[tuple[str, str]]:
    """(set name, query) pairs: a seeded sample of each dev set, the same in every process."""
    out: list[tuple[str, str]] = []
    for name, n in SETS.items():
        rows = [json.loads(line) for line in (eval_dir / f"{name}.jsonl").read_text().splitlines() if line.strip()]
        rng = random.Random(f"{seed}:{name}")
        out += [(name, r["query"]) for r in rng.sample(rows, min(n, len(rows)))]
    return out


# -- worker: one process, one tree ----------------------------------------------------------------------------


class StageClock:
    """Wall time per stage of the query in flight (wrappers add to it)."""

    def __init__(self) -> None:
        self.current: dict[str, float] = {}
        self.lexical: list[str] = []

    def wrap(self, stage: str, fn):
        def timed(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.current[stage] = self.current.get(stage, 0.0) + time.perf_counter() - t0

        return timed


def instrument(search, clock: StageClock) -> None:
    """Wrap the store's and the fusion's functions (once: modes share them) and this search's embedding."""
    import theorem_rag.retrieval.retriever as retriever_module

    embed = search.retriever.embed_model
    # A pydantic model refuses unknown attributes through its __setattr__; the instance dict still takes one.
    object.__setattr__(embed, "get_query_embedding", clock.wrap("embed", embed.get_query_embedding))
    store = search.store
    if getattr(store, "_profiled", False):
        return
    store._profiled = True
    store.search_dense = clock.wrap("dense_sql", store.search_dense)
    text = clock.wrap("text_sql", store.search_text)

    def search_text(*args, **kwargs):
        hits = text(*args, **kwargs)
        clock.lexical = [h.theorem_id for h in hits]
        return hits

    store.search_text = search_text
    store.hydrate = clock.wrap("hydrate", store.hydrate)
    retriever_module.fuse = clock.wrap("fusion", retriever_module.fuse)


def run_worker(args: argparse.Namespace) -> None:
    import theorem_rag
    from theorem_rag.search import TheoremSearch

    queries = load_queries(Path(args.eval_dir))
    search = TheoremSearch.from_settings()
    if hasattr(search.embedder, "query_cache_size"):
        # Every query is embedded for real, in both trees: the query-vector cache would otherwise hand the hybrid
        # pass the vectors of the dense pass (servers keep it on; a profile of the stages must not).
        search.embedder.query_cache_size = 0
    modes = {"dense": search.with_options(hybrid=False), "hybrid": search}
    clock = StageClock()
    for s in modes.values():
        instrument(s, clock)
    for s in modes.values():  # warm up: model, pool, plans
        for _, q in queries[:: max(1, len(queries) // 10)]:
            s.search(q, k=args.k)
    records = []
    for mode, s in modes.items():
        for set_name, q in queries:
            clock.current, clock.lexical = {}, []
            t0 = time.perf_counter()
            hits = s.search(q, k=args.k)
            total = time.perf_counter() - t0
            records.append({"mode": mode, "set": set_name, "query": q, "total": total, **clock.current,
                            "ids": [h.theorem_id for h in hits], "lexical": clock.lexical})  # fmt: skip
    search.close()
    Path(args.out).write_text(json.dumps({"code": theorem_rag.__file__, "records": records}))


# -- driver: alternate trees, summarize ------------------------------------------------------------------------


def _pct(values: list[float], p: float) -> float:
    values = sorted(values)
    if not values:
        return float("nan")
    i = min(len(values) - 1, max(0, round(p / 100 * (len(values) - 1))))
    return values[i]


def summarize(records: list[dict]) -> dict:
    out: dict = {}
    for mode in sorted({r["mode"] for r in records}):
        rows = [r for r in records if r["mode"] == mode]
        stages = {}
        for stage in (*STAGES, "other", "total"):
            if stage == "other":
                vals = [r["total"] - sum(r.get(s, 0.0) for s in STAGES) for r in rows]
            else:
                vals = [r.get(stage, 0.0) for r in rows]
            ms = [v * 1000 for v in vals]
            stages[stage] = {"p50": _pct(ms, 50), "p95": _pct(ms, 95), "mean": statistics.fmean(ms)}
        per_set = {
            s: {"p50": _pct([r["total"] * 1000 for r in rows if r["set"] == s], 50),
                "p95": _pct([r["total"] * 1000 for r in rows if r["set"] == s], 95)}
            for s in SETS
        }  # fmt: skip
        out[mode] = {"queries": len(rows), "stages": stages, "total_by_set": per_set}
    return out


def agreement(a: list[dict], b: list[dict]) -> dict:
    """How often two trees return the same ranking for the same query (hybrid): final top k, full-text list."""
    first = {(r["mode"], r["query"]): r for r in a}
    same_final = same_lexical = n = 0
    for r in b:
        other = first.get((r["mode"], r["query"]))
        if other is None or r["mode"] != "hybrid":
            continue
        n += 1
        same_final += other["ids"] == r["ids"]
        same_lexical += other["lexical"] == r["lexical"]
    return {"queries": n, "same_top_k": same_final, "same_full_text_ranking": same_lexical}


def run_driver(args: argparse.Namespace) -> None:
    trees = []
    for spec in args.tree or [f"current={ROOT}:{os.environ.get('THEOREM_RAG_DATA_DIR', '')}"]:
        label, rest = spec.split("=", 1)
        path, data = rest.split(":", 1)
        trees.append((label, str(Path(path).resolve()), data))
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d_%H%M%S")
    records: dict[str, list[dict]] = {label: [] for label, _, _ in trees}
    code: dict[str, str] = {}
    for rnd in range(args.rounds):
        for label, path, data in trees:
            out = Path(f"/tmp/search_profile_{stamp}_{label}_{rnd}.json")
            env = {**os.environ, "PYTHONPATH": path}
            if data:
                env["THEOREM_RAG_DATA_DIR"] = data
            cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", "--out", str(out), "--k", str(args.k),
                   "--eval-dir", args.eval_dir]  # fmt: skip
            print(f"round {rnd + 1}/{args.rounds}: {label} ({path}, data {data or 'default'})", flush=True)
            subprocess.run(cmd, env=env, check=True)
            result = json.loads(out.read_text())
            code[label] = result["code"]
            records[label] += result["records"]
    load = os.getloadavg()
    report = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
        "machine": f"{os.cpu_count()} cores, {os.uname().sysname} {os.uname().release}; shared with other jobs",
        "load_average_end": [round(x, 2) for x in load],
        "k": args.k, "rounds": args.rounds, "query_sets": SETS,
        "trees": {label: {"path": path, "data": data, "code": code.get(label)} for label, path, data in trees},
        "summary": {label: summarize(recs) for label, recs in records.items()},
    }  # fmt: skip
    labels = list(records)
    if len(labels) >= 2:
        report["agreement"] = {f"{labels[0]} vs {lb}": agreement(records[labels[0]], records[lb]) for lb in labels[1:]}
    results = Path(args.results) / f"search_profile_{stamp[:8]}"  # one folder per day
    results.mkdir(parents=True, exist_ok=True)
    (results / f"search_profile_{stamp}.json").write_text(json.dumps(report, indent=1) + "\n")
    (results / f"search_profile_{stamp}.md").write_text(markdown(report))
    print(markdown(report))


def markdown(report: dict) -> str:
    lines = [
        f"# Per-stage profile of TheoremSearch.search ({report['date']})", "",
        f"Command: `python benchmarks/{report['command']}`  ",
        f"Machine: {report['machine']}; load average at the end {report['load_average_end']}.  ",
        f"Queries: {sum(report['query_sets'].values())} per mode ({', '.join(f'{n} {s}' for s, n in report['query_sets'].items())}), "
        f"k={report['k']}, {report['rounds']} round(s) alternating between the trees, so each figure has "
        f"{report['rounds']} x queries samples. Times in ms, wall clock, single client.", "",
    ]  # fmt: skip
    labels = list(report["summary"])
    for mode in ("dense", "hybrid"):
        lines += [f"## {mode}", "", "| stage | " + " | ".join(f"{lb} p50 | {lb} p95" for lb in labels) + " |",
                  "|---|" + "---:|---:|" * len(labels)]  # fmt: skip
        for stage in (*STAGES, "other", "total"):
            cells = []
            for lb in labels:
                st = report["summary"][lb][mode]["stages"][stage]
                cells += [f"{st['p50']:.1f}", f"{st['p95']:.1f}"]
            lines.append(f"| {stage} | " + " | ".join(cells) + " |")
        for s in SETS:
            cells = []
            for lb in labels:
                st = report["summary"][lb][mode]["total_by_set"][s]
                cells += [f"{st['p50']:.1f}", f"{st['p95']:.1f}"]
            lines.append(f"| total, {s} | " + " | ".join(cells) + " |")
        lines.append("")
    for pair, a in report.get("agreement", {}).items():
        lines.append(f"Same results ({pair}, hybrid): top-{report['k']} identical for {a['same_top_k']} of "
                     f"{a['queries']} query runs, full-text ranking identical for {a['same_full_text_ranking']}.")  # fmt: skip
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", action="append", help="LABEL=CODE_PATH:DATA_DIR (repeat; rounds alternate)")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--eval-dir", default=str(EVAL))
    parser.add_argument("--results", default=str(ROOT / "benchmarks" / "results"), help="folder for the report")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    run_worker(args) if args.worker else run_driver(args)


if __name__ == "__main__":
    main()
