"""Run query sets through named searchers on the same corpus and score them at theorem and paper level.

Any retrieval configuration plugs in as a :class:`Searcher`: an object with a ``name`` and a
``search_batch(queries, k)`` that returns, per query, theorem ids best first. Ties in score must be broken
deterministically by the searcher; the harness scores the order it is given (see :mod:`theorem_rag.eval.metrics`).

>>> class Fixed:
...     name = "fixed"
...     def search_batch(self, queries, k):
...         return [["t1", "t2"][:k] for _ in queries]
>>> from theorem_rag.eval.queries import Query
>>> result = evaluate({"dev": [Query("q1", "x", ("t2",))]}, {"fixed": Fixed()}, {"t1": "p", "t2": "p"}, ks=(1, 5))
>>> result.score("fixed", "dev", "theorem", "mrr@5"), result.score("fixed", "dev", "paper", "hit@1")
(0.5, 1.0)
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol, runtime_checkable

from theorem_rag.errors import InputError
from theorem_rag.eval import metrics
from theorem_rag.eval.queries import Query

LEVELS = ("theorem", "paper")
UNSTYLED = "unstyled"  # the style of a query its set's styles do not name


@runtime_checkable
class Searcher(Protocol):
    """What the harness evaluates: ranked theorem ids per query, best first, at most ``k`` each."""

    name: str

    def search_batch(self, queries: list[str], k: int) -> list[list[str]]: ...


@dataclass
class QueryResult:
    """Where one query's first relevant theorem and paper landed (None: not in the ranking returned)."""

    config: str
    query_set: str
    query_id: str
    rank: int | None
    paper_rank: int | None
    missing: tuple[str, ...] = ()


@dataclass
class StyleResult:
    """Mean theorem-level metrics of one configuration over the queries of one style of a query set."""

    n: int
    theorem: dict[str, float]


@dataclass
class SetResult:
    """Mean metrics of one configuration on one query set.

    ``n_missing`` counts queries with a relevant id the corpus lacks, ``n_unanswerable`` those whose relevant ids
    are all absent (always misses); ``latency_ms`` is wall time per query, batched as the searcher was called.
    ``styles`` breaks the theorem-level means down by query style, for a set whose queries have styles (queries
    the styles do not name fall under ``UNSTYLED``).
    """

    n: int
    theorem: dict[str, float]
    paper: dict[str, float]
    latency_ms: float
    n_missing: int = 0
    n_unanswerable: int = 0
    styles: dict[str, StyleResult] = field(default_factory=dict)


@dataclass
class EvalResult:
    """Scores per configuration, per query set and per level; ``per_query`` keeps the ranks behind them."""

    ks: tuple[int, ...]
    results: dict[str, dict[str, SetResult]]
    per_query: list[QueryResult] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def primary_metric(self) -> str:
        return metrics.primary_metric(self.ks)

    @property
    def configs(self) -> list[str]:
        return list(self.results)

    @property
    def query_sets(self) -> list[str]:
        return list(dict.fromkeys(s for by_set in self.results.values() for s in by_set))

    def score(self, config: str, query_set: str, level: str = "theorem", metric: str | None = None) -> float:
        """One figure, for example ``result.score("bm25-latex", "stacks_slogans_dev", "theorem", "hit@20")``."""
        return getattr(self.results[config][query_set], level)[metric or self.primary_metric]

    def panel_scores(self, level: str = "theorem") -> dict[str, dict[str, dict[str, float]]]:
        """``{config: {query_set: metrics}}`` at one level: what :func:`~theorem_rag.eval.panel.panel_drops` and
        :func:`~theorem_rag.eval.panel.panel_markdown` read."""
        return {c: {s: dict(getattr(r, level)) for s, r in by_set.items()} for c, by_set in self.results.items()}

    def to_json(self, per_query: bool = False) -> dict[str, Any]:
        """A JSON-ready dict; ``per_query=True`` adds every query's ranks."""
        out: dict[str, Any] = {
            "ks": list(self.ks),
            "primary_metric": self.primary_metric,
            "meta": self.meta,
            "results": {c: {s: asdict(r) for s, r in by_set.items()} for c, by_set in self.results.items()},
        }
        if per_query:
            out["per_query"] = [asdict(q) for q in self.per_query]
        return out


def evaluate(
    query_sets: Mapping[str, Sequence[Query]],
    searchers: Mapping[str, Searcher],
    doc_of: Mapping[str, str],
    ks: Sequence[int] = metrics.DEFAULT_KS,
    batch_size: int = 256,
    styles: Mapping[str, Mapping[str, str]] | None = None,
) -> EvalResult:
    """Score every searcher on every query set; ``doc_of`` maps each corpus theorem id to its document id.

    ``doc_of`` doubles as the list of what the corpus holds: relevant ids not in it are counted as missing.
    A query with ``exclude`` asks for ``k + len(exclude)`` results so that excluding does not shorten the list.
    ``styles[set][query id]`` is a query's style (:func:`~theorem_rag.eval.queries.load_styles`): a set that has
    them is also scored per style.
    """
    ks = tuple(sorted(set(ks)))
    metrics._check_ks(ks)
    if not searchers:
        raise InputError("no searcher to evaluate")
    empty = [name for name, queries in query_sets.items() if not queries]
    if empty:
        raise InputError(f"query set(s) without queries: {', '.join(empty)}")
    results: dict[str, dict[str, SetResult]] = {}
    per_query: list[QueryResult] = []
    for config, searcher in searchers.items():
        results[config] = {}
        for set_name, queries in query_sets.items():
            rankings, seconds = _run(searcher, queries, max(ks), batch_size)
            style_of = (styles or {}).get(set_name) or {}
            set_result, rows = _score_set(config, set_name, queries, rankings, doc_of, ks, style_of)
            set_result.latency_ms = 1000.0 * seconds / len(queries) if queries else 0.0
            results[config][set_name] = set_result
            per_query.extend(rows)
    return EvalResult(ks=ks, results=results, per_query=per_query)


