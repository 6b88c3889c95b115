"""How many Lean declarations mathlib documents: all of them, the dev sets' answers, and the declarations that took
places above the Stacks slogans' answers on the combined index (``intruders.py``'s output); with ``--table`` also
the file ``variants.py``'s ``formal-prior*`` variants read (USED_BY: uses by proofs and docstring flags).

    python benchmarks/experiments/2026-12-08-documented/shares.py data/mathlib-records [INTRUDERS_JSON] \
        [--table OUT.json]
"""

from __future__ import annotations

import collections
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
EVAL = ROOT.parent / "shared" / "eval"


def main() -> None:
    args = sys.argv[1:]
    table = args[args.index("--table") + 1] if "--table" in args else None
    args = [a for i, a in enumerate(args) if a != "--table" and (i == 0 or args[i - 1] != "--table")]
    used: collections.Counter = collections.Counter()
    doc: dict[str, bool] = {}
    for line in (Path(args[0]) / "theorems.jsonl").open():
        d = json.loads(line)
        used.update(d.get("proof_refs") or ())
        doc[d["id"]] = bool(((d.get("meta") or {}).get("docstring") or "").strip())
    if table:
        Path(table).write_text(json.dumps({"used": used, "doc": doc}))

    def row(name: str, ids: list[str]) -> None:
        ids = [i for i in ids if i in doc]
        uses = [used.get(i, 0) for i in ids]
        print(f"| {name} | {len(ids):,} | {sum(doc[i] for i in ids) / len(ids):.2f} | "
              f"{sum(1 for u in uses if u == 0) / len(ids):.2f} | {statistics.median(uses)} |")

    def answers(path: Path) -> list[str]:
        return sorted({r for line in path.open() for r in json.loads(line)["relevant"]})

    print("| declarations | n | with a docstring | used by no proof | median uses |\n|---|---:|---:|---:|---:|")
    row("all of mathlib's", list(doc))
    row("mathlib_dev's answers", answers(EVAL / "mathlib_dev.jsonl"))
    row("the titles' answers", answers(ROOT / "benchmarks" / "results" / "mathlib_dev" / "mathlib_titles_dev.jsonl"))
    if len(args) > 1:
        queries = json.loads(Path(args[1]).read_text())
        row("above a Stacks slogan's answer (first 30)", [d[1] for q in queries for d in q["decls"]
                                                          if d[0] < (q["rd"] or 31)])  # fmt: skip


if __name__ == "__main__":
    main()
