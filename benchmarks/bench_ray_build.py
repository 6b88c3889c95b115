"""The build on Ray Data beside the single-process build: statements per second per stage (parse, slogans,
embed, write), on a fixed subset of the shared corpora, on its own embedded PostgreSQL.

    python benchmarks/bench_ray_build.py --corpus ../shared/corpora/papers --num-cpus 2

Parse: ``parse_sources`` against ``parse_sources_ray`` (one Ray task per paper). Index: ``build_index`` against
``build_index_ray`` on the parsed records, each into a fresh table prefix, offline slogans, the bundled MiniLM.
For the single-process build "write" is statements upsert plus vector COPY, "embed" the model's time alone (timed
around ``embed_documents``). For Ray, per stage, statements/s = statements / busy seconds summed over that
stage's workers (what one worker does), and the wall figure is the whole pipeline. Runs alternate
(local, ray, local, ray...) so that load from other jobs falls on both. Writes JSON and Markdown.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


class TimedEmbedder:
    """An Embedder whose ``embed_documents`` time is summed (the local build's embedding alone)."""

    def __init__(self, inner) -> None:
        self.inner, self.seconds = inner, 0.0
        self.model_name, self.doc_instruction = inner.model_name, inner.doc_instruction

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed_documents(self, texts, *, progress=False):
        t0 = time.perf_counter()
        try:
            return self.inner.embed_documents(texts, progress=progress)
        finally:
            self.seconds += time.perf_counter() - t0


def rate(n: int, seconds: float) -> float | None:
    return round(n / seconds, 1) if seconds > 0 else None


def parse_local(sources, out, plastex):
    from corpus_build.parse import parse_sources

    t0 = time.perf_counter()
    rep = parse_sources(sources, out, use_plastex=plastex, progress=False)
    return rep.to_dict()["totals"]["records_kept"], time.perf_counter() - t0


def parse_ray(sources, out, plastex):
    from corpus_build.ray_parse import parse_sources_ray

    t0 = time.perf_counter()
    rep = parse_sources_ray(sources, out, use_plastex=plastex)
    return rep.to_dict()["totals"]["records_kept"], time.perf_counter() - t0


def index_local(dsn, table, theorems, documents):
    from theorem_rag.db.store import TheoremStore
    from theorem_rag.embed import Embedder
    from theorem_rag.indexing.ingest import build_index
    from theorem_rag.slogans.offline import OfflineSloganWriter

    emb = TimedEmbedder(Embedder())
    _ = emb.inner.model  # loaded before the clock starts, as Ray's actors load theirs in their constructors
    with TheoremStore(dsn, table=table) as store:
        store.migrate()
        t0 = time.perf_counter()
        rep = build_index(store, emb, theorems, documents, writer=OfflineSloganWriter(), space="minilm_slogan",
                          progress=False, build_hnsw=False)  # fmt: skip
        wall = time.perf_counter() - t0
    s = rep.seconds
    stages = {"slogans": s["slogans"], "embed": emb.seconds, "write": s["upsert"] + s["embed"] - emb.seconds}
    return {"wall_s": wall, "stage_s": stages, "embedded": rep.embedded}


def index_ray(dsn, table, theorems, documents, batch_size, embed_actors):
    from theorem_rag.db.store import TheoremStore
    from theorem_rag.indexing.ray_build import RayBuildOptions, build_index_ray

    with TheoremStore(dsn, table=table) as store:
        store.migrate()
    t0 = time.perf_counter()
    rep = build_index_ray(dsn, theorems, documents, space="minilm_slogan", table=table, build_hnsw=False,
                          options=RayBuildOptions(batch_size=batch_size, embed_actors=embed_actors))  # fmt: skip
    wall = time.perf_counter() - t0
    s = rep.seconds
    stages = {"slogans": s["slogans_busy"], "embed": s["embed_busy"], "write": s["write_busy"] + s["vectors_busy"]}
    return {"wall_s": wall, "stage_s": stages, "embedded": rep.embedded, "pipeline_s": s["pipeline"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", action="append", help="SOURCE folders to parse (default: the 27 papers)")
    ap.add_argument("--no-plastex", action="store_true")
    ap.add_argument("--limit", type=int, default=0, help="index at most this many statements (0: all parsed)")
    ap.add_argument("--rounds", type=int, default=1, help="alternating local/ray rounds")
    ap.add_argument("--num-cpus", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--embed-actors", type=int, default=1)
    ap.add_argument("--engines", default="local,ray", help="index with these engines, in this order (local, ray)")
    ap.add_argument("--parse-only", action="store_true", help="no index rows")
    ap.add_argument("--records", type=Path, help="index these records (a `corpus parse` folder); no parse rows")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "ray_build")
    args = ap.parse_args()
    sources = args.corpus or [str(ROOT.parent / "shared" / "corpora" / "papers")]

    from corpus_build.ray_engine import init_ray
    from theorem_rag.db.server import EmbeddedServer, ensure_database
    from theorem_rag.record_files import read_records

    work = Path(tempfile.mkdtemp(prefix="bench-ray-"))
    load_before = os.getloadavg()
    t0 = time.perf_counter()
    init_ray(num_cpus=args.num_cpus, object_store_mb=400)
    ray_start = time.perf_counter() - t0
    result: dict = {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"), "command": " ".join(sys.argv),
                    "machine": f"{platform.node()} {os.cpu_count()} CPUs, {platform.processor() or platform.machine()}",
                    "load_before": [round(x, 2) for x in load_before], "ray_init_s": round(ray_start, 1),
                    "sources": [] if args.records else sources, "plastex": not args.no_plastex, "parse": [], "index": [],
                    "records": str(args.records) if args.records else None, "embed_actors": args.embed_actors}  # fmt: skip
    server = EmbeddedServer(work / "pg")
    server.start()
    try:
        records = args.records or work / "records"
        for r in range(0 if args.records else args.rounds):
            for engine, fn in (("local", parse_local), ("ray", parse_ray)):
                out = work / f"parse-{engine}-{r}"
                n, secs = fn(sources, out, not args.no_plastex)
                result["parse"].append({"engine": engine, "round": r, "statements": n, "seconds": round(secs, 1),
                                        "statements_per_s": rate(n, secs)})  # fmt: skip
                print(result["parse"][-1], flush=True)
                if not records.exists():
                    shutil.copytree(out, records)
        if not args.parse_only:
            recs = read_records(records)
            theorems = recs.theorems[: args.limit] if args.limit else recs.theorems
            doc_ids = {t.doc_id for t in theorems}
            documents = [d for d in recs.documents if d.id in doc_ids]
            dsn = server.dsn("bench")
            ensure_database(server.dsn("postgres"), "bench")
            for r in range(args.rounds):
                for engine in args.engines.split(","):
                    table = f"b_{engine}_{r}"
                    if engine == "local":
                        got = index_local(dsn, table, theorems, documents)
                    else:
                        got = index_ray(dsn, table, theorems, documents, args.batch_size, args.embed_actors)
                    n = len(theorems)
                    row = {"engine": engine, "round": r, "statements": n, "wall_s": round(got["wall_s"], 1),
                           "wall_statements_per_s": rate(n, got["wall_s"]),
                           **{f"{k}_s": round(v, 1) for k, v in got["stage_s"].items()},
                           **{f"{k}_statements_per_s": rate(n, v) for k, v in got["stage_s"].items()}}  # fmt: skip
                    result["index"].append(row)
                    print(row, flush=True)
    finally:
        server.stop()
        server.release()
        shutil.rmtree(work, ignore_errors=True)
    result["load_after"] = [round(x, 2) for x in os.getloadavg()]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(result, indent=1) + "\n")
    args.out.with_suffix(".md").write_text(markdown(result))
    print(markdown(result))


def markdown(r: dict) -> str:
    lines = [f"# Ray build beside the single-process build ({r['date']})", "",
             f"Command: `{r['command']}`", "",
             f"Machine: {r['machine']}; load average before {r['load_before']}, after {r.get('load_after')} "
             "(shared with other jobs: compare rows of the same round only). Ray started in "
             f"{r['ray_init_s']} s (not counted below).", "",
             f"Statements indexed: {r.get('records') or 'the parse output'}; embedding actors: {r.get('embed_actors', 1)}.", "",
             f"## Parse ({', '.join(Path(s).name for s in r['sources'])}; plasTeX {'on' if r['plastex'] else 'off'})", "",
             "| round | engine | statements | seconds | statements/s |", "|---|---|---:|---:|---:|"]  # fmt: skip
    lines += [f"| {p['round']} | {p['engine']} | {p['statements']} | {p['seconds']} | {p['statements_per_s']} |"
              for p in r["parse"]]  # fmt: skip
    lines += ["", "## Index (offline slogans, MiniLM on CPU, no HNSW)", "",
              "Per stage: statements / seconds spent in that stage (Ray: summed over the stage's workers).", "",
              "| round | engine | statements | wall s | wall stmts/s | slogans stmts/s | embed stmts/s | write stmts/s |",
              "|---|---|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
    lines += [f"| {x['round']} | {x['engine']} | {x['statements']} | {x['wall_s']} | {x['wall_statements_per_s']} | "
              f"{x['slogans_statements_per_s']} | {x['embed_statements_per_s']} | {x['write_statements_per_s']} |"
              for x in r["index"]]  # fmt: skip
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
