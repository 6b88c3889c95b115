"""The Markdown of a scale run (``benchmarks/bench_scale.py``: one ``scale_<N>.md``) and the growth table over the
runs at every N (``scale_growth.md``), from the runs' JSON."""

from __future__ import annotations

def _mb(n: float) -> str:
    return f"{n / 2**20:,.1f}"


def markdown(r: dict) -> str:
    load, mem, lat, rec = r["load"], r["memory"], r["latency"], r["recall"]
    lines = [
        f"# Scale benchmark: {r['n']:,} statements ({r['date']})",
        "",
        f"Command: `{r['command']}`  ",
        f"Machine: {r['machine']['cores']} cores ({r['machine']['cpu']}), {r['machine']['mem_gib']} GiB, shared with "
        f"other jobs; load average {r['loadavg_start']} at the start, {r['loadavg_end']} at the end.  ",
        f"Code: `{r['code']['commit'][:12]}` on `{r['code']['branch']}`{' (uncommitted changes)' if r['code']['dirty'] else ''}; "
        f"{r['postgres']}; settings {', '.join(f'{k}={v}' for k, v in r['settings'].items())}.  ",
        f"Seed: {r['seed']['statements']:,} statements with slogans and vectors read from `{r['seed']['data_dir']}` "
        f"(space `{r['seed']['space']}`); corpus: {r['corpus']['rounds']:.2f} rounds, mix {r['corpus']['mix']}, "
        f"noise {r['corpus']['noise']}, batches of {r['corpus']['batch_size']:,}"
        f"{', statements copied by %d connections at once' % r['corpus']['writers'] if 'writers' in r['corpus'] else ''}.",
        "",
        "Timings are wall-clock on a machine other jobs were using at the same time: read them as upper bounds.",
        "",
    ]
    if "build" in r:
        b = r["build"]
        lines += [
            f"Two phases: built by `{b['command']}` ({b['date']}, code `{b['code']['commit'][:12]}`, load average "
            f"{b['loadavg_start']} -> {b['loadavg_end']}); latency and recall measured on that index by the command "
            f"above with the code above (migrations applied first: {r.get('migrations_applied')}, "
            f"{r.get('migrate_seconds', 0):.0f} s).",
            "",
        ]
    lines += [
        "## Load and build",
        "",
        "| step | seconds | rows/s |",
        "|---|---:|---:|",
    ]
    for step, secs in load["seconds"].items():
        per = f"{load['rows'] / secs:,.0f}" if step in ("documents", "theorems", "vectors") and secs else ""
        lines.append(f"| {step} | {secs:,.1f} | {per} |")
    lines += [
        f"| **load (documents + statements + vectors)** | {load['load_seconds']:,.1f} | **{load['rows_per_second']:,.0f}** |",
        f"| **index builds (statements table, full-text included, + HNSW)** | {index_seconds(load) + load['seconds'].get('hnsw', 0):,.1f} | |",
        f"| total (generating the batches in Python included) | {sum(load['seconds'].values()):,.1f} | |",
        "",
        f"{load['rows']:,} statements in {load['documents']:,} documents.",
        "",
        "## Size on disk",
        "",
        "| table | relation | kind | MB | bytes per statement |",
        "|---|---|---|---:|---:|",
    ]
    for s in r["sizes"]["relations"]:
        lines.append(f"| {s['table']} | {s['name']} | {s['kind']} | {_mb(s['bytes'])} | {s['bytes'] / r['n']:,.0f} |")
    db = r["sizes"]["database_bytes"]
    lines += [f"| **database** | | | **{_mb(db)}** | **{db / r['n']:,.0f}** |", "",
              "## Peak memory (MB; PostgreSQL: sum over the server's processes, sampled every 0.5 s)", "",
              "| step | PostgreSQL RSS | PostgreSQL PSS | processes | Python RSS |", "|---|---:|---:|---:|---:|"]  # fmt: skip
    for step, p in mem["steps"].items():
        lines.append(f"| {step} | {p['pg_rss_mb']:,.0f} | {p['pg_pss_mb']:,.0f} | {p['pg_procs']} | {p['python_rss_mb']:,.0f} |")
    lines += [f"| **peak** | **{mem['peak']['pg_rss_mb']:,.0f}** | **{mem['peak']['pg_pss_mb']:,.0f}** | | "
              f"**{mem['python_maxrss_mb']:,.0f}** (maxrss) |", ""]  # fmt: skip
    emb = r["query_embedding_ms"]
    lines += [
        f"## Query latency (ms, single client, {lat['dense']['all']['n']} dev queries, {r['warmup']} warm-up)",
        "",
        f"Dense: `store.search_dense` (k={r['k']}, pool {r['pool']}, ef_search {r['ef_search']}, HNSW index {r.get('dense_index', 'bit')}, m {r.get('hnsw_m', 16)}, ef_construction {r.get('ef_construction', 64)}); full-text: "
        f"`store.search_text` (k={r['text_k']}); hybrid: `TheoremRetriever.retrieve` with the query vector given "
        f"(dense + full-text, RRF, records). Query embedding is apart: p50 {emb['p50']:.1f} ms, p95 {emb['p95']:.1f} ms.",
        "",
        "| mode | queries | p50 | p95 | p99 | mean |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for mode in ("dense", "text", "hybrid"):
        for qset, p in lat[mode].items():
            name = f"**{mode}**" if qset == "all" else mode
            lines.append(f"| {name} | {qset} ({p['n']}) | {p['p50']:.1f} | {p['p95']:.1f} | {p['p99']:.1f} | {p['mean']:.1f} |")
    ex = rec["exact_sql"]
    lines += [
        "",
        f"## Recall@{r['k']} of the {'half-precision cosine' if r.get('dense_index') == 'halfvec' else 'Hamming'} pool "
        "+ exact re-rank against an exact scan",
        "",
        f"Exact reference: numpy scan of all {r['n']:,} vectors ({rec['exact_numpy_seconds']:.0f} s for all queries). "
        f"The store's exact SQL scan on {ex.get('queries', 0)} of them agrees with it at "
        f"{ex.get('agreement_with_numpy') or 0:.3f} and takes p50 {ex.get('p50', 0):,.0f} ms per query.",
        "",
        f"| pool | Recall@{r['k']} | p50 ms | p95 ms | p99 ms |",
        "|---:|---:|---:|---:|---:|",
    ]
    for pool, p in rec["pools"].items():
        lines.append(f"| {int(pool):,} | {p['recall']:.4f} | {p['p50']:.1f} | {p['p95']:.1f} | {p['p99']:.1f} |")
    return "\n".join(lines) + "\n"


def index_seconds(load: dict) -> float:
    """Seconds spent building the statements table's indexes after the load: every secondary index (``indexes``,
    since the bulk path defers them all) or, in runs made before, the full-text index alone (``text_index``)."""
    return load["seconds"].get("indexes", load["seconds"].get("text_index", 0.0))


def growth(results: list[dict]) -> str:
    """A table of the headline figures at every N measured, with the ratio of the largest to the smallest N."""
    results = sorted(results, key=lambda r: r["n"])
    rows = [
        ("load rows/s", lambda r: r["load"]["rows_per_second"], "{:,.0f}"),
        ("load s", lambda r: r["load"]["load_seconds"], "{:,.0f}"),
        ("statements-table index builds s", lambda r: index_seconds(r["load"]), "{:,.1f}"),
        ("lexicon refresh s", lambda r: r["load"]["seconds"].get("lexicon", 0), "{:,.1f}"),
        ("HNSW build s", lambda r: r["load"]["seconds"].get("hnsw", 0), "{:,.1f}"),
        ("database MB", lambda r: r["sizes"]["database_bytes"] / 2**20, "{:,.0f}"),
        ("bytes per statement", lambda r: r["sizes"]["database_bytes"] / r["n"], "{:,.0f}"),
        ("PostgreSQL peak RSS MB", lambda r: r["memory"]["peak"]["pg_rss_mb"], "{:,.0f}"),
        ("PostgreSQL peak PSS MB", lambda r: r["memory"]["peak"]["pg_pss_mb"], "{:,.0f}"),
        ("Python peak RSS MB", lambda r: r["memory"]["python_maxrss_mb"], "{:,.0f}"),
        *[(f"{m} p{p} ms", (lambda r, m=m, p=p: r["latency"][m]["all"][f"p{p}"]), "{:,.1f}")
          for m in ("dense", "text", "hybrid") for p in (50, 95, 99)],
        *[(f"recall@20 pool {pool}", (lambda r, pool=pool: r["recall"]["pools"].get(pool, {}).get("recall", float("nan"))),
           "{:.4f}") for pool in ("200", "500", "1000", "2000")],
        ("exact SQL scan p50 ms", lambda r: r["recall"]["exact_sql"].get("p50", float("nan")), "{:,.0f}"),
    ]  # fmt: skip
    head = "| figure | " + " | ".join(f"{r['n']:,}" for r in results) + " | ratio last/first |"
    lines = ["# Growth with N (benchmarks/bench_scale.py)", "",
             "Each column is one run (`benchmarks/results/scale_<N>.md` has its command, date, machine, load and "
             "commit). The machine was shared with other jobs: timings are upper bounds.", "",
             head, "|---|" + "---:|" * (len(results) + 1)]  # fmt: skip
    for name, get, fmt in rows:
        vals = [get(r) for r in results]
        ratio = f"{vals[-1] / vals[0]:.2f}" if len(vals) > 1 and vals[0] else "-"  # nothing to compare with
        lines.append(f"| {name} | " + " | ".join(fmt.format(v) for v in vals) + f" | {ratio} |")
    def code(r: dict) -> str:
        built = f", built with `{r['build']['code']['commit'][:10]}`" if "build" in r else ""
        return f"{r['n']:,}: {r['date']} `{r['code']['commit'][:10]}`{built}"

    lines += ["", "Dates and commits (where two runs ran different code, a ratio mixes growth with the code change): "
              + "; ".join(code(r) for r in results)]  # fmt: skip
    return "\n".join(lines) + "\n"
