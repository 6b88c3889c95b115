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
    ap.add_argument("--workers", default="1", help="processes that parse documents; several (e.g. 1,2) alternate "
                    "runs of the same corpora and compare wall time, CPU time and the records written")
    args = ap.parse_args(argv)
    if args.report:
        print_figures(json.loads(Path(args.report).read_text()))
        return 0
    from corpus_build.parse import parse_sources

    out = Path(args.out or tempfile.mkdtemp(prefix="bench-parse-"))
    counts = [int(w) for w in args.workers.split(",")]
    if len(counts) == 1:
        report = parse_sources([Path(args.root) / c for c in args.corpora], out, use_plastex=not args.no_plastex,
                               progress=False, workers=counts[0])  # fmt: skip
        print_figures(report.to_dict())
        print(f"report: {out}/report.md")
        return 0
    return compare_workers(args, counts, out)


def compare_workers(args: argparse.Namespace, counts: list[int], out: Path) -> int:
    """Parse the same corpora with each worker count in turn (the machine is shared: same run, alternated)."""
    import resource
    import time

    from corpus_build.parse import parse_sources

    rows, outputs = [], {}
    for n in counts:
        before = os.getloadavg()[0]
        cpu0 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        parse_sources([Path(args.root) / c for c in args.corpora], out / f"workers{n}", use_plastex=not args.no_plastex,
                      progress=False, workers=n)  # fmt: skip
        wall = time.perf_counter() - t0
        cpu1 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = sum(b.ru_utime + b.ru_stime - a.ru_utime - a.ru_stime for a, b in zip(cpu0, cpu1))
        outputs[n] = [(out / f"workers{n}" / f).read_bytes() for f in ("theorems.jsonl", "documents.jsonl")]
        rows.append((n, wall, cpu, before, os.getloadavg()[0]))
        print(f"workers {n}: wall {wall:.1f} s, CPU {cpu:.1f} s (this process and its children), "
              f"load {before:.1f} -> {os.getloadavg()[0]:.1f}", flush=True)
    same = all(outputs[n] == outputs[counts[0]] for n in counts)
    print(f"records byte-identical across worker counts: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
