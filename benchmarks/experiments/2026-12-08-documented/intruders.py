"""Per Stacks slogan (dev set), on the index of THEOREM_RAG_DATA_DIR: the answer's rank with and without the Lean
declarations (the informal filter) and the declarations among the first 30, for ``shares.py``.

    python benchmarks/experiments/2026-12-08-documented/intruders.py OUT.json
"""

import json
import sys
from pathlib import Path

from theorem_rag.search import TheoremSearch

EVAL = Path(__file__).resolve().parents[4] / "shared" / "eval"


def main() -> None:
    search = TheoremSearch.from_settings()
    out = []
    for line in (EVAL / "stacks_slogans_dev.jsonl").open():
        q = json.loads(line)
        relevant = set(q["relevant"])

        def rank(hits):
            return next((n for n, h in enumerate(hits, 1) if h.theorem_id in relevant), None)

        mixed = search.search(q["query"], k=30)
        informal = search.search(q["query"], k=30, formal=False)
        decls = [(n, h.theorem_id) for n, h in enumerate(mixed, 1) if h.theorem.source == "mathlib"]
        out.append(dict(id=q["id"], query=q["query"], rd=rank(mixed), ri=rank(informal), decls=decls))
    Path(sys.argv[1]).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
