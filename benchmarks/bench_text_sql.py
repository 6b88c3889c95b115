"""The full-text query alone, old SQL text against the current one, on the same index in one process.

Both run on the same connection, query by query in alternation (old, new, old, new...), so machine load hits
both alike; the old SQL text comes from another checkout's ``theorem_rag/db/lexical_sql.py`` (``text_sql.py`` before
issue 54, ``sqltext.py`` before 2026-12-03) (for example
``git archive 9f54ff6 | tar -x -C /tmp/before``), which must still run on the current schema. Reports p50/p95
per query set and kind (keyword / long), and how often the two return the same ranking (ids in order).

    THEOREM_RAG_DATA_DIR=/work/data/sql python benchmarks/bench_text_sql.py --old /tmp/before --depth 50

Prints the table; ``--out FILE.json`` also writes it as JSON and Markdown (``FILE.md``).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_search_profile import EVAL, _pct, load_queries  # noqa: E402


def old_sqltext(tree: str):
    # The full-text SQL moved from sqltext.py to text_sql.py on 2026-12-03, then to lexical_sql.py (issue 54); an
    # older checkout has it in one of the former.
    db = Path(tree) / "theorem_rag" / "db"
    path = next((p for p in (db / "lexical_sql.py", db / "text_sql.py") if p.exists()), db / "sqltext.py")
    spec = importlib.util.spec_from_file_location("old_sqltext", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


def old_query(old, conn, names, text: str, k: int):
    """The old module's full-text query; a long query's terms come first, when the old module reads them."""
    from theorem_rag.filters import Filters
    from theorem_rag.query import is_short_query

    if not hasattr(old, "query_terms") or is_short_query(text):
        return old.text_search(names, text, Filters(), k)
    terms_sql, terms_params = old.query_terms(names, text)
    terms = [old.QueryTerm(lx, int(n), idf, int(total)) for lx, n, idf, total in conn.execute(terms_sql, terms_params)]
    return old.text_search(names, text, Filters(), k, terms=terms)


def main() -> None:
    from theorem_rag.config import Settings
    from theorem_rag.db.server import resolve_dsn
    from theorem_rag.db.store import TheoremStore
    from theorem_rag.filters import Filters
    from theorem_rag.query import is_short_query

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old", required=True, help="checkout whose theorem_rag/db/lexical_sql.py (or text_sql.py, sqltext.py) is the old SQL")
    parser.add_argument("--depth", type=int, default=50, help="k of the full-text query (the retriever's depth)")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--eval-dir", default=str(EVAL))
    parser.add_argument("--out", help="JSON file for the figures (and a .md beside it)")
    args = parser.parse_args()

    old = old_sqltext(args.old)
    settings = Settings()
    store = TheoremStore(resolve_dsn(settings), table=settings.table, pool_size=1)
    queries = load_queries(Path(args.eval_dir))
    times: dict[tuple[str, str, str], list[float]] = {}
    same = total = 0
    differ: list[str] = []
    with store.connection() as conn:
        for _ in range(args.repeat):
            for set_name, q in queries:
                text = q.strip()
                kind = "keyword" if is_short_query(text) else "long"
                rankings = {}
                for label in ("old", "new"):
                    t0 = time.perf_counter()
                    if label == "old":
                        query, params = old_query(old, conn, store.names, text, args.depth)
                    else:
                        query, params = store._text_query(conn, text, Filters(), args.depth)
                    rows = conn.execute(query, params).fetchall()
                    times.setdefault((label, set_name, kind), []).append((time.perf_counter() - t0) * 1000)
                    rankings[label] = [r[0] for r in rows]
                total += 1
                if rankings["old"] == rankings["new"]:
                    same += 1
                elif q not in differ:
                    differ.append(q)
    store.close()
    rows = []
    for (label, set_name, kind), ms in sorted(times.items()):
        rows.append({"code": label, "set": set_name, "kind": kind, "n": len(ms), "p50": _pct(ms, 50), "p95": _pct(ms, 95),
                     "mean": statistics.fmean(ms), "max": max(ms)})  # fmt: skip
    for label in ("old", "new"):
        ms = [v for (lb, _, _), vals in times.items() if lb == label for v in vals]
        rows.append({"code": label, "set": "all", "kind": "all", "n": len(ms), "p50": _pct(ms, 50), "p95": _pct(ms, 95),
                     "mean": statistics.fmean(ms), "max": max(ms)})  # fmt: skip
    report = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join(["python", "benchmarks/" + Path(sys.argv[0]).name, *sys.argv[1:]]),
        "machine": f"{os.cpu_count()} cores; shared with other jobs", "load_average_end": [round(x, 2) for x in os.getloadavg()],
        "depth": args.depth, "same_ranking": same, "runs": total, "differing_queries": differ[:20], "rows": rows,
    }  # fmt: skip
    md = [f"# Full-text SQL alone, old vs new ({report['date']})", "", f"Command: `{report['command']}`  ",
          f"Machine: {report['machine']}, load average at the end {report['load_average_end']}. Old and new alternate "
          f"query by query on one connection. Times in ms (query text built + executed + fetched).", "",
          f"Same ranking (ids in order, top {args.depth}): {same} of {total} runs.", "",
          "| code | set | kind | n | p50 | p95 | mean | max |", "|---|---|---|---:|---:|---:|---:|---:|"]  # fmt: skip
    md += [f"| {r['code']} | {r['set']} | {r['kind']} | {r['n']} | {r['p50']:.1f} | {r['p95']:.1f} | {r['mean']:.1f} | "
           f"{r['max']:.1f} |" for r in rows]  # fmt: skip
    print("\n".join(md))
    if differ:
        print("differing:", *differ[:10], sep="\n  ")
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=1) + "\n")
        Path(args.out).with_suffix(".md").write_text("\n".join(md) + "\n")


if __name__ == "__main__":
    main()
