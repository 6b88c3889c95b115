"""Write the offline slogan of every statement of a records folder as JSON {id: slogan}, to compare two versions
of the LaTeX reader byte for byte.

    PYTHONPATH=<old checkout> python benchmarks/offline_slogans_dump.py /work/main/data/records before.json
    PYTHONPATH=<new checkout> python benchmarks/offline_slogans_dump.py /work/main/data/records after.json
    cmp before.json after.json
"""

from __future__ import annotations

import json
import sys

from theorem_rag.records import Theorem
from theorem_rag.slogans.offline import offline_slogan


def main(records: str, out: str) -> None:
    slogans = {}
    with open(f"{records}/theorems.jsonl", encoding="utf-8") as fh:
        for line in fh:
            t = Theorem.from_dict(json.loads(line))
            slogans[t.id] = offline_slogan(t)
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(slogans, fh)
    print(f"{len(slogans)} slogans -> {out}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