def _run(searcher: Searcher, queries: Sequence[Query], k: int, batch_size: int) -> tuple[list[list[str]], float]:
    """Rankings in query order, grouped into batches of equal depth, and the total time spent searching."""
    by_depth: dict[int, list[int]] = defaultdict(list)
    for i, q in enumerate(queries):
        by_depth[k + len(q.exclude)].append(i)
    rankings: list[list[str]] = [[] for _ in queries]
    seconds = 0.0
    for depth, indices in sorted(by_depth.items()):
        for start in range(0, len(indices), batch_size):
            chunk = indices[start : start + batch_size]
            t0 = time.perf_counter()
            got = searcher.search_batch([queries[i].query for i in chunk], depth)
            seconds += time.perf_counter() - t0
            if len(got) != len(chunk):
                name = getattr(searcher, "name", searcher)
                raise ValueError(f"searcher {name!r} returned {len(got)} rankings for {len(chunk)} queries")
            for i, ranking in zip(chunk, got):
                rankings[i] = list(ranking)
    return rankings, seconds


def _score_set(
    config: str,
    set_name: str,
    queries: Sequence[Query],
    rankings: Sequence[Sequence[str]],
    doc_of: Mapping[str, str],
    ks: tuple[int, ...],
    style_of: Mapping[str, str],
) -> tuple[SetResult, list[QueryResult]]:
    theorem_rows, paper_rows, rows = [], [], []
    n_missing = n_unanswerable = 0
    for q, ranked in zip(queries, rankings):
        cleaned = metrics.clean_ranking(ranked, q.exclude)
        theorem_rows.append(metrics.score_ranking(ranked, q.relevant, ks, q.exclude))
        papers = metrics.paper_ranking(cleaned, doc_of)
        gold_papers = metrics.relevant_papers(q.relevant, doc_of, q.relevant_papers)
        paper_rows.append(metrics.score_ranking(papers, gold_papers, ks))
        missing = metrics.missing_relevant(q.relevant, doc_of)
        n_missing += bool(missing)
        n_unanswerable += len(missing) == len(q.relevant)
        rows.append(
            QueryResult(
                config=config,
                query_set=set_name,
                query_id=q.id,
                rank=metrics.first_relevant_rank(cleaned, set(q.relevant)),
                paper_rank=metrics.first_relevant_rank(papers, gold_papers),
                missing=tuple(missing),
            )
        )
    result = SetResult(
        n=len(queries),
        theorem=metrics.mean_scores(theorem_rows),
        paper=metrics.mean_scores(paper_rows),
        latency_ms=0.0,
        n_missing=n_missing,
        n_unanswerable=n_unanswerable,
        styles=_by_style(queries, theorem_rows, style_of) if style_of else {},
    )
    return result, rows


def _by_style(queries: Sequence[Query], rows: Sequence[Mapping[str, float]], style_of: Mapping[str, str]
              ) -> dict[str, StyleResult]:  # fmt: skip
    """The theorem-level means of each style's queries, styles in sorted order."""
    grouped: dict[str, list[Mapping[str, float]]] = defaultdict(list)
    for q, row in zip(queries, rows):
        grouped[style_of.get(q.id, UNSTYLED)].append(row)
    return {style: StyleResult(len(group), metrics.mean_scores(group)) for style, group in sorted(grouped.items())}


@dataclass
class SweepRow:
    """One candidate-pool size: overlap of its top ``k`` with exact search, and mean latency per query."""

    pool: int
    k: int
    overlap: float
    latency_ms: float


def pool_sweep(
    make_searcher: Callable[[int], Searcher],
    pools: Sequence[int],
    exact: Searcher,
    queries: Sequence[str],
    k: int = 10,
) -> list[SweepRow]:
    """Recall of approximate search against exact search, and latency, for each candidate-pool size.

    ``make_searcher(pool)`` builds the approximate searcher (for the index: HNSW over binary vectors with
    ``pool`` candidates re-ranked by exact cosine); ``exact`` is the brute-force reference.

    >>> class Cut:
    ...     def __init__(self, pool): self.name, self.pool = f"pool{pool}", pool
    ...     def search_batch(self, queries, k): return [["a", "b", "c"][: min(k, self.pool)] for _ in queries]
    >>> [row.overlap for row in pool_sweep(Cut, [1, 3], Cut(3), ["q"], k=3)]
    [0.3333333333333333, 1.0]
    """
    if not queries:
        raise InputError("pool_sweep needs at least one query")
    truth = exact.search_batch(list(queries), k)
    rows = []
    for pool in pools:
        searcher = make_searcher(pool)
        t0 = time.perf_counter()
        got = searcher.search_batch(list(queries), k)
        seconds = time.perf_counter() - t0
        overlap = sum(metrics.overlap_at_k(a, e, k) for a, e in zip(got, truth)) / len(queries)
        rows.append(SweepRow(pool=pool, k=k, overlap=overlap, latency_ms=1000.0 * seconds / len(queries)))
    return rows
