"""Fit the confidence of theorem-rag's answers on realistic hits and misses; check it on held-out queries.

Every dev query (each ``*.jsonl`` of --eval-dir and the probes, at most --limit per set) is searched with the
default search, and counted twice:

- as searched, its answer in the index: a hit when the first result is relevant (--target-depth 1: the confidence
  says whether *this* hit is what was asked for; the report also scores hits among the first five);
- with its answer held out, as if the index lacked it: its relevant statements are dropped from the ranking and
  from the dense and full-text candidates the leads are measured against (the ranks renumbered), so the first hit
  left is what a user would see then, and it is a miss.

Queries outside mathematics (--off-topic, everyday questions written for this fit; not the nonsense probes) count as
misses too: a query whose answer no mathematical index holds.

The first hit's evidence (cosine with the query, full-text top ten, named as asked, and how far it leads the other
dense and full-text candidates: ``theorem_rag.retrieval.confidence``) is the input of a logistic
regression (scikit-learn), fitted on the queries whose id hashes even, every set weighing the same. The threshold
of ``confident`` is the --hit-flag-share quantile of the fitted half's hits: about that share of the answers that
are right is shown with "no close match". The odd half is held out: per set its AUC of hit against miss, the
share of hits and misses flagged, and a reliability diagram (predicted confidence against the observed share of
hits, in ten bins) are reported, as is the share of the nonsense probes (never fitted on) that are flagged.

The first hit's evidence is what the search computed with the settings a server runs (``server_settings``), and
the held-out answer is dropped from the very candidates that search measured its leads against (``--candidates
served``; ``first-text``: 50 dense and 50 full-text candidates of the first text searched, as fitted before).

Writes theorem_rag/retrieval/data/confidence.json (not with --dry-run) and calibration.{json,md,png} under --out
(benchmarks/results/probes).

    THEOREM_RAG_DATA_DIR=/work/data/qu python benchmarks/calibrate_confidence.py --limit 300
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
import zlib
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT_JSON = ROOT / "theorem_rag" / "retrieval" / "data" / "confidence.json"
# The columns fitted, in the order of the weights; "cosine_lead" is the cosine times the dense lead (Calibration.score)
FEATURES = ("cosine", "lexical", "named", "cosine_lead", "lexical_lead")
WEIGHTS = ("w_cosine", "w_lexical", "w_named", "w_dense_lead", "w_lexical_lead")


def held_out(query_id: str) -> bool:
    return zlib.crc32(query_id.encode()) % 2 == 1


def evidence(hit) -> dict[str, float]:
    """The first hit's evidence as the search computed it."""
    lexical = hit.lexical_rank is not None and hit.lexical_rank <= 10
    return {"cosine": float(hit.cosine or 0.0), "lexical": float(lexical), "named": float(hit.named),
            "dense_lead": float(hit.dense_lead), "lexical_lead": float(hit.lexical_lead),
            "unknown": float(hit.unknown)}


def without_answer(hits, dense: dict[str, float], lexical: dict[str, float], answer: set[str]) -> dict | None:
    """The evidence of the first hit left when ``answer`` is not in the index: the ids dropped from the hits and from
    the candidates, the full-text rank renumbered."""
    from theorem_rag.retrieval.confidence import leads

    kept = [h for h in hits if h.theorem_id not in answer]
    if not kept:
        return None
    top = kept[0]
    dense = {i: c for i, c in dense.items() if i not in answer}
    lexical = {i: s for i, s in lexical.items() if i not in answer}
    gone = sum(1 for h in hits if h.theorem_id in answer and h.lexical_rank is not None
               and top.lexical_rank is not None and h.lexical_rank < top.lexical_rank)  # fmt: skip
    rank = None if top.lexical_rank is None else top.lexical_rank - gone
    floor = min(dense.values(), default=0.0)
    return {"cosine": dense.get(top.theorem_id, float(top.cosine or floor)),
            "lexical": float(rank is not None and rank <= 10), "named": float(top.named),
            "dense_lead": leads([top.theorem_id], dense, missing=floor)[top.theorem_id],
            "lexical_lead": leads([top.theorem_id], lexical)[top.theorem_id], "unknown": float(top.unknown)}


