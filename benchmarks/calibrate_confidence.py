"""Fit the confidence of theorem-rag's answers on one half of the dev sets; check it on the other half.

Every dev query (../shared/eval, at most --limit per set) is searched with the default search (query
understanding on, k=5); the first hit's evidence (cosine with the query, found by full-text search among the
first ten, put first because named as asked) is the input and "a gold statement is in the top 5" the target.
Queries whose id hashes even fit a logistic regression (scikit-learn); the threshold of ``confident`` is the
``--flag-share`` quantile of the fitted half's first-hit confidences, so about that share of real queries is
flagged. The odd half is held out: its flagged share is reported, as is the share of the nonsense probes
(benchmarks/probes/nonsense.jsonl, never used for fitting) that are flagged. Writes
theorem_rag/query_understanding/data/confidence.json and benchmarks/results/probes/calibration.{json,md}.

    THEOREM_RAG_DATA_DIR=/work/data/qu python benchmarks/calibrate_confidence.py --limit 300
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
import zlib
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT_JSON = ROOT / "theorem_rag" / "query_understanding" / "data" / "confidence.json"


def held_out(query_id: str) -> bool:
    return zlib.crc32(query_id.encode()) % 2 == 1


def evidence(hit) -> list[float]:
    """(cosine, lexical, named) are fitted; the fourth, the share of unknown query words, is a fixed factor."""
    lexical = hit.lexical_rank is not None and hit.lexical_rank <= 10
    return [float(hit.cosine or 0.0), float(lexical), float(hit.named), float(hit.unknown)]


def main() -> None:
    from sklearn.linear_model import LogisticRegression

    from theorem_rag.config import Settings
    from theorem_rag.eval.queries import legacy_aliases, load_queries, resolve_ids
    from theorem_rag.record_files import read_records
    from theorem_rag.query_understanding.confidence import Calibration
    from theorem_rag.search import TheoremSearch

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--eval-dir", type=Path, default=Path(os.environ.get("THEOREM_RAG_EVAL", ROOT.parent / "shared" / "eval")))
    ap.add_argument("--limit", type=int, default=300)
    ap.add_argument("--records", type=Path, default=ROOT / "data" / "records",
                    help="the records the index was built from: old positional ids in the sets resolve through them")
    ap.add_argument("--flag-share", type=float, default=0.025)
    ap.add_argument("--nonsense", type=Path, default=ROOT / "benchmarks" / "probes" / "nonsense.jsonl")
    args = ap.parse_args()

    search = TheoremSearch.from_settings(Settings())
    rows = []  # (set, id, held_out, features, label)
    t0 = time.time()
    aliases = legacy_aliases(read_records(args.records).theorems) if args.records.is_dir() else {}
    for path in sorted(args.eval_dir.glob("*.jsonl")):
        for q in resolve_ids(load_queries(path)[: args.limit], aliases):
            hits = search.search(q.query, 5)
            label = any(h.theorem_id in q.relevant for h in hits)
            feats = evidence(hits[0]) if hits else [0.0, 0.0, 0.0, 0.0]
            rows.append((path.stem, q.id, held_out(q.id), feats, label))
    nonsense = [json.loads(line)["query"] for line in args.nonsense.read_text().splitlines() if line.strip()]
    nonsense_feats = []
    for q in nonsense:
        hits = search.search(q, 5)
        nonsense_feats.append(evidence(hits[0]) if hits else [0.0, 0.0, 0.0, 0.0])
    elapsed = time.time() - t0

    fit = [r for r in rows if not r[2]]
    X = np.array([r[3][:3] for r in fit])
    y = np.array([r[4] for r in fit], dtype=int)
    model = LogisticRegression(C=10.0).fit(X, y)
    (w_cos, w_lex, w_named), bias = model.coef_[0], model.intercept_[0]
    calib = Calibration(w_cosine=float(w_cos), w_lexical=float(w_lex), w_named=float(w_named), bias=float(bias))
    conf = lambda f: calib.score(f[0], bool(f[1]), bool(f[2]), f[3])  # noqa: E731
    fit_conf = np.array([conf(r[3]) for r in fit])
    threshold = float(np.quantile(fit_conf, args.flag_share))
    calib = Calibration(**{**calib.__dict__, "threshold": threshold})

    def flagged(rs):
        return sum(conf(r[3]) < threshold for r in rs), len(rs)

    report = {
        "command": "python benchmarks/calibrate_confidence.py " + " ".join(
            f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items() if k in ("limit", "flag_share")),
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": f"{platform.node()} {platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}",
        "seconds": round(elapsed, 1),
        "calibration": calib.__dict__,
        "fit": {"n": len(fit), "positives": int(y.sum()), "flagged": flagged(fit)[0]},
        "held_out": {}, "nonsense": {},
    }
    for name in sorted({r[0] for r in rows}):
        part = [r for r in rows if r[2] and r[0] == name]
        f, n = flagged(part)
        report["held_out"][name] = {"n": n, "flagged": f, "share": round(f / max(n, 1), 4),
                                    "hit_at_5": round(sum(r[4] for r in part) / max(n, 1), 4)}  # fmt: skip
    all_held = [r for r in rows if r[2]]
    f, n = flagged(all_held)
    report["held_out"]["all"] = {"n": n, "flagged": f, "share": round(f / max(n, 1), 4)}
    nf = sum(conf(x) < threshold for x in nonsense_feats)
    report["nonsense"] = {"n": len(nonsense), "flagged": nf, "share": round(nf / max(len(nonsense), 1), 4),
                          "not_flagged": [q for q, x in zip(nonsense, nonsense_feats) if conf(x) >= threshold],
                          "confidences": {q: round(conf(x), 4) for q, x in zip(nonsense, nonsense_feats)}}  # fmt: skip
    OUT_JSON.write_text(json.dumps({**calib.__dict__, "fitted_by": report["command"], "date": report["date"],
                                    "held_out_flagged_share": report["held_out"]["all"]["share"],
                                    "nonsense_flagged_share": report["nonsense"]["share"]}, indent=1) + "\n")
    out = ROOT / "benchmarks" / "results" / "probes"
    out.mkdir(parents=True, exist_ok=True)
    (out / "calibration.json").write_text(json.dumps(report, indent=1) + "\n")
    md = [f"# Confidence calibration ({report['date']})", "", f"`{report['command']}` on {report['machine']}.", "",
          f"Weights: {json.dumps({k: round(v, 4) for k, v in calib.__dict__.items()})}", "",
          "| held-out set | n | flagged | share | Hit@5 |", "|---|---:|---:|---:|---:|"]
    for name, v in report["held_out"].items():
        md.append(f"| {name} | {v['n']} | {v['flagged']} | {v['share']:.3f} | {v.get('hit_at_5', '')} |")
    md += ["", f"Nonsense probes flagged: {nf}/{len(nonsense)} ({report['nonsense']['share']:.3f}); not flagged: "
           f"{report['nonsense']['not_flagged']}"]
    (out / "calibration.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
