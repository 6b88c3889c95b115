"""An evenly spread subset of a records folder, for a small seed index when the full index is not built yet.

    python benchmarks/scale_seed_subset.py data/records /tmp/seed_records --n 5000
    theorem-rag index build --records /tmp/seed_records --data-dir /work/data/scale_seed

Every k-th statement (k = total / n) of the records, in their order (so each corpus keeps its share), with the
documents they belong to. ``bench_scale.py --seed-data-dir`` then reads slogans and vectors from that index.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from theorem_rag.record_files import read_records


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("records", type=Path)
    p.add_argument("out", type=Path)
    p.add_argument("--n", type=int, default=5000)
    args = p.parse_args(argv)
    got = read_records(args.records)
    step = max(1, len(got.theorems) // args.n)
    theorems = got.theorems[::step][: args.n]
    docs = {t.doc_id for t in theorems}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "theorems.jsonl").write_text("".join(t.to_json() + "\n" for t in theorems))
    (args.out / "documents.jsonl").write_text(
        "".join(json.dumps(d.to_dict(), ensure_ascii=False) + "\n" for d in got.documents if d.id in docs)
    )
    by_source: dict[str, int] = {}
    for t in theorems:
        by_source[t.source] = by_source.get(t.source, 0) + 1
    print(f"{len(theorems)} of {len(got.theorems)} statements (every {step}th), {len(docs)} documents: {by_source}")


if __name__ == "__main__":
    main()
