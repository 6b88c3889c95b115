"""The premise head: what a proof of a statement is likely to cite, learned from the proof graph.

Premise search first ranks by text (the statement embedded as a premise query, fused with full-text search). The
head then widens and reorders those candidates with what proofs near the statement cite: a logistic model over
:data:`FEATURES`, fitted by :func:`fit_head` on statements of the training split (their own proofs left out of
every count, as a new statement's would be) and stored with the index (``theorem-rag model premise-head``).

The statement is located by the first text result *before* the statement itself is left out: for a statement of
the index that is the statement (its text matches best), for a new goal the statement most like it. Around that
*pivot* the head reads the pivot's document in source order (what precedes it), what the proofs of its section and
document cite, how often each candidate is cited anywhere, and what the proofs of the next text results cite.

Only proofs the head may learn from count: those of citing statements in the training split
(:func:`~theorem_rag.training.pairs.in_training_split`), not in the head's holdout (the statements of evaluation
queries) and not the query statement itself. So an evaluation never reads the references it is asked for.

>>> head = PremiseHead(weights=tuple(0.0 for _ in FEATURES), bias=0.0, holdout=frozenset({"s:held"}))
>>> head.reads("s:held", frozenset()), PremiseHead.from_dict(head.to_dict()) == head
(False, True)
"""

from __future__ import annotations

import math
import random
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from theorem_rag.errors import InputError
from theorem_rag.records import Hit, Theorem
from theorem_rag.retrieval.store_protocol import Store
from theorem_rag.training.pairs import in_training_split

if TYPE_CHECKING:
    from theorem_rag.retrieval.retriever import TheoremRetriever

FEATURES = (
    "text_reciprocal_rank",  # 1 / (5 + rank) in the text ranking, 0 outside it
    "text_log_rank",  # log of the text rank, log(150) outside it
    "in_text",  # 1 when the text ranking has it
    "same_document",  # in the pivot's document
    "same_section",  # in the pivot's innermost section path
    "before_pivot",  # 1 / distance when it precedes the pivot in its document, else 0
    "just_before_pivot",  # 1 when it is one of the three statements before the pivot
    "after_pivot",  # 1 when it follows the pivot in its document
    "section_votes",  # log(1 + proofs in the pivot's section that cite it)
    "document_votes",  # log(1 + proofs in the pivot's document that cite it)
    "cited_by",  # log(1 + proofs anywhere that cite it)
    "neighbours_cite",  # sum of 1 / rank over the next text results whose proofs cite it
    "definition",  # 1 for a definition
)
TEXT_DEPTH = 100  # text candidates the head reorders
PRECEDING = 30  # statements before the pivot added as candidates
DOCUMENT_VOTED = 60  # the most cited by the pivot's document added as candidates
NEIGHBOURS = 10  # text results whose proofs vote
NEIGHBOUR_VOTED = 30  # the most voted by them added as candidates


@dataclass(frozen=True)
class PremiseHead:
    """Fitted weights (one per feature of :data:`FEATURES`), and the citing statements whose proofs it never reads."""

    weights: tuple[float, ...]
    bias: float
    holdout: frozenset[str] = frozenset()
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if len(self.weights) != len(FEATURES):
            raise InputError(f"a premise head needs {len(FEATURES)} weights, got {len(self.weights)}: refit it "
                             "with `theorem-rag model premise-head`")  # fmt: skip

    def reads(self, citing_id: str, own: frozenset[str]) -> bool:
        """Whether the head may count what the proof of ``citing_id`` cites (``own``: the query statement's ids)."""
        return citing_id not in own and citing_id not in self.holdout and in_training_split(citing_id)

    def score(self, x: np.ndarray) -> np.ndarray:
        return x @ np.asarray(self.weights) + self.bias

    def to_dict(self) -> dict[str, Any]:
        return {"features": list(FEATURES), "weights": list(self.weights), "bias": self.bias,
                "holdout": sorted(self.holdout), "meta": self.meta}  # fmt: skip

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PremiseHead:
        if list(d.get("features", ())) != list(FEATURES):
            raise InputError("the stored premise head was fitted on other features: refit it with "
                             "`theorem-rag model premise-head`")  # fmt: skip
        return cls(tuple(float(w) for w in d["weights"]), float(d["bias"]), frozenset(d.get("holdout", ())),
                   dict(d.get("meta", {})))  # fmt: skip