class Candidates:
    """The dense cosines and full-text scores a search measured its hits' leads against, recorded as it ran (the
    retriever's ``with_confidence`` wrapped): the same pools, ``ef_search`` and texts (every text the query was
    read as) that serving computes, so that a held-out answer is dropped from what a user's search would have seen."""

    def __init__(self) -> None:
        import theorem_rag.retrieval.retriever as retriever

        self.last: tuple[dict[str, float], dict[str, float]] | None = None
        self._module, self._original = retriever, retriever.with_confidence

        def recording(hits, cosine, lexical_top, named, unknown=0.0, lexical=None):
            self.last = (dict(cosine), dict(lexical or {}))
            return self._original(hits, cosine, lexical_top, named, unknown, lexical)

        retriever.with_confidence = recording

    def close(self) -> None:
        """The retriever as it was."""
        self._module.with_confidence = self._original

    def search(self, search, query: str, k: int) -> tuple[list, dict[str, float], dict[str, float]]:
        """``search.search(query, k)`` with the candidates it measured against (empty when it measured none)."""
        self.last = None
        hits = search.search(query, k)
        dense, lexical = self.last or ({}, {})
        return hits, dense, lexical


def candidates(search, query: str) -> tuple[dict[str, float], dict[str, float]]:
    """The dense and full-text candidates of the text the search searched first, as ``{id: score}``: what the fit
    measured against before :class:`Candidates` (50 of each, the first text only), for ``--candidates first-text``."""
    from theorem_rag.query_understanding import understand

    text = understand(query).text
    space, model = search.retriever.dense_space(query)
    dense = search.store.search_dense(space, model.get_query_embedding(text), k=50)
    lexical = search.store.search_text(text, k=50)
    return {h.theorem_id: h.score for h in dense}, {h.theorem_id: h.score for h in lexical}


def reliability(conf: np.ndarray, label: np.ndarray, bins: int = 10) -> list[dict]:
    """Per bin of predicted confidence: its range, count, mean prediction and observed share of hits."""
    out = []
    edges = np.linspace(0, 1, bins + 1)
    for lo, hi in zip(edges[:-1], edges[1:]):
        sel = (conf >= lo) & ((conf < hi) if hi < 1 else (conf <= hi))
        if sel.any():
            out.append({"bin": f"{lo:.1f}-{hi:.1f}", "n": int(sel.sum()),
                        "predicted": round(float(conf[sel].mean()), 3), "observed": round(float(label[sel].mean()), 3)})
    return out


