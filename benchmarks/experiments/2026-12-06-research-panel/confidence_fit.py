"""Fit and check candidate confidence features offline from dump_hits.py's output: each query twice, as searched
(its answer in the index) and with its answer held out (its relevant statements dropped from the ranking, as if the
index lacked them), target "a relevant statement in the first 5"; fitted on the queries whose id hashes even,
checked on the odd ones (AUC of hit vs miss per set, and the share of hits flagged at the chosen threshold).

    python confidence_fit.py /tmp/hits.json
"""

from __future__ import annotations

import json
import sys
import zlib

import numpy as np


def held_out(qid: str) -> bool:
    return zlib.crc32(qid.encode()) % 2 == 1


def _reranked(hits, drop, key):
    """Ranks in one ranking as they would be without the dropped statements (an index that lacks them)."""
    gone = sorted(h[key] for h in hits if h["id"] in drop and h[key] is not None)
    out = {}
    for h in hits:
        r = h[key]
        out[h["id"]] = None if r is None else r - sum(1 for g in gone if g < r)
    return out


def _z(value, pool):
    pool = [x for x in pool]
    if len(pool) < 2:
        return 0.0
    sd = max(float(np.std(pool)), 1e-3)
    return float(np.clip((value - float(np.mean(pool))) / sd, -10, 10))


def features(hits, drop=frozenset(), dense_list=(), lexical_list=()):
    dense = _reranked(hits, drop, "dense_rank")
    lexical = _reranked(hits, drop, "lexical_rank")
    hits = [dict(h, dense_rank=dense[h["id"]], lexical_rank=lexical[h["id"]]) for h in hits if h["id"] not in drop]
    if not hits:
        return None
    top = hits[0]
    cos = [h["cosine"] or 0.0 for h in hits]
    c1 = cos[0]
    others = cos[1:] or [0.0]
    lex = top["lexical_rank"] is not None and top["lexical_rank"] <= 10
    dense_top = top["dense_rank"] is not None and top["dense_rank"] <= 3
    lex_top = top["lexical_rank"] is not None and top["lexical_rank"] <= 3
    dense = [(i, c) for i, c in dense_list if i not in drop]
    lexical = [(i, c) for i, c in lexical_list if i not in drop]
    dcos = dict(dense)
    lsc = dict(lexical)
    d_pool = [c for i, c in dense if i != top["id"]]
    l_pool = [c for i, c in lexical if i != top["id"]]
    tc = dcos.get(top["id"], min(dcos.values(), default=0.0))
    tl = lsc.get(top["id"], 0.0)
    extra = {
        "dz": _z(tc, d_pool[:20]),
        "dgap": tc - (max(d_pool) if d_pool else 0.0),
        "lz": _z(tl, l_pool[:20]) if lexical else 0.0,
        "lshare": tl / max(lsc.values()) if lsc and max(lsc.values()) > 0 else 0.0,
        "lraw": tl,
        "dmean": tc - (float(np.mean(sorted(d_pool, reverse=True)[:20])) if d_pool else 0.0),
        "lmean": tl - (float(np.mean(sorted(l_pool, reverse=True)[:20])) if l_pool else 0.0),
    }
    return {
        **extra,
        "cosine": c1,
        "lexical": float(lex),
        "named": float(top["named"]),
        "unknown": top["unknown"] or 0.0,
        "lead": c1 - max(others),
        "spread": c1 - float(np.mean(cos[:20])),
        "agree": float(dense_top and lex_top),
        "dense1": float(top["dense_rank"] == 1),
        "lex1": float(top["lexical_rank"] == 1),
    }


def main() -> None:
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score

    rows = json.load(open(sys.argv[1]))
    names = sys.argv[2].split(",") if len(sys.argv) > 2 else ["cosine", "lexical", "named"]
    data = []  # (set, qid, kind, features, label)
    for r in rows:
        rel = set(r["relevant"]) - set(r["exclude"])
        hits = [h for h in r["hits"] if h["id"] not in set(r["exclude"])]
        f = features(hits, frozenset(), r.get("dense", ()), r.get("lexical", ()))
        if f is None:
            continue
        label = any(h["id"] in rel for h in hits[:TOPN])
        data.append((r["set"], r["id"], "in", f, label))
        g = features(hits, frozenset(rel), r.get("dense", ()), r.get("lexical", ()))
        if g is not None:
            data.append((r["set"], r["id"], "out", g, False))
    X = lambda part: np.array([[d[3][n] for n in names] for d in part])  # noqa: E731
    fit = [d for d in data if not held_out(d[1])]
    check = [d for d in data if held_out(d[1])]
    import os

    from collections import Counter

    per_set = Counter(d[0] for d in fit)
    weight = [len(fit) / (len(per_set) * per_set[d[0]]) for d in fit] if os.environ.get("EQUAL_SETS") else None
    model = LogisticRegression(C=1.0, max_iter=1000).fit(X(fit), [d[4] for d in fit], sample_weight=weight)
    print("features", names, "weights", np.round(model.coef_[0], 3), "bias", round(model.intercept_[0], 3))
    # two-fold: each half scored by the model fitted on the other, pooled
    pred = {}
    for part, other in ((fit, check), (check, fit)):
        w = None
        if os.environ.get("EQUAL_SETS"):
            c = Counter(d[0] for d in other)
            w = [len(other) / (len(c) * c[d[0]]) for d in other]
        m = LogisticRegression(C=1.0, max_iter=1000).fit(X(other), [d[4] for d in other], sample_weight=w)
        for d, pi in zip(part, m.predict_proba(X(part))[:, 1]):
            pred[(d[1], d[2])] = pi
    for s in ("research_dev", "stacks_slogans_dev", "dev_probes", "ALL"):
        part = [d for d in data if s in ("ALL", d[0])]
        y = [d[4] for d in part]
        p = [pred[(d[1], d[2])] for d in part]
        real = [(pi, d[4]) for pi, d in zip(p, part) if d[2] == "in"]
        auc_real = roc_auc_score([b for _, b in real], [a for a, _ in real])
        print(f"  2-fold {s:20s} n={len(part):5d} AUC(in+out)={roc_auc_score(y, p):.3f} AUC(in only)={auc_real:.3f}")
    for s in sorted({d[0] for d in data}) + ["ALL"]:
        part = [d for d in check if s in ("ALL", d[0])]
        y = [d[4] for d in part]
        if len(set(y)) < 2:
            continue
        p = model.predict_proba(X(part))[:, 1]
        # the "in" rows only: the queries as users type them (hits vs misses among real searches)
        real = [(pi, d[4]) for pi, d in zip(p, part) if d[2] == "in"]
        auc_real = roc_auc_score([b for _, b in real], [a for a, _ in real]) if len({b for _, b in real}) > 1 else float("nan")
        print(f"{s:22s} n={len(part):5d} AUC(in+out)={roc_auc_score(y, p):.3f} AUC(in only)={auc_real:.3f}")


if __name__ == "__main__":
    main()