@dataclass
class Candidates:
    """A premise query's candidates (ids best text rank first, then the ones the graph added) and their features."""

    ids: list[str]
    x: np.ndarray
    theorems: dict[str, Hit]


def _section(t: Theorem | None) -> tuple[str, tuple[str, ...]] | None:
    return (t.doc_id, tuple(t.section)) if t is not None else None


def candidates(store: Store, head: PremiseHead, ranked: Sequence[Hit], kept: Sequence[Hit], *, widen: bool = True) -> Candidates:
    """The features of every candidate of one premise query.

    ``ranked``: the text ranking before the statement was left out (hydrated; its first hit is the pivot);
    ``kept``: the same ranking without the statement. ``widen=False`` keeps to the text candidates (a filtered
    search: statements the graph adds are not checked against the filters).
    """
    kept_ids = {h.theorem_id for h in kept}
    own = frozenset(h.theorem_id for h in ranked if h.theorem_id not in kept_ids)
    pivot = ranked[0].theorem if ranked else None
    text_rank = {h.theorem_id: i for i, h in enumerate(kept, 1)}
    hits: dict[str, Hit] = {h.theorem_id: h for h in kept}
    order: list[str] = [h.theorem_id for h in kept]

    outline = store.outline(pivot.doc_id) if pivot is not None else []
    position = {row.id: i for i, row in enumerate(outline)}
    at = position.get(pivot.id) if pivot is not None else None
    section_votes: Counter[str] = Counter()
    document_votes: Counter[str] = Counter()
    pivot_section = tuple(pivot.section) if pivot is not None else ()
    for row in outline:
        if head.reads(row.id, own):
            for ref in set(row.proof_refs) - {row.id}:
                document_votes[ref] += 1
                if row.section == pivot_section:
                    section_votes[ref] += 1
    neighbours: Counter[str] = Counter()
    for i, h in enumerate(kept[:NEIGHBOURS], 1):
        if h.theorem is not None and head.reads(h.theorem_id, own):
            for ref in set(h.theorem.proof_refs) - {h.theorem_id}:
                neighbours[ref] += 1.0 / i

    if widen:
        extra: list[str] = []
        if at is not None:
            extra += [row.id for row in outline[max(0, at - PRECEDING):at]]
        extra += [i for i, _ in document_votes.most_common(DOCUMENT_VOTED)]
        extra += [i for i, _ in neighbours.most_common(NEIGHBOUR_VOTED)]
        new = [i for i in dict.fromkeys(extra) if i not in hits and i not in own]
        if new:
            for h in store.hydrate([Hit(i, 0.0) for i in new]):
                hits[h.theorem_id] = h
                order.append(h.theorem_id)
    cited_by: Counter[str] = Counter()
    for citing, cited in store.citations_of(order):
        if citing != cited and head.reads(citing, own):
            cited_by[cited] += 1

    rows = []
    for i in order:
        t = hits[i].theorem
        r = text_rank.get(i)
        same_doc = pivot is not None and t is not None and t.doc_id == pivot.doc_id
        distance = (at - position[i]) if (same_doc and at is not None and i in position) else 0
        rows.append([
            1.0 / (5 + r) if r else 0.0, math.log(r) if r else math.log(150.0), 1.0 if r else 0.0,
            float(same_doc), float(same_doc and _section(t) == _section(pivot)),
            1.0 / distance if distance > 0 else 0.0, float(0 < distance <= 3), float(distance < 0),
            math.log1p(section_votes.get(i, 0)), math.log1p(document_votes.get(i, 0)), math.log1p(cited_by.get(i, 0)),
            neighbours.get(i, 0.0), float(t is not None and t.kind == "definition"),
        ])  # fmt: skip
    x = np.asarray(rows, dtype=np.float64).reshape(len(order), len(FEATURES))
    return Candidates(order, x, hits)


def rerank(store: Store, head: PremiseHead, ranked: Sequence[Hit], kept: Sequence[Hit], k: int, *,
           widen: bool = True) -> list[Hit]:  # fmt: skip
    """The ``k`` most likely premises: the candidates of :func:`candidates` by the head's score, ranks from 1."""
    found = candidates(store, head, ranked, kept, widen=widen)
    if not found.ids:
        return []
    scores = head.score(found.x)
    best = np.argsort(-scores, kind="stable")[:k]
    return [replace(found.theorems[found.ids[j]], score=float(scores[j]), rank=n) for n, j in enumerate(best, 1)]


