"""Write the held-out premise query set: Stacks statements outside the training split, with their proof references.

Premise search is evaluated on ``../shared/eval/stacks_proof_refs.jsonl`` (dev) and on this file: Stacks lemmas,
propositions and theorems whose proofs cite statements of the records, that are NOT in the training split of the
proof-reference pairs (``not in_training_split(id)``, see :mod:`theorem_rag.training.pairs`) and are not queries of
``stacks_proof_refs.jsonl``. A line is in the evaluation format of ``shared/eval/README.md``, as in the dev file:
``query`` = the statement's LaTeX as written (its ``reference`` block, a citation of the literature, removed),
``relevant`` = the ids its proof cites that are statements of the records (in citing order, each once),
``exclude`` = [its id]. The statements are taken in the order of the SHA-1 of their ids, the first ``--limit``
(all with ``--limit 0``). Run::

    python benchmarks/make_premise_queries.py --records /work/main/data/records \\
        --dev ../shared/eval/stacks_proof_refs.jsonl --out benchmarks/probes/proof_refs_outside_split.jsonl
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

from theorem_rag.retrieval.premise_head import query_text
from theorem_rag.training.pairs import in_training_split

KINDS = ("lemma", "proposition", "theorem")  # what the dev file's queries are


def premise_queries(theorems: list[dict], dev_ids: set[str], limit: int) -> list[dict]:
    """The query lines for the statements outside the training split and the dev file, in SHA-1 order of id."""
    present = {t["id"] for t in theorems}
    rows = []
    for t in theorems:
        if t["source"] != "stacks" or t["kind"] not in KINDS or t["id"] in dev_ids or in_training_split(t["id"]):
            continue
        relevant = list(dict.fromkeys(r for r in t.get("proof_refs") or [] if r in present and r != t["id"]))
        query = query_text(t["body_latex"])
        if relevant and query:
            rows.append({"id": "refs-out-" + t["id"].split(":", 1)[1], "query": query, "relevant": relevant,
                         "exclude": [t["id"]]})  # fmt: skip
    rows.sort(key=lambda r: hashlib.sha1(r["exclude"][0].encode("utf-8")).hexdigest())
    return rows[:limit] if limit else rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=Path, default=Path("data/records"))
    parser.add_argument("--dev", type=Path, default=Path("../shared/eval/stacks_proof_refs.jsonl"))
    parser.add_argument("--out", type=Path, default=Path("benchmarks/probes/proof_refs_outside_split.jsonl"))
    parser.add_argument("--limit", type=int, default=1000, help="first N statements by SHA-1 of id; 0: all")
    args = parser.parse_args()
    dev_ids = {i for line in args.dev.open() if line.strip() for i in json.loads(line).get("exclude") or []}
    theorems = [json.loads(line) for line in (args.records / "theorems.jsonl").open() if line.strip()]
    rows = premise_queries(theorems, dev_ids, args.limit)
    with args.out.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(rows)} queries -> {args.out}")


if __name__ == "__main__":
    main()
