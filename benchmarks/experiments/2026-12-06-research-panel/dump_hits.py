"""Dump the default search's first 30 hits with their evidence for every dev query (at most --limit per set), for
fitting and checking the confidence offline (calibration with the answer held out of the index).

    python benchmarks/experiments/2026-12-06-research-panel/dump_hits.py --limit 150 --out /tmp/hits.json
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from variants import SETS, variant_setup


def main() -> None:
    from theorem_rag.config import Settings
    from theorem_rag.eval.queries import legacy_aliases, load_queries, resolve_ids
    from theorem_rag.record_files import read_records
    from theorem_rag.query_understanding import understand
    from theorem_rag.search import TheoremSearch

    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=150)
    ap.add_argument("--variant", default="default")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    search, patches = variant_setup(args.variant, TheoremSearch.from_settings(Settings()))
    assert not patches
    aliases = legacy_aliases(read_records(Path(__file__).resolve().parents[3] / "data" / "records").theorems)
    rows = []
    t0 = time.time()
    for name, (path, _) in SETS.items():
        for q in resolve_ids(load_queries(path)[: args.limit], aliases):
            hits = search.search(q.query, k=30)
            text = understand(q.query).text
            space, model = search.retriever.dense_space(q.query)
            vec = model.get_query_embedding(text)
            dense = search.store.search_dense(space, vec, k=50)
            lexical = search.store.search_text(text, k=50)
            rows.append({"set": name, "id": q.id, "relevant": list(q.relevant), "exclude": list(q.exclude),
                         "hits": [{"id": h.theorem_id, "cosine": h.cosine, "dense_rank": h.dense_rank,
                                   "lexical_rank": h.lexical_rank, "named": h.named, "unknown": h.unknown,
                                   "confidence": h.confidence} for h in hits],
                         "dense": [[h.theorem_id, h.score] for h in dense],
                         "lexical": [[h.theorem_id, h.score] for h in lexical]})
        print(name, len(rows), f"{time.time() - t0:.0f}s", flush=True)
    args.out.write_text(json.dumps(rows))


if __name__ == "__main__":
    main()