def fit(xs: Sequence[np.ndarray], ys: Sequence[np.ndarray], *, l2: float = 1.0, iterations: int = 50) -> tuple[np.ndarray, float]:
    """Logistic regression by Newton's method with an L2 penalty on the weights (not the bias): ``(weights, bias)``.

    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(400, 2)); y = (x[:, 0] - x[:, 1] > 0).astype(float)
    >>> w, b = fit([x], [y], l2=0.1)
    >>> bool(w[0] > 1 and w[1] < -1)
    True
    """
    x = np.vstack(xs)
    y = np.concatenate(ys)
    if x.shape[0] == 0 or y.min() == y.max():
        raise InputError("fitting a premise head needs candidates that are cited and candidates that are not")
    a = np.hstack([x, np.ones((x.shape[0], 1))])
    beta = np.zeros(a.shape[1])
    penalty = np.full(a.shape[1], l2)
    penalty[-1] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(a @ beta)))
        gradient = a.T @ (p - y) + penalty * beta
        hessian = (a * (p * (1 - p))[:, None]).T @ a + np.diag(penalty) + 1e-9 * np.eye(a.shape[1])
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return beta[:-1], float(beta[-1])


_REFERENCE = re.compile(r"\\begin\{reference\}.*?\\end\{reference\}\s*", re.S)


def query_text(body_latex: str) -> str:
    """A statement's LaTeX as a premise query gives it: without its ``reference`` block (a citation of the
    literature), stripped.

    >>> query_text("\\\\begin{reference}\\n\\\\cite{X}\\n\\\\end{reference}\\nLet $x$ be.\\n")
    'Let $x$ be.'
    """
    return _REFERENCE.sub("", body_latex).strip()


def fit_head(
    retriever: TheoremRetriever,
    store: Store,
    *,
    holdout: Iterable[str] = (),
    queries: int = 1000,
    seed: int = 0,
    l2: float = 1.0,
    progress: Callable[[Iterable[Any]], Iterable[Any]] | None = None,
) -> PremiseHead:
    """Fit a premise head on statements of the training split: each is a premise query (its LaTeX, itself left
    out), its proof's references in the index are what it should find, and its own proof is not read.

    ``retriever`` ranks by text in premises mode (no head); ``holdout``: citing statements never used, neither as
    training queries nor by the fitted head (the statements of evaluation queries); ``queries``: how many
    training statements (a seeded sample; 0 for all); ``progress`` wraps the loop over them (a progress bar).
    """
    t0 = time.monotonic()
    blank = PremiseHead(tuple(0.0 for _ in FEATURES), 0.0, frozenset(holdout))
    citing = [i for i in store.citing_statements() if blank.reads(i, frozenset())]
    random.Random(seed).shuffle(citing)
    chosen: list[tuple[Theorem, set[str]]] = []
    for start in range(0, len(citing), 256):
        if queries and len(chosen) >= queries:
            break
        batch = store.get_theorems(citing[start:start + 256])
        present = store.get_theorems(list({r for t in batch.values() for r in t.proof_refs}))
        for i in citing[start:start + 256]:
            t = batch.get(i)
            refs = {r for r in t.proof_refs if r in present and r != i} if t is not None else set()
            if refs and query_text(t.body_latex):
                chosen.append((t, refs))
    chosen = chosen[:queries] if queries else chosen
    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    for t, refs in progress(chosen) if progress is not None else chosen:
        ranked, kept = retriever.premise_text_ranking(query_text(t.body_latex), frozenset({t.id}))
        found = candidates(store, blank, ranked, kept)
        xs.append(found.x)
        ys.append(np.asarray([1.0 if i in refs else 0.0 for i in found.ids]))
    weights, bias = fit(xs, ys, l2=l2)
    scores = [x @ weights + bias for x in xs]
    recall = float(np.mean([y[np.argsort(-s, kind="stable")[:20]].sum() / max(1.0, y.sum() + 0.0) for s, y in zip(scores, ys)]))
    meta = {"queries": len(chosen), "candidates": int(sum(len(y) for y in ys)), "cited_candidates": int(sum(y.sum() for y in ys)),
            "training_recall_at_20_of_candidates": round(recall, 4), "seed": seed, "l2": l2,
            "seconds": round(time.monotonic() - t0, 1), "holdout": len(blank.holdout)}  # fmt: skip
    return PremiseHead(tuple(float(w) for w in weights), bias, blank.holdout, meta)
