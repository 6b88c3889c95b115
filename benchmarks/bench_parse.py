"""Parse the shared corpora and print statements per second, per source and per parser.

    python benchmarks/bench_parse.py                      # all six corpora + papers, plasTeX first
    python benchmarks/bench_parse.py stacks hott --no-plastex --out /tmp/bench
    python benchmarks/bench_parse.py --report data/records/report.json   # figures of an earlier run

"found/s per parser" divides what a parser found by the seconds it ran, over every document it ran on (the
regex parser runs on every document, plasTeX wherever it is enabled; PlanetMath entries are read by the
entry adapter and count as the regex parser). "kept/s" is records kept per wall-clock second of the whole
source, reading files, filters and all.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

CORPORA = ("stacks", "planetmath", "openlogic", "napkin", "hott", "lebl-ra", "papers")


def print_figures(report: dict) -> None:
    """One line per source from a ``report.json`` dict, then the totals."""
    print(f"{'source':<11} {'files':>6} {'found':>6} {'kept':>6} {'wall s':>7} {'kept/s':>7}  "
          "per parser: found, seconds, found/s | kept by parser")
    for s in report["sources"]:
        per = []
        for p, secs in sorted(s.get("parser_seconds", {}).items()):
            rate = s["parser_runs"][p] / secs if secs else float("nan")
            per.append(f"{p} {s['parser_runs'][p]}, {secs:.1f} s, {rate:,.0f}/s")
        rate = s["records_kept"] / s["seconds"] if s["seconds"] else float("nan")
        print(f"{s['source']:<11} {s['files_read']:>6} {s['statements_found']:>6} {s['records_kept']:>6} "
              f"{s['seconds']:>7.1f} {rate:>7,.0f}  " + "; ".join(per) + f" | {s['kept_by_parser']}")
    t = report["totals"]
    print(f"total: {t['records_kept']} records in {report['seconds']:.1f} s; kept per parser {t['kept_by_parser']}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpora", nargs="*", default=list(CORPORA), help=f"subset of {', '.join(CORPORA)}")
    ap.add_argument("--root", default="/work/shared/corpora", help="folder holding the corpora")
    ap.add_argument("--out", default=None, help="output folder (records and report); default a temp folder")
    ap.add_argument("--no-plastex", action="store_true", help="regex parser only")
    ap.add_argument("--report", default=None, help="print the figures of an existing report.json and stop")
    args = ap.parse_args(argv)
    if args.report:
        print_figures(json.loads(Path(args.report).read_text()))
        return 0
    from corpus_build.parse import parse_sources

    out = Path(args.out or tempfile.mkdtemp(prefix="bench-parse-"))
    report = parse_sources(
        [Path(args.root) / c for c in args.corpora], out, use_plastex=not args.no_plastex, progress=False
    )
    print_figures(report.to_dict())
    print(f"report: {out}/report.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
