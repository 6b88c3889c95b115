"""Print the README's compact quality table from an eval run's results.json.

    python benchmarks/summarize_eval.py benchmarks/results/eval/results.json
"""

from __future__ import annotations

import json
import sys

COLUMNS = [
    ("stacks_slogans_dev", "theorem", "hit@20", "Stacks slogans Hit@20"),
    ("stacks_slogans_dev", "theorem", "mrr@20", "MRR@20"),
    ("stacks_slogans_dev", "paper", "hit@20", "paper Hit@20"),
    ("planetmath_synonyms", "theorem", "hit@1", "PlanetMath synonyms Hit@1"),
    ("planetmath_synonyms", "theorem", "hit@20", "Hit@20"),
    ("stacks_proof_refs", "theorem", "recall@20", "Stacks proof refs Recall@20"),
]


def main(path: str) -> None:
    data = json.load(open(path))
    results = data["results"]
    sets = {s: next(iter(results.values()))[s]["n"] for s in next(iter(results.values()))}
    print("| configuration | " + " | ".join(c[3] for c in COLUMNS) + " | ms/query |")
    print("|---|" + "---:|" * (len(COLUMNS) + 1))
    for config, per_set in results.items():
        cells = [f"{per_set[s][level][m]:.3f}" if s in per_set else "-" for s, level, m, _ in COLUMNS]
        ms = sum(per_set[s]["latency_ms"] for s in per_set) / len(per_set)
        print(f"| {config} | " + " | ".join(cells) + f" | {ms:.0f} |")
    print()
    print("Queries per set: " + ", ".join(f"{s} {n}" for s, n in sets.items()))


if __name__ == "__main__":
    main(sys.argv[1])
