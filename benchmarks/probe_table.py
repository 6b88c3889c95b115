"""The probe table per pattern, before (``hybrid-plain``) and after (``hybrid``), from a ``theorem-rag eval`` run.

Query ids of the probe set are ``<pattern>-<n>``; this groups the run's per-query ranks (``per_query.jsonl``, beside
its results.json) by pattern and writes benchmarks/results/probes/probe_table.{json,md}. The nonsense line comes from
calibration.json (the share of nonsense queries whose first result is not confident).

    THEOREM_RAG_DATA_DIR=/work/data/qu theorem-rag eval --records /work/main/data/records --no-plots \\
        --queries benchmarks/probes/dev_probes.jsonl --config hybrid-plain,hybrid --out benchmarks/results/probes/eval
    python benchmarks/probe_table.py benchmarks/results/probes/eval/results.json
"""

from __future__ import annotations

import json
import sys
from datetime import datetime, timezone
from collections import defaultdict
from pathlib import Path

OUT = Path(__file__).resolve().parent / "results" / "probes"
PATTERNS = {
    "abbrev": "abbreviations, acronyms", "bare": "bare noun phrases", "defof": "\"definition of\", \"what is a\"",
    "trunc": "truncated names", "eponym": "eponyms without possessive", "lang": "French, German, Spanish",
    "latex": "LaTeX formulas", "ascii": "ASCII math", "paper": "arXiv ids and paper titles",
    "repeat": "repeated tokens", "typo": "typos",
}  # fmt: skip


def table(per_query: list[dict]) -> dict:
    rows: dict = defaultdict(lambda: defaultdict(list))
    for q in per_query:
        pattern = q["query_id"].rsplit("-", 1)[0]
        rows[q["config"]][pattern].append(q["rank"])
        rows[q["config"]]["all"].append(q["rank"])
    out = {}
    for config, by_pattern in rows.items():
        out[config] = {
            p: {"n": len(r), "hit@1": round(sum(1 for x in r if x == 1) / len(r), 3),
                "hit@5": round(sum(1 for x in r if x is not None and x <= 5) / len(r), 3)}
            for p, r in by_pattern.items()
        }  # fmt: skip
    return out


def main() -> None:
    results = json.loads(Path(sys.argv[1]).read_text())
    per_query = Path(sys.argv[1]).with_name("per_query.jsonl").read_text().splitlines()
    t = table([json.loads(line) for line in per_query])
    before, after = t.get("hybrid-plain", {}), t.get("hybrid", {})
    calib_path = OUT / "calibration.json"
    nonsense = json.loads(calib_path.read_text())["nonsense"] if calib_path.exists() else None
    meta = results.get("meta", {})
    made = datetime.fromtimestamp(Path(sys.argv[1]).stat().st_mtime, timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    md = [
        "# Dev probes per pattern: query understanding off (`hybrid-plain`, before) and on (`hybrid`, after)", "",
        f"From `{sys.argv[1]}` ({made}; {meta.get('n_theorems', '?'):,} statements of `{meta.get('records', '?')}`), "
        "made by:", "",
        "    THEOREM_RAG_DATA_DIR=<the index> theorem-rag eval --records <its records> --no-plots \\",
        "        --queries benchmarks/probes/dev_probes.jsonl --config hybrid-plain,hybrid --out benchmarks/results/probes/eval",
        f"    python benchmarks/probe_table.py {sys.argv[1]}", "",
        "Hit@k: a gold statement among the first k. The nonsense line comes from `calibration.json`.", "",
        "| pattern | n | Hit@1 before | Hit@1 after | Hit@5 before | Hit@5 after |", "|---|---:|---:|---:|---:|---:|",
    ]
    for p in [*PATTERNS, "all"]:
        if p not in after:
            continue
        b, a = before.get(p, {}), after[p]
        md.append(f"| {PATTERNS.get(p, '**all**')} | {a['n']} | {b.get('hit@1', '')} | {a['hit@1']} | "
                  f"{b.get('hit@5', '')} | {a['hit@5']} |")
    if nonsense:
        md.append(f"| nonsense, marked not confident | {nonsense['n']} | 0 (no flag existed) | "
                  f"{nonsense['share']:.3f} | | |")
    (OUT / "probe_table.json").write_text(json.dumps({"table": t, "meta": results.get("meta", {}),
                                                      "nonsense": nonsense}, indent=1) + "\n")  # fmt: skip
    (OUT / "probe_table.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