def main() -> None:
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score

    from theorem_rag.config import Settings
    from theorem_rag.eval.queries import legacy_aliases, load_queries, resolve_ids
    from theorem_rag.record_files import read_records
    from theorem_rag.retrieval.confidence import Calibration
    from theorem_rag.search import TheoremSearch
    from theorem_rag.serving.service import server_settings

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--eval-dir", type=Path, default=Path(os.environ.get("THEOREM_RAG_EVAL", ROOT.parent / "shared" / "eval")))
    ap.add_argument("--probes", type=Path, default=ROOT / "benchmarks" / "probes" / "dev_probes.jsonl",
                    help="the query-pattern probes, a dev set of their own (skipped when absent)")
    ap.add_argument("--limit", type=int, default=300)
    ap.add_argument("--records", type=Path, default=ROOT / "data" / "records",
                    help="the records the index was built from: old positional ids in the sets resolve through them")
    ap.add_argument("--target-depth", type=int, default=1, help="a hit: a relevant statement among the first N")
    ap.add_argument("--hit-flag-share", type=float, default=0.05,
                    help="share of the fitted half's hits below the threshold (shown with 'no close match')")
    ap.add_argument("--off-topic", type=Path, default=ROOT / "benchmarks" / "probes" / "off_topic.jsonl",
                    help="queries outside mathematics, fitted as misses (skipped when absent)")
    ap.add_argument("--nonsense", type=Path, default=ROOT / "benchmarks" / "probes" / "nonsense.jsonl")
    ap.add_argument("--candidates", choices=("served", "first-text"), default="served",
                    help="what a held-out answer is dropped from: the candidates the search measured its leads "
                         "against (served), or 50 of each for the first text searched, as before (first-text)")
    ap.add_argument("--dry-run", action="store_true", help="report only; leave the shipped confidence.json as it is")
    ap.add_argument("--compare", type=Path, action="append", default=[],
                    help="a confidence.json (another fit) scored on the same held-out rows, for a side-by-side")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "probes",
                    help="folder of the report (calibration.json, .md, .png)")
    args = ap.parse_args()

    search = TheoremSearch.from_settings(server_settings(Settings()))
    served = Candidates()
    rows = []  # {set, id, held_out, kind ("in" / "out" / "off-topic"), features, label}
    t0 = time.time()
    aliases = legacy_aliases(read_records(args.records).theorems) if args.records.is_dir() else {}
    paths = sorted(args.eval_dir.glob("*.jsonl")) + ([args.probes] if args.probes.is_file() else [])
    # Queries whose answer the index lacks (a set about papers added for a run only, mathlib's set on an index
    # without it) can have no hit: they are left out, and counted.
    absent: Counter = Counter()
    for path in paths:
        queries = resolve_ids(load_queries(path)[: args.limit], aliases)
        indexed = set(search.store.get_theorems(sorted({r for q in queries for r in q.relevant})))
        for q in queries:
            if not indexed & set(q.relevant):
                absent[path.stem] += 1
                continue
            found, dense, lexical = served.search(search, q.query, 30)
            hits = [h for h in found if h.theorem_id not in set(q.exclude)]
            if not hits:
                continue
            answer = set(q.relevant)
            row = {"set": path.stem, "id": q.id, "held_out": held_out(q.id)}
            rows.append({**row, "kind": "in", "features": evidence(hits[0]),
                         "label": any(h.theorem_id in answer for h in hits[: args.target_depth]),
                         "hit5": any(h.theorem_id in answer for h in hits[:5])})
            if args.candidates == "first-text" or not dense:
                dense, lexical = candidates(search, q.query)
            gone = without_answer(hits, dense, lexical, answer | set(q.exclude))
            if gone is not None:
                rows.append({**row, "kind": "out", "features": gone, "label": False, "hit5": False})
    if args.off_topic.is_file():
        for line in args.off_topic.read_text().splitlines():
            if line.strip():
                q = json.loads(line)
                hits = search.search(q["query"], 5)
                if hits:
                    rows.append({"set": args.off_topic.stem, "id": q["id"], "held_out": held_out(q["id"]),
                                 "kind": "off-topic", "features": evidence(hits[0]), "label": False, "hit5": False})
    served.close()
    nonsense = [json.loads(line)["query"] for line in args.nonsense.read_text().splitlines() if line.strip()]
    nonsense_feats = [evidence(hits[0]) for hits in (search.search(q, 5) for q in nonsense) if hits]
    elapsed = time.time() - t0

    def X(rs):
        return np.array([[r["features"]["cosine"] * r["features"]["dense_lead"] if f == "cosine_lead"
                          else r["features"][f] for f in FEATURES] for r in rs])  # fmt: skip

    fit = [r for r in rows if not r["held_out"]]
    per_set = Counter(r["set"] for r in fit)
    weight = [len(fit) / (len(per_set) * per_set[r["set"]]) for r in fit]  # every set weighs the same
    model = LogisticRegression(C=1.0, max_iter=2000).fit(X(fit), [r["label"] for r in fit], sample_weight=weight)
    calib = Calibration(**dict(zip(WEIGHTS, map(float, model.coef_[0]))), bias=float(model.intercept_[0]))

    def conf(f: dict, fit: Calibration | None = None) -> float:
        """The confidence ``fit`` (the one fitted here by default) gives a row's features."""
        return (fit or calib).score(f["cosine"], bool(f["lexical"]), bool(f["named"]), f["unknown"], f["dense_lead"],
                           f["lexical_lead"])  # fmt: skip

    fit_hits = np.array([conf(r["features"]) for r in fit if r["label"]])
    threshold = float(np.quantile(fit_hits, args.hit_flag_share))
    calib = Calibration(**{**calib.__dict__, "threshold": threshold})

    check = [r for r in rows if r["held_out"]]
    report = {
        "command": "python benchmarks/calibrate_confidence.py " + " ".join(
            f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items()
            if k in ("limit", "target_depth", "hit_flag_share", "candidates")),
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": f"{platform.node()} {platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}",
        "seconds": round(elapsed, 1),
        "features": list(FEATURES),
        "calibration": calib.__dict__,
        "fit": {"n": len(fit), "hits": int(sum(r["label"] for r in fit))},
        "left_out_answer_not_indexed": dict(absent),
        "held_out": {}, "nonsense": {},
    }
    for name in sorted({r["set"] for r in rows}) + ["all"]:
        part = [r for r in check if name in ("all", r["set"])]
        if not part:  # a set with no query in the held-out half (tiny sets)
            continue
        c = np.array([conf(r["features"]) for r in part])
        y = np.array([r["label"] for r in part], dtype=int)
        y5 = np.array([r["hit5"] for r in part], dtype=int)
        real = np.array([r["kind"] == "in" for r in part], dtype=bool)
        gone = np.array([r["kind"] == "out" for r in part], dtype=bool)
        entry = {"n_queries": int(real.sum()), "hits": int(y.sum()),
                 "auc": round(float(roc_auc_score(y, c)), 4) if 0 < y.sum() < len(y) else None,
                 "auc_as_searched": (round(float(roc_auc_score(y[real], c[real])), 4)
                                     if 0 < y[real].sum() < real.sum() else None),
                 "auc_first_five": round(float(roc_auc_score(y5, c)), 4) if 0 < y5.sum() < len(y5) else None,
                 "hits_flagged": round(float((c[y == 1] < threshold).mean()), 4) if y.sum() else None,
                 "first_five_hits_flagged": round(float((c[y5 == 1] < threshold).mean()), 4) if y5.sum() else None,
                 "misses_flagged": round(float((c[y == 0] < threshold).mean()), 4) if (y == 0).any() else None,
                 "held_out_answer_flagged": round(float((c[gone] < threshold).mean()), 4) if gone.any() else None,
                 "reliability": reliability(c, y)}  # fmt: skip
        report["held_out"][name] = entry
    report["compared"] = {}
    for path in args.compare:  # another fit on the same held-out rows: AUC per set, share of hits flagged
        data = json.loads(path.read_text())
        other = Calibration(**{k: float(data[k]) for k in calib.__dict__ if k in data})
        score = {}
        for name in sorted({r["set"] for r in check}) + ["all"]:
            part = [r for r in check if name in ("all", r["set"])]
            c = np.array([conf(r["features"], other) for r in part])
            y = np.array([r["label"] for r in part], dtype=int)
            score[name] = {"auc": round(float(roc_auc_score(y, c)), 4) if 0 < y.sum() < len(y) else None,
                           "hits_flagged": round(float((c[y == 1] < other.threshold).mean()), 4) if y.sum() else None}
        report["compared"][str(path)] = score
        print(f"{path}: " + ", ".join(f"{k} AUC {v['auc']} flagged {v['hits_flagged']}" for k, v in score.items()))
    nf = sum(conf(x) < threshold for x in nonsense_feats)
    report["nonsense"] = {"n": len(nonsense), "flagged": nf, "share": round(nf / max(len(nonsense), 1), 4)}
    if not args.dry_run:
        OUT_JSON.write_text(json.dumps({**calib.__dict__, "fitted_by": report["command"], "date": report["date"],
                                        "held_out_auc": report["held_out"].get("all", {}).get("auc"),
                                        "held_out_hits_flagged": report["held_out"].get("all", {}).get("hits_flagged"),
                                        "nonsense_flagged_share": report["nonsense"]["share"]}, indent=1) + "\n")
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    (out / "calibration.json").write_text(json.dumps(report, indent=1) + "\n")
    _plot(report, out / "calibration.png")
    md = [f"# Confidence calibration ({report['date']})", "", f"`{report['command']}` on {report['machine']}.", "",
          f"Each query counts twice: as searched (a hit when a relevant statement is in the first {args.target_depth}) "
          "and with its answer held out of the index (a miss). Fitted on the queries whose id hashes even; the rows "
          "below are the odd half. 'first five': the same with a hit among the first five results.", "",
          f"Weights: {json.dumps({k: round(v, 4) for k, v in calib.__dict__.items()})}", "",
          "| held-out set | queries | hits | AUC hit vs miss | AUC as searched | AUC, first five | hits flagged | "
          "first-five hits flagged | misses flagged | held-out answers flagged |",
          "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, v in report["held_out"].items():
        md.append(f"| {name} | {v['n_queries']} | {v['hits']} | {v['auc']} | {v['auc_as_searched']} | "
                  f"{v['auc_first_five']} | {v['hits_flagged']} | {v['first_five_hits_flagged']} | "
                  f"{v['misses_flagged']} | {v['held_out_answer_flagged']} |")
    md += ["", "Reliability (all held-out rows): predicted confidence against the observed share of hits.", "",
           "| bin | n | predicted | observed |", "|---|---:|---:|---:|"]
    md += [f"| {b['bin']} | {b['n']} | {b['predicted']} | {b['observed']} |"
           for b in report["held_out"].get("all", {}).get("reliability", [])]
    md += ["", "![reliability](calibration.png)", "",
           f"Nonsense probes flagged: {nf}/{len(nonsense)} ({report['nonsense']['share']:.3f})"]
    (out / "calibration.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))


def _plot(report: dict, path: Path) -> None:
    """The reliability diagram of the held-out rows: one line per set with enough rows, and all of them."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 5))
    ax.plot([0, 1], [0, 1], color="grey", linestyle=":", label="perfectly calibrated")
    for name, v in report["held_out"].items():
        pts = [(b["predicted"], b["observed"]) for b in v["reliability"] if b["n"] >= 5]
        if pts:
            ax.plot(*zip(*pts), marker="o", linewidth=2.5 if name == "all" else 1, label=f"{name} (AUC {v['auc']})")
    ax.set_xlabel("predicted confidence")
    ax.set_ylabel("observed share of hits")
    ax.set_title("Confidence on held-out queries, answers in and out")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    main()
