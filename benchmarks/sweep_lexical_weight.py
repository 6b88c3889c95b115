"""Sweep the fusion's weight of the full-text ranking for long queries in words (searched in the adapted model's
space) and the RRF constant on dev query sets: Hit@1/5/10/20 and MRR@20 per setting, the rest of the search as
configured (``THEOREM_RAG_*``). Queries run through ``TheoremSearch.search_batch`` as ``theorem-rag eval`` runs them.

    THEOREM_RAG_DATA_DIR=<index> python benchmarks/sweep_lexical_weight.py --sets stacks_slogans_dev \\
        --grid 60:1.0 60:0.5 60:0.3

Prints one line per setting and set; ``--out`` also writes them as JSON Lines.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

EVAL = Path(__file__).resolve().parent.parent.parent / "shared" / "eval"


def metrics(ranked: list[list[str]], rows: list[dict]) -> dict[str, float]:
    """Hit@1/5/10/20 and MRR@20 of rankings against each row's ``relevant`` ids (less its ``exclude``), averaged:
    the harness's own per-query scoring (:func:`theorem_rag.eval.metrics.score_ranking`).

    >>> metrics([["a", "b"], ["c"]], [{"relevant": ["b"]}, {"relevant": ["x"]}])
    {'hit@1': 0.0, 'hit@5': 0.5, 'hit@10': 0.5, 'hit@20': 0.5, 'mrr@20': 0.25}
    """
    from theorem_rag.eval.metrics import score_ranking

    keys = ("hit@1", "hit@5", "hit@10", "hit@20", "mrr@20")
    scores = [score_ranking(ids, row["relevant"], ks=(1, 5, 10, 20), exclude=row.get("exclude", ()))
              for ids, row in zip(ranked, rows, strict=True)]  # fmt: skip
    return {key: round(sum(s[key] for s in scores) / len(rows), 4) for key in keys}


def main() -> None:
    from theorem_rag.search import TheoremSearch

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", nargs="+", default=["stacks_slogans_dev"], help="dev sets (names in --eval-dir)")
    parser.add_argument("--grid", nargs="+", default=["60:1.0", "60:0.5", "60:0.3"], help="RRF_K:WEIGHT settings")
    parser.add_argument("--limit", type=int, default=1000)
    parser.add_argument("--eval-dir", default=str(EVAL))
    parser.add_argument("--out", help="JSON Lines file for the figures")
    args = parser.parse_args()
    sets = {name: [json.loads(line) for line in (Path(args.eval_dir) / f"{name}.jsonl").read_text().splitlines()
                   if line.strip()][: args.limit] for name in args.sets}  # fmt: skip
    base = TheoremSearch.from_settings()
    short, long, *_ = base.ranking.lexical_weights
    results = []
    for setting in args.grid:
        rrf_k, weight = setting.split(":")
        search = base.with_options(rrf_k=int(rrf_k), lexical_weights=(short, long, float(weight)))
        for name, rows in sets.items():
            hits = search.search_batch([row["query"] for row in rows], 20)
            found = metrics([[h.theorem_id for h in ranked] for ranked in hits], rows)
            results.append({"rrf_k": int(rrf_k), "weight": float(weight), "set": name, "n": len(rows), **found})
            print(json.dumps(results[-1]), flush=True)
    if args.out:
        Path(args.out).write_text("".join(json.dumps(r) + "\n" for r in results))


if __name__ == "__main__":
    main()
