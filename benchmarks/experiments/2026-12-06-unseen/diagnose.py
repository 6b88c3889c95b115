"""Where each dev query's answer stands in every ranking the default fuses, on one index (issue 53's diagnosis).

For each query: the answer's place (first relevant, 1-based, None beyond --depth) in the default's final ranking,
the plain hybrid's (no query understanding), the dense ranking of the base model's slogan space, the dense ranking of
the adapted model's space (queries in words), and the full-text ranking of the query as typed. A set with its own
sources (unseen_dev.jsonl beside unseen/) has them added to the index for the run, as `theorem-rag eval` does.

    python benchmarks/experiments/2026-12-06-unseen/diagnose.py --sets unseen_dev,research_dev \
        --out benchmarks/experiments/2026-12-06-unseen/diagnose.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
EVAL = Path(os.environ.get("THEOREM_RAG_EVAL", ROOT.parent / "shared" / "eval"))
FILES = {"unseen_dev": EVAL / "unseen_dev.jsonl", "research_dev": EVAL / "research_dev.jsonl",
         "stacks_slogans_dev": EVAL / "stacks_slogans_dev.jsonl"}


def place(ids, relevant):
    return next((i for i, x in enumerate(ids, 1) if x in relevant), None)


def main() -> None:
    from theorem_rag.config import Settings
    from theorem_rag.eval.index_configs import EvalIndex
    from theorem_rag.eval.queries import legacy_aliases, load_queries, resolve_ids
    from theorem_rag.eval.set_corpora import parsed_records, set_corpus
    from theorem_rag.record_files import read_records
    from theorem_rag.search import TheoremSearch

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", default="unseen_dev")
    ap.add_argument("--depth", type=int, default=100)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    settings = Settings()
    base = TheoremSearch.from_settings(settings)
    aliases = legacy_aliases(read_records(ROOT / "data" / "records").theorems)
    sets = {n: resolve_ids(load_queries(FILES[n]), aliases) for n in args.sets.split(",")}
    extras = [t for n in sets if (folder := set_corpus(FILES[n])) is not None
              for t in read_records(parsed_records(folder, settings.data_dir / "eval-corpora")).theorems]
    index = EvalIndex(settings)
    index.add_records(extras)
    try:
        plain = base.with_options(understand=False)
        dense_base = base.with_options(hybrid=False, understand=False, query_space=None, query_embedder=None)
        dense_adapted = base.with_options(hybrid=False, understand=False)
        out = {}
        for name, queries in sets.items():
            rows = []
            for q in queries:
                rel = set(q.relevant)
                row = {"id": q.id, "query": q.query}
                for label, s in (("default", base), ("plain", plain), ("dense_base", dense_base),
                                 ("dense_adapted", dense_adapted)):
                    row[label] = place([h.theorem_id for h in s.search(q.query, k=args.depth)], rel)
                row["lexical"] = place([h.theorem_id for h in base.store.search_text(q.query, k=args.depth)], rel)
                rows.append(row)
            out[name] = rows
            cols = ("default", "plain", "dense_base", "dense_adapted", "lexical")
            print(f"{name} (n = {len(rows)})")
            for c in cols:
                ranks = [r[c] for r in rows]
                mrr = statistics.fmean(1 / x if x and x <= 20 else 0 for x in ranks)
                hit = lambda k: statistics.fmean(1 if x and x <= k else 0 for x in ranks)  # noqa: E731
                print(f"  {c:14s} MRR@20 {mrr:.3f}  Hit@1 {hit(1):.3f}  Hit@20 {hit(20):.3f}  Hit@100 {hit(100):.3f}")
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(out, indent=1))
    finally:
        index.remove_records([t.id for t in extras])


if __name__ == "__main__":
    main()
