"""``TheoremSearch``: the one object the CLI, REST API, MCP server, chat app and widgets search through.

It wires a :class:`~theorem_rag.db.store.TheoremStore`, an :class:`~theorem_rag.embed.Embedder` and a
:class:`~theorem_rag.retrieval.retriever.TheoremRetriever` (plus an optional reranker) from plain arguments, or
from :class:`~theorem_rag.config.Settings` at the edges.

>>> search = TheoremSearch.from_settings()                          # doctest: +SKIP
>>> [h.theorem_id for h in search.search("Nakayama's lemma", k=3)]  # doctest: +SKIP
['stacks:00DV', ...]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Generic, TypeVar, Unpack

from theorem_rag.config import Settings
from theorem_rag.errors import InputError
from theorem_rag.filters import FilterKeywords, Filters
from theorem_rag.query_understanding import QueryPlan
from theorem_rag.records import Document, Hit, Neighbours, PaperHit, Theorem
from theorem_rag.search_spaces import (
    BuiltSpaces, IndexNotBuilt, check_space_maker, query_space_options, settings_embedder, words_space_of,
)  # fmt: skip

if TYPE_CHECKING:
    from theorem_rag.retrieval.confidence import Assessment
    from theorem_rag.retrieval.options import RankingOptions
    from theorem_rag.retrieval.retriever import TheoremRetriever
    from theorem_rag.retrieval.store_protocol import Store

__all__ = ["IndexNotBuilt", "Results", "TheoremSearch", "check_space_maker"]

H = TypeVar("H", Hit, PaperHit)
# The name benchmarks/experiments/2026-12-06-research-panel/variants.py imports.
_query_space = query_space_options


@dataclass(frozen=True)
class Results(Generic[H]):
    """One query's ranked statements (or papers), best first, with the plan the search read in the query: what
    :meth:`TheoremSearch.assess` explains them with, so the query is read once."""

    hits: list[H]
    plan: QueryPlan


def _chosen(filters: Filters | None, keywords: Mapping[str, Any]) -> Filters:
    """The filters of one call: ``filters``, or else the keyword filters (:meth:`Filters.from_keywords`)."""
    if filters is None:
        return Filters.from_keywords(keywords)
    if keywords:
        raise InputError(f"filters given twice: a Filters object and keyword filters ({', '.join(keywords)})")
    return filters


class TheoremSearch:
    """Search theorems and papers; validate input; look records up; store feedback.

    Errors callers should expect: :class:`~theorem_rag.errors.InputError` for bad input (empty or too long query,
    k out of range, unknown filter), :class:`IndexNotBuilt` before the index exists, and
    :class:`~theorem_rag.db.store.StoreUnavailable` while the database is down (the object stays usable).

    Every consumer ranks through the one :class:`~theorem_rag.retrieval.retriever.TheoremRetriever` built here
    (reranker and extra spaces included): :meth:`search`, :meth:`as_retriever` and the agent tools agree. Its
    options are ``ranking`` (:class:`~theorem_rag.retrieval.options.RankingOptions`), each of which a keyword
    argument (``k=5``, ``hybrid=False``) changes; ``max_k`` caps ``k``, and the retriever pools at least and
    reranks at most that many candidates (its ``rerank_depth``).
    """

    def __init__(
        self,
        store: Store,
        embedder: Any,
        *,
        space: str,
        max_k: int = 100,
        ranking: RankingOptions | None = None,
        query_space: str | None = None,
        query_embedder: Any = None,
        formal_in_base: bool = False,
        words_space: str | None = None,
        **options: Any,
    ) -> None:
        from theorem_rag.embed import SentenceTransformerEmbedding
        from theorem_rag.retrieval.options import RankingOptions
        from theorem_rag.retrieval.retriever import TheoremRetriever

        self.store, self.embedder, self.space = store, embedder, space
        if query_space is not None and query_embedder is None:
            raise InputError(f"query_space {query_space!r} needs the query_embedder whose model made it")
        self.max_k = max_k
        self.ranking = replace(ranking or RankingOptions(), **options)
        self._built = BuiltSpaces()
        # Any k up to max_k may be asked for: the retriever pools at least that many and reranks that deep.
        pool = self.ranking.pool if self.ranking.pool is None else max(self.ranking.pool, max_k)
        self.retriever = TheoremRetriever(
            store, SentenceTransformerEmbedding(embedder), space, ranking=replace(self.ranking, pool=pool,
                                                                                  rerank_depth=max_k),
            query_space=query_space,
            query_embed_model=SentenceTransformerEmbedding(query_embedder) if query_embedder is not None else None,
            formal_in_base=formal_in_base, words_space=words_space,
        )  # fmt: skip
        # the retriever decides whether the query space is one (not this search's own space)
        self.query_space = self.retriever.query_space
        self.query_embedder = query_embedder if self.query_space else None
        self.formal_in_base = self.retriever.formal_in_base
        self.words_space = words_space

    @property
    def k(self) -> int:
        """The number of results a call that names no ``k`` gets."""
        return self.ranking.k

    @classmethod
    def from_settings(cls, settings: Settings | None = None, **overrides: Any) -> TheoremSearch:
        """Build from :class:`Settings` (environment ``THEOREM_RAG_*``); keyword overrides win."""
        from theorem_rag.db.server import resolve_dsn
        from theorem_rag.db.store import TheoremStore
        from theorem_rag.db.table_names import space_name
        from theorem_rag.embed_onnx import AUTO, backend_for_space
        from theorem_rag.retrieval.options import RankingOptions
        from theorem_rag.retrieval.rerank import build_reranker

        s = settings or Settings()
        store = TheoremStore(resolve_dsn(s), table=s.table, max_query_chars=s.max_query_chars, pool_size=s.db_pool_size,
                             statement_timeout=s.statement_timeout)  # fmt: skip
        # "auto": the backend the space was built with, or onnx-int8 for a new space (embed_onnx.resolve_backend)
        spaces = store.spaces()
        backend = backend_for_space(s.embed_backend, spaces if s.embed_backend == AUTO else [],
                                    space_name(s.embed_model, s.embed_field), s.embed_model)  # fmt: skip
        embedder = settings_embedder(s, s.embed_model, backend)
        ranking = RankingOptions(
            k=s.k, pool=s.candidate_pool, ef_search=s.ef_search, iterative_scan=s.iterative_scan, hybrid=s.hybrid,
            rrf_k=s.rrf_k, fusion=s.fusion, reranker=build_reranker(s.reranker, api_base=s.llm_api_base),
            max_query_chars=s.max_query_chars, understand=s.query_understanding,
            extra_spaces=[space_name(s.embed_model, f.strip()) for f in s.fusion_fields.split(",") if f.strip()],
        )  # fmt: skip
        kwargs: dict[str, Any] = {"space": space_name(s.embed_model, s.embed_field), "max_k": s.max_k,
                                  "ranking": ranking, **overrides}  # fmt: skip
        if "query_space" not in overrides:
            extra_spaces = kwargs.get("extra_spaces", kwargs["ranking"].extra_spaces)
            kwargs.update(query_space_options(s, store, spaces, kwargs["space"], extra_spaces))
        if "words_space" not in overrides:
            kwargs["words_space"] = words_space_of(s, store, spaces, embedder)
        return cls(store, embedder, **kwargs)

    def with_options(self, **overrides: Any) -> TheoremSearch:
        """The same store and model with some search options changed (space, max_k, the query space, ``ranking``
        whole or any of its options: hybrid, reranker, extra_spaces, ...).

        >>> latex_only = search.with_options(space="minilm_l6_v2_latex", hybrid=False)   # doctest: +SKIP
        """
        from theorem_rag.retrieval.options import RANKING_OPTIONS, drops_query_space

        # the embedders as they are now (a server wraps them in batchers after construction)
        kept = {"space": self.space, "max_k": self.max_k, "ranking": self.ranking, "query_space": self.query_space,
                "query_embedder": self.query_embedder, "formal_in_base": self.formal_in_base,
                "words_space": self.words_space}  # fmt: skip
        unknown = sorted(set(overrides) - {*kept, *RANKING_OPTIONS})
        if unknown:
            known = ", ".join([*kept, *RANKING_OPTIONS])
            raise InputError(f"unknown search option(s) {', '.join(unknown)}; known: {known}")
        if drops_query_space(self.space, overrides):
            overrides.update(query_space=None, query_embedder=None, formal_in_base=False)
        return TheoremSearch(self.store, self.embedder, **{**kept, **overrides})

    def _check_k(self, k: int | None) -> int:
        k = self.k if k is None else k
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= self.max_k:
            raise InputError(f"k must be an integer from 1 to {self.max_k}, got {k!r}")
        return k

    def _check_built(self) -> None:
        self._built.check(self.store, (self.space, *self.retriever.extra_spaces), self.embedder, self.query_space,
                          self.query_embedder)

    def query_embedder_for(self, query: str) -> Any:
        """The embedder a search for ``query`` embeds it with: the query model's for a query in words when this
        search has a query space (:meth:`TheoremRetriever.dense_space`), else :attr:`embedder`."""
        return self.query_embedder if self.retriever.dense_space(query)[0] == self.query_space else self.embedder

    def search_batch(self, queries: Sequence[str], k: int | None = None, *, filters: Filters | None = None,
                     **keywords: Unpack[FilterKeywords]) -> list[list[Hit]]:  # fmt: skip
        """Ranked hits (with theorem records and slogans) for each query, best first. Filters: a
        :class:`~theorem_rag.filters.Filters`, or the keywords ``sources``, ``kinds``, ``papers`` (document ids),
        ``year_min``, ``year_max`` and ``categories`` (arXiv papers listed in any of them, primary or cross-list),
        each a value or a list."""
        return [r.hits for r in self._rank_each(self.retriever, queries, k, filters, keywords)]

    def _rank_each(self, retriever: TheoremRetriever, texts: Sequence[str], k: int | None, filters: Filters | None,
                   keywords: Mapping[str, Any]) -> list[Results[Hit]]:  # fmt: skip
        """Each text ranked by ``retriever``, with its plan: what :meth:`search_batch`, :meth:`premises_batch` and
        :meth:`results` share."""
        k = self._check_k(k)
        self._check_built()
        chosen = _chosen(filters, keywords)
        return [Results(retriever.search(plan, k=k, filters=chosen), plan) for plan in map(retriever.plan, texts)]

    def search(self, query: str, k: int | None = None, *, filters: Filters | None = None,
               **keywords: Unpack[FilterKeywords]) -> list[Hit]:  # fmt: skip
        """Ranked hits for one query; filters as in :meth:`search_batch`."""
        return self.search_batch([query], k, filters=filters, **keywords)[0]

    def results(self, query: str, k: int | None = None, *, filters: Filters | None = None,
                **keywords: Unpack[FilterKeywords]) -> Results[Hit]:  # fmt: skip
        """The hits of :meth:`search` for one query with the plan the search read in it, which :meth:`assess`
        explains them with; filters as in :meth:`search_batch`.

        >>> found = search.results("CRT", k=3)                     # doctest: +SKIP
        >>> search.assess("CRT", found.hits, found.plan).notes      # doctest: +SKIP
        ('CRT = Chinese remainder theorem',)
        """
        return self._rank_each(self.retriever, [query], k, filters, keywords)[0]

    def premise_retriever(self) -> TheoremRetriever:
        """The retriever :meth:`premises` ranks with: this search's in ``mode="premises"`` (premise-embedded query
        over the same space fused with full-text search when hybrid), without query understanding, a reranker or
        extra spaces."""
        return self.retriever.with_options(mode="premises", understand=False, reranker=None, extra_spaces=())

    def premises_batch(self, statements: Sequence[str], k: int | None = None, *, filters: Filters | None = None,
                       **keywords: Unpack[FilterKeywords]) -> list[list[Hit]]:  # fmt: skip
        """For each statement (LaTeX, a goal to prove in words, or a statement id such as ``stacks:0D09``), the
        results a proof of it is likely to use, best first; the statement itself is never among them. Filters as
        in :meth:`search_batch`.

        >>> [h.theorem_id for h in search.premises_batch(["stacks:0D09"], k=3)[0]]   # doctest: +SKIP
        ['stacks:08TM', ...]
        """
        return [r.hits for r in self._rank_each(self.premise_retriever(), statements, k, filters, keywords)]

    def premises(self, statement: str, k: int | None = None, *, filters: Filters | None = None,
                 **keywords: Unpack[FilterKeywords]) -> list[Hit]:  # fmt: skip
        """The results a proof of one statement (or goal, or statement id) is likely to use; see
        :meth:`premises_batch`.

        >>> search.premises("Let $A$ be a Noetherian ring. Then $A[x]$ is Noetherian.", k=5)   # doctest: +SKIP
        """
        return self.premises_batch([statement], k, filters=filters, **keywords)[0]

    def fit_premise_head(self, *, holdout: Sequence[str] = (), queries: int = 1000, seed: int = 0,
                         progress: Any = None) -> dict[str, Any]:  # fmt: skip
        """Fit the premise head on the proof graph of the index and store it there; :meth:`premises` uses it from
        the next call. ``holdout``: statements whose proofs it must never read (the statements of evaluation
        queries); ``queries``: training statements (seeded sample, 0 for all). Returns the stored head (weights,
        holdout, and what the fit saw in ``meta``). See :mod:`theorem_rag.retrieval.premise_head`.
        """
        from theorem_rag.retrieval.premise_head import fit_head

        self._check_built()
        retriever = self.premise_retriever().with_options(premise_head=False)
        head = fit_head(retriever, self.store, holdout=holdout, queries=queries, seed=seed, progress=progress)
        self.store.save_premise_head(head.to_dict())
        return head.to_dict()

    def search_papers(self, query: str, k: int | None = None, *, filters: Filters | None = None,
                      **keywords: Unpack[FilterKeywords]) -> list[PaperHit]:  # fmt: skip
        """Paper-level results: documents ranked by their best matching statements; filters as in
        :meth:`search_batch`."""
        return self.paper_results(query, k, filters=filters, **keywords).hits

    def paper_results(self, query: str, k: int | None = None, *, filters: Filters | None = None,
                      **keywords: Unpack[FilterKeywords]) -> Results[PaperHit]:  # fmt: skip
        """The papers of :meth:`search_papers` for one query with the plan the search read in it (as
        :meth:`results`)."""
        k = self._check_k(k)
        self._check_built()
        chosen = _chosen(filters, keywords)
        plan = self.retriever.plan(query)
        return Results(self.retriever.search_papers(plan, k=k, filters=chosen), plan)

    def assess(self, query: str, hits: Sequence[Hit | PaperHit], plan: QueryPlan | None = None) -> Assessment:
        """How close a match ``hits`` (a result of :meth:`search` or :meth:`search_papers` for ``query``) is: an
        :class:`~theorem_rag.retrieval.confidence.Assessment` with ``confident``, the first hit's
        calibrated ``confidence``, a plain message and suggestions when nothing matches well (a statement name
        close to the query by trigram similarity among them), and what query understanding did (``notes``).
        ``plan``: the one the search read (:meth:`results`), so the query is not read again.

        >>> search.assess("asdfghjkl", search.search("asdfghjkl")).confident   # doctest: +SKIP
        False
        """
        from theorem_rag.query_understanding import understand
        from theorem_rag.retrieval.confidence import assess
        from theorem_rag.retrieval.routing import close_name

        if plan is None or not self.retriever.understand:
            # A search without query understanding read the query as it stands: say what the rules read in it.
            plan = understand(query)
        confidences = [_confidence(h) for h in hits]
        suggestion = None
        if not assess(confidences).confident and not plan.formula:
            suggestion = close_name(self.store, plan.text)
        return assess(confidences, did_you_mean=suggestion, notes=plan.notes)

    def get_theorem(self, theorem_id: str) -> Hit | None:
        """The theorem record with its slogan (as a :class:`Hit` with score 1.0), or None if unknown."""
        hits = self.store.hydrate([Hit(theorem_id, 1.0, rank=1)])
        return hits[0] if hits and hits[0].theorem is not None else None

    def neighbours(self, theorem_id: str, limit: int = 500) -> Neighbours | None:
        """What the statement's proof cites and which statements' proofs cite it (ids), or None if unknown (an old
        positional id: the statement that carries it, under its id now).

        >>> search.neighbours("stacks:00DV").used_by[:2]                 # doctest: +SKIP
        ('stacks:00DY', 'stacks:00E0')
        """
        t = self.store.get_theorems([theorem_id]).get(theorem_id)
        if t is None:
            return None
        return Neighbours(t.id, uses=t.proof_refs, used_by=tuple(self.store.used_by(t.id, limit)))

    def graph_search(self, relation: str, theorem_id: str, k: int | None = None) -> tuple[list[Hit], list[str]]:
        """The first ``k`` statements that ``theorem_id``'s proof cites (``uses``), whose proofs cite it
        (``used-by``), or the statement itself (``id``), as hits in that order, with every id of the relation."""
        k = self._check_k(k)
        if relation not in ("uses", "used-by", "id"):
            raise InputError(f"unknown relation {relation!r}; use uses, used-by or id")
        neighbours = self.neighbours(theorem_id)
        if neighbours is None:
            raise InputError(f"no statement with id {theorem_id!r} in the index")
        ids = {"uses": list(neighbours.uses), "used-by": list(neighbours.used_by),
               "id": [neighbours.theorem_id]}[relation]  # fmt: skip
        found = self.store.hydrate([Hit(i, 1.0, rank=n) for n, i in enumerate(ids[:k], 1)])
        return [replace(h, rank=n) for n, h in enumerate(found, 1)], ids

    def used_by_counts(self, ids: Sequence[str]) -> dict[str, int]:
        """How many statements' proofs cite each id (absent: none), for "used by n" on result cards."""
        return self.store.used_by_counts(list(ids))

    def theorems_by_labels(self, source: str, labels: Sequence[str]) -> list[Theorem]:
        """Statements of ``source`` carrying one of ``labels``: the targets a statement's ``\\ref`` may name."""
        return self.store.theorems_by_labels(source, list(labels))

    def get_theorems(self, ids: Sequence[str]) -> dict[str, Theorem]:
        return self.store.get_theorems(list(ids))

    def get_document(self, doc_id: str) -> Document | None:
        return self.store.get_document(doc_id)

    def index_generation(self) -> int:
        """The index's change marker, read now: it grows whenever documents or vector spaces change (another
        process's ``index build``, say), so a cache of what they hold, kept under this number, is stale when it
        differs (:mod:`theorem_rag.db.generation`)."""
        return self.store.refresh()

    def theorems_of(self, doc_id: str, limit: int = 500) -> list[Theorem]:
        """The statements of one document in source order."""
        return self.store.theorems_of(doc_id, limit=limit)

    def record_feedback(self, *, query: str, vote: int, theorem_id: str | None = None,
                        answer: str | None = None, comment: str | None = None) -> None:  # fmt: skip
        """Store a thumbs up (+1) or down (-1) on a result or an answer, with the query, for later evaluation; a
        vote on an old positional id is stored on the statement that carries it (its id now)."""
        if vote not in (1, -1) or isinstance(vote, bool):
            raise InputError("vote must be +1 or -1")
        if theorem_id is not None and (found := self.store.get_theorems([theorem_id]).get(theorem_id)) is not None:
            theorem_id = found.id
        self.store.record_feedback(query=query, vote=vote, theorem_id=theorem_id, answer=answer, comment=comment)

    def stats(self) -> dict[str, Any]:
        """Counts by source and whether the index is built, for health checks and the UI; ``query_space``: the space
        queries in words search (None: the search's own space for every query); ``words_space``: the space whose
        statements' words a query in words reads (None: none read)."""
        return {**self.store.stats(self.space), "query_space": self.query_space, "words_space": self.words_space}

    def as_retriever(self, **kwargs: Any) -> TheoremRetriever:
        """The LlamaIndex retriever (``TheoremRetriever``) :meth:`search` ranks with, for query engines and agents.

        Keyword arguments (``k``, ``filters``, ...) change those options only; the reranker, the fused extra
        spaces and every other option stay as :meth:`search` uses them, so both rank alike.
        """
        return self.retriever.with_options(**kwargs) if kwargs else self.retriever

    def close(self) -> None:
        self.store.close()


def _confidence(hit: Hit | PaperHit) -> float | None:
    """A hit's confidence; a paper's is its best statement's."""
    if isinstance(hit, PaperHit):
        return max((h.confidence for h in hit.hits if h.confidence is not None), default=None)
    return hit.confidence
