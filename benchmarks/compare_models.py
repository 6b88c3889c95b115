"""Side-by-side table of two or more `theorem-rag eval` runs (one per embedding model): Hit@1, Hit@20, MRR@20 and
Recall@10/20 per query set and configuration.

    python benchmarks/compare_models.py base=runs/base/results.json adapted=runs/adapted/results.json > table.md

Prints the Markdown table; writes nothing.
"""

from __future__ import annotations

import json
import sys

METRICS = (("hit@1", "Hit@1"), ("hit@20", "Hit@20"), ("mrr@20", "MRR@20"), ("recall@10", "R@10"),
           ("recall@20", "R@20"))


def main(argv: list[str]) -> None:
    runs = {}
    for arg in argv:
        label, _, path = arg.partition("=")
        if not path:
            raise SystemExit(f"{arg!r}: expected LABEL=results.json")
        with open(path, encoding="utf-8") as f:
            runs[label] = json.load(f)
    sets = list(dict.fromkeys(s for r in runs.values() for c in r["results"].values() for s in c))
    configs = list(dict.fromkeys(c for r in runs.values() for c in r["results"]))
    print("| query set (n) | configuration | model | " + " | ".join(m for _, m in METRICS) + " |")
    print("|---|---|---|" + "---:|" * len(METRICS))
    for s in sets:
        for c in configs:
            for label, r in runs.items():
                cell = r["results"].get(c, {}).get(s)
                if not cell:
                    continue
                values = " | ".join(f"{cell['theorem'][m]:.3f}" for m, _ in METRICS)
                print(f"| {s} ({cell['n']}) | {c} | {label} | {values} |")


if __name__ == "__main__":
    main(sys.argv[1:])
